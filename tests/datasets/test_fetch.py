"""``datasets fetch``: pinned downloads from a real local HTTP server (with Range support).

The server serves the shared benchmark folder as is, at the same relative paths as the pinned
table; a test may tell it to cut a connection once or to change a byte of a file.
"""

from __future__ import annotations

import hashlib
import http.server
import os
import subprocess
import sys
import threading
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tomflywheel.cli import app
from tomflywheel.datasets import (
    SOURCES,
    fetch_dataset,
    fetch_files,
    is_fetched,
    list_datasets,
    load_benchmark,
)
from tomflywheel.errors import ConfigError, FetchError
from tomflywheel.schema import read_samples

runner = CliRunner()
HITOM = "hitom/Hi-ToM_data.json"
HITOM_SIZE = 2267625


@dataclass
class Server:
    """A threaded ``http.server`` over one or more folders, recording every request."""

    roots: list[Path]
    requests: list[tuple[str, str | None]] = field(default_factory=list)
    """(path, Range header) of each GET."""
    cut_once: dict[str, int] = field(default_factory=dict)
    """Path -> bytes to send before dropping the connection, the first time only."""
    tampered: set[str] = field(default_factory=set)
    """Paths served with their first byte changed (same size, wrong sha256)."""
    base_url: str = ""

    def find(self, path: str) -> Path | None:
        for root in self.roots:
            if (root / path).is_file():
                return root / path
        return None


def _handler(server: Server) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:  # keep pytest output clean
            pass

        def do_GET(self) -> None:
            from urllib.parse import unquote

            path = unquote(self.path.lstrip("/"))
            ranged = self.headers.get("Range")
            server.requests.append((path, ranged))
            found = server.find(path)
            if found is None:
                self.send_error(404)
                return
            data = found.read_bytes()
            if path in server.tampered:
                data = bytes([data[0] ^ 1]) + data[1:]
            start = int(ranged.removeprefix("bytes=").split("-")[0]) if ranged else 0
            if start >= len(data) and ranged:
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{len(data)}")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            body = data[start:]
            self.send_response(206 if ranged else 200)
            if ranged:
                self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Accept-Ranges", "bytes")
            self.end_headers()
            cut = server.cut_once.pop(path, None)
            if cut is not None:
                self.wfile.write(body[:cut])
                self.wfile.flush()
                self.close_connection = True
                return
            self.wfile.write(body)

    return Handler


@pytest.fixture
def server(benchmarks: Path, tmp_path: Path) -> Iterator[Server]:
    extra = tmp_path / "served"
    extra.mkdir()
    state = Server(roots=[benchmarks, extra])
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    state.base_url = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield state
    httpd.shutdown()
    httpd.server_close()


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_every_pinned_checksum_is_the_shared_copy(benchmarks):
    for source in SOURCES.values():
        for pinned in source.pinned():
            path = benchmarks / pinned.path
            if pinned.size is None:  # FANToM's archive: only a fixture is shared
                continue
            assert path.stat().st_size == pinned.size, pinned.path
            assert _sha(path) == pinned.sha256, pinned.path


def test_fetch_downloads_verifies_and_imports(server, tmp_path):
    seen: list[tuple[int, int | None, str]] = []
    summary = fetch_dataset(
        "hitom",
        to=tmp_path / "fetched",
        base_url=server.base_url,
        on_progress=lambda done, total, path: seen.append((done, total, path)),
        datasets_dir=tmp_path / "datasets",
    )
    target = tmp_path / "fetched" / HITOM
    assert [(f.path, f.status) for f in summary.files] == [(target, "downloaded")]
    assert _sha(target) == SOURCES["hitom"].files[0].sha256
    assert not target.with_name(target.name + ".part").exists()
    assert server.requests == [(HITOM, None)]
    assert seen[-1] == (HITOM_SIZE, HITOM_SIZE, HITOM)
    assert summary.imported is not None and summary.imported.count == 600
    assert summary.imported.out == tmp_path / "datasets" / "hitom.jsonl"


def test_an_interrupted_download_resumes_with_a_range_request(server, tmp_path):
    server.cut_once[HITOM] = 1_000_000
    summary = fetch_files("hitom", to=tmp_path, base_url=server.base_url)
    assert server.requests == [(HITOM, None), (HITOM, "bytes=1000000-")]
    assert summary.files[0].status == "resumed"
    assert _sha(tmp_path / HITOM) == SOURCES["hitom"].files[0].sha256


def test_a_partial_file_left_by_a_killed_run_is_resumed(server, benchmarks, tmp_path):
    part = tmp_path / f"{HITOM}.part"
    part.parent.mkdir(parents=True)
    part.write_bytes((benchmarks / HITOM).read_bytes()[:12345])
    summary = fetch_files("hitom", to=tmp_path, base_url=server.base_url)
    assert server.requests == [(HITOM, "bytes=12345-")]
    assert summary.files[0].status == "resumed"
    assert _sha(tmp_path / HITOM) == SOURCES["hitom"].files[0].sha256


def test_a_complete_partial_file_is_verified_without_a_request(server, benchmarks, tmp_path):
    part = tmp_path / f"{HITOM}.part"
    part.parent.mkdir(parents=True)
    part.write_bytes((benchmarks / HITOM).read_bytes())
    summary = fetch_files("hitom", to=tmp_path, base_url=server.base_url)
    assert (summary.files[0].status, server.requests) == ("resumed", [])
    assert _sha(tmp_path / HITOM) == SOURCES["hitom"].files[0].sha256


def test_a_checksum_mismatch_is_refused_and_the_download_removed(server, tmp_path):
    server.tampered.add(HITOM)
    with pytest.raises(FetchError) as info:
        fetch_files("hitom", to=tmp_path, base_url=server.base_url)
    assert f"{HITOM}: sha256 mismatch (expected 1c4077bb" in str(info.value)
    assert "the download was removed" in str(info.value)
    assert list((tmp_path / "hitom").iterdir()) == []


def test_a_verified_file_is_not_downloaded_again(server, tmp_path):
    fetch_files("socialiqa", to=tmp_path, base_url=server.base_url)
    assert len(server.requests) == 2
    summary = fetch_files("socialiqa", to=tmp_path, base_url=server.base_url)
    assert [f.status for f in summary.files] == ["present", "present"]
    assert len(server.requests) == 2


def test_a_foreign_file_in_the_way_is_named_and_kept(server, tmp_path):
    path = tmp_path / "socialiqa" / "dev-labels.lst"
    path.parent.mkdir()
    path.write_text("1\n", encoding="utf-8")
    with pytest.raises(FetchError, match=r"dev-labels\.lst is not the pinned file"):
        fetch_files("socialiqa", to=tmp_path, base_url=server.base_url)
    assert path.read_text(encoding="utf-8") == "1\n"


def test_a_missing_file_on_the_server_is_an_http_error(server, tmp_path):
    server.roots[:] = [tmp_path / "empty"]
    with pytest.raises(FetchError) as info:
        fetch_files("hitom", to=tmp_path / "out", base_url=server.base_url)
    assert f"{server.base_url}/{HITOM}: HTTP 404" in str(info.value)


def test_archive_members_are_extracted_verified_and_the_zip_removed(server, benchmarks, tmp_path):
    # ToMi ships as a zip; the test zips the shared members as the release names them.
    archive = SOURCES["tomi"].archive
    assert archive is not None
    served = server.roots[1] / archive.path
    served.parent.mkdir(parents=True)
    with zipfile.ZipFile(served, "w", zipfile.ZIP_DEFLATED) as bundle:
        for name, pinned in archive.members:
            bundle.write(benchmarks / pinned.path, f"tomi_balanced_story_types/{name}")
    summary = fetch_dataset(
        "tomi", to=tmp_path / "out", base_url=server.base_url, datasets_dir=tmp_path / "ds"
    )
    assert [f.status for f in summary.files] == ["extracted"] * 6
    assert summary.imported is not None and summary.imported.count == 5994
    for _, pinned in archive.members:
        assert _sha(tmp_path / "out" / pinned.path) == pinned.sha256
    assert not (tmp_path / "out" / archive.path).exists()
    assert server.requests == [(archive.path, None)]


PLAIN = [n for n, s in SOURCES.items() if s.archive is None and all(f.size for f in s.files)]


@pytest.mark.parametrize("name", PLAIN)
def test_every_pinned_source_fetches_and_imports(name, server, benchmarks, tmp_path):
    summary = fetch_dataset(
        name, to=tmp_path / "f", base_url=server.base_url, datasets_dir=tmp_path / "ds"
    )
    assert {f.status for f in summary.files} == {"downloaded"}
    assert len(server.requests) == len(SOURCES[name].files)
    # The fetched files import to exactly what the shared copy imports to.
    expected = load_benchmark(name, benchmarks / SOURCES[name].import_path)
    assert summary.imported is not None
    assert [s.id for s in read_samples(summary.imported.out)] == [s.id for s in expected]
    assert is_fetched(name, tmp_path / "f") is True


def test_offline_says_where_to_put_the_file_by_hand(tmp_path):
    with pytest.raises(FetchError) as info:
        fetch_files("hitom", to=tmp_path, base_url="http://127.0.0.1:9")
    message = str(info.value)
    assert message.startswith(f"cannot reach http://127.0.0.1:9/{HITOM}")
    assert (
        "download https://raw.githubusercontent.com/ying-hui-he/Hi-ToM_dataset/"
        "56dda76fbbbcd510d51e91837fe19b7df2108562/Hi-ToM_data.json "
        f"and save it as {tmp_path / HITOM} (sha256 1c4077bb"
    ) in message


def test_a_dataset_without_a_pinned_source_says_why():
    with pytest.raises(ConfigError, match="no pinned source for 'opentom'"):
        fetch_files("opentom")
    with pytest.raises(ConfigError, match=r"fetchable: adv_csfb, bigtom"):
        fetch_files("nope")


def test_cli_fetch_imports_and_prints_the_license(server, tmp_path):
    result = runner.invoke(
        app,
        [
            "datasets",
            "fetch",
            "tombench",
            "--to",
            str(tmp_path / "fetched"),
            "--base-url",
            server.base_url,
            "--datasets-dir",
            str(tmp_path / "datasets"),
        ],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 0, result.output
    assert "20 files of tombench verified in" in result.output
    assert "(20 downloaded)" in result.output
    assert "license: MIT (LICENSE)" in result.output
    assert "evaluation only: The ToMBench README asks" in result.output
    assert "2860 samples of tombench written to" in result.output
    assert len(list(read_samples(tmp_path / "datasets" / "tombench.jsonl"))) == 2860


def test_cli_fetch_reads_the_base_url_from_the_environment(server, tmp_path):
    result = runner.invoke(
        app,
        ["datasets", "fetch", "socialiqa", "--to", str(tmp_path), "--no-import"],
        env={"COLUMNS": "200", "TOMFLYWHEEL_FETCH_BASE_URL": server.base_url},
    )
    assert result.exit_code == 0, result.output
    assert "import with: tomflywheel datasets import socialiqa" in result.output
    assert is_fetched("socialiqa", tmp_path) is True
    assert len(server.requests) == 2


def test_cli_list_shows_what_is_fetched_and_imported(server, tmp_path, monkeypatch):
    fetch_dataset(
        "socialiqa",
        to=tmp_path / "f",
        base_url=server.base_url,
        datasets_dir=tmp_path / "datasets",
    )
    monkeypatch.chdir(tmp_path)  # `datasets list` looks for imports in ./datasets
    result = runner.invoke(
        app, ["datasets", "list", "--to", str(tmp_path / "f")], env={"COLUMNS": "300"}
    )
    assert result.exit_code == 0, result.output
    rows = {r.name: r for r in list_datasets(fetch_dir=tmp_path / "f")}
    assert (rows["socialiqa"].fetched, rows["socialiqa"].imported) == (True, True)
    assert (rows["hitom"].fetched, rows["opentom"].fetched) == (False, None)
    lines = result.output.splitlines()
    assert "fetched, imported" in next(line for line in lines if line.startswith("│ socialiqa "))
    assert "not fetched" in next(line for line in lines if line.startswith("│ hitom "))
    assert "no source" in next(line for line in lines if line.startswith("│ opentom "))


def test_cli_offline_is_one_line_exit_1(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "tomflywheel", "datasets", "fetch", "hitom", "--to", str(tmp_path)],
        capture_output=True,
        text=True,
        env={**os.environ, "TOMFLYWHEEL_FETCH_BASE_URL": "http://127.0.0.1:9", "COLUMNS": "400"},
        check=False,
    )
    assert result.returncode == 1
    assert "error: cannot reach http://127.0.0.1:9/hitom/Hi-ToM_data.json" in result.stderr
    assert "Offline? Fetch it by hand: download https://raw.githubusercontent.com/" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "hitom" / "Hi-ToM_data.json").exists()


def test_every_source_is_in_the_docs_table():
    docs = (Path(__file__).resolve().parents[2] / "docs" / "importers.md").read_text("utf-8")
    table = docs[docs.index("## fetch: pinned sources") :]
    for name, source in SOURCES.items():
        assert f"`{name}`" in table, name
        assert source.origin.split(" @ ")[0].split(" ")[0] in table, name
    for name in ("kosinski", "opentom"):
        assert f"`{name}`" in table
