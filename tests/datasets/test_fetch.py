"""``datasets fetch``: pinned downloads from a real local HTTP server (with Range support).

The mechanics (download, checksum, resume, archive members, the CLI) are tested on small files
the tests write: Social IQa's pinned entry is pointed at them (``toy``), so a clone without the
shared benchmarks still tests them. The tests of the real pinned table serve the shared benchmark
folder as is (``shared_server``) and skip without it. A test may tell the server to cut a
connection once or to change a byte of a file.
"""

from __future__ import annotations

import dataclasses
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

from tests.datasets.toy_files import SOCIALIQA_RECORDS, socialiqa_files
from tomflywheel.cli import app
from tomflywheel.datasets import (
    SOURCES,
    PinnedFile,
    Source,
    fetch_dataset,
    fetch_files,
    is_fetched,
    list_datasets,
    load_benchmark,
)
from tomflywheel.datasets._sources import Archive
from tomflywheel.errors import ConfigError, FetchError
from tomflywheel.schema import read_samples

runner = CliRunner()
HITOM = "hitom/Hi-ToM_data.json"
TOY = "socialiqa"
DEV, LABELS = "socialiqa/dev.jsonl", "socialiqa/dev-labels.lst"


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
def server(tmp_path: Path) -> Iterator[Server]:
    """A server over ``tmp_path/served`` (empty until a test or fixture writes there)."""
    served = tmp_path / "served"
    served.mkdir()
    state = Server(roots=[served])
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    state.base_url = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield state
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def shared_server(server: Server, benchmarks: Path) -> Server:
    """The server over the shared benchmark folder too (skips without it)."""
    server.roots.insert(0, benchmarks)
    return server


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _pin(folder: Path, path: str, data: bytes) -> PinnedFile:
    """Write ``data`` at ``folder/path`` and pin it by its size and sha256."""
    (folder / path).parent.mkdir(parents=True, exist_ok=True)
    (folder / path).write_bytes(data)
    digest = hashlib.sha256(data).hexdigest()
    return PinnedFile(
        path=path, url=f"https://example.invalid/{path}", sha256=digest, size=len(data)
    )


@pytest.fixture
def toy(server: Server, monkeypatch: pytest.MonkeyPatch) -> Source:
    """Social IQa's pinned entry pointed at small files the test serves."""
    files = tuple(
        _pin(server.roots[0], f"socialiqa/{name}", data) for name, data in socialiqa_files().items()
    )
    source = dataclasses.replace(
        SOURCES[TOY], files=files, evaluation_only="Toy files: for these tests only."
    )
    monkeypatch.setitem(SOURCES, TOY, source)
    return source


def test_every_pinned_checksum_is_the_shared_copy(benchmarks):
    for source in SOURCES.values():
        for pinned in source.pinned():
            path = benchmarks / pinned.path
            if pinned.size is None:  # FANToM's archive: only a fixture is shared
                continue
            assert path.stat().st_size == pinned.size, pinned.path
            assert _sha(path) == pinned.sha256, pinned.path


def test_fetch_downloads_verifies_and_imports(server, toy, tmp_path):
    seen: list[tuple[int, int | None, str]] = []
    summary = fetch_dataset(
        TOY,
        to=tmp_path / "fetched",
        base_url=server.base_url,
        on_progress=lambda done, total, path: seen.append((done, total, path)),
        datasets_dir=tmp_path / "datasets",
    )
    targets = [tmp_path / "fetched" / DEV, tmp_path / "fetched" / LABELS]
    assert [(f.path, f.status) for f in summary.files] == [(t, "downloaded") for t in targets]
    assert [_sha(t) for t in targets] == [f.sha256 for f in toy.files]
    assert not any(t.with_name(t.name + ".part").exists() for t in targets)
    assert server.requests == [(DEV, None), (LABELS, None)]
    total = sum(f.size or 0 for f in toy.files)
    assert seen[-1] == (total, total, LABELS)
    assert summary.imported is not None and summary.imported.count == SOCIALIQA_RECORDS
    assert summary.imported.out == tmp_path / "datasets" / "socialiqa.jsonl"


def test_an_interrupted_download_resumes_with_a_range_request(server, toy, tmp_path):
    server.cut_once[DEV] = 5_000
    summary = fetch_files(TOY, to=tmp_path / "out", base_url=server.base_url)
    assert server.requests == [(DEV, None), (DEV, "bytes=5000-"), (LABELS, None)]
    assert [f.status for f in summary.files] == ["resumed", "downloaded"]
    assert _sha(tmp_path / "out" / DEV) == toy.files[0].sha256


def test_a_partial_file_left_by_a_killed_run_is_resumed(server, toy, tmp_path):
    part = tmp_path / "out" / f"{DEV}.part"
    part.parent.mkdir(parents=True)
    part.write_bytes((server.roots[0] / DEV).read_bytes()[:1234])
    summary = fetch_files(TOY, to=tmp_path / "out", base_url=server.base_url)
    assert server.requests == [(DEV, "bytes=1234-"), (LABELS, None)]
    assert summary.files[0].status == "resumed"
    assert _sha(tmp_path / "out" / DEV) == toy.files[0].sha256


def test_a_complete_partial_file_is_verified_without_a_request(server, toy, tmp_path):
    # A run killed between the last byte and the rename.
    part = tmp_path / "out" / f"{DEV}.part"
    part.parent.mkdir(parents=True)
    part.write_bytes((server.roots[0] / DEV).read_bytes())
    summary = fetch_files(TOY, to=tmp_path / "out", base_url=server.base_url)
    assert (summary.files[0].status, server.requests) == ("resumed", [(LABELS, None)])
    assert _sha(tmp_path / "out" / DEV) == toy.files[0].sha256


def test_a_checksum_mismatch_is_refused_and_the_download_removed(server, toy, tmp_path):
    server.tampered.add(DEV)
    with pytest.raises(FetchError) as info:
        fetch_files(TOY, to=tmp_path / "out", base_url=server.base_url)
    assert f"{DEV}: sha256 mismatch (expected {toy.files[0].sha256}, got " in str(info.value)
    assert "the download was removed" in str(info.value)
    assert list((tmp_path / "out" / "socialiqa").iterdir()) == []


def test_a_verified_file_is_not_downloaded_again(server, toy, tmp_path):
    fetch_files(TOY, to=tmp_path, base_url=server.base_url)
    assert len(server.requests) == 2
    summary = fetch_files(TOY, to=tmp_path, base_url=server.base_url)
    assert [f.status for f in summary.files] == ["present", "present"]
    assert len(server.requests) == 2


def test_a_foreign_file_in_the_way_is_named_and_kept(server, toy, tmp_path):
    path = tmp_path / "socialiqa" / "dev-labels.lst"
    path.parent.mkdir()
    path.write_text("1\n", encoding="utf-8")
    with pytest.raises(FetchError, match=r"dev-labels\.lst is not the pinned file"):
        fetch_files(TOY, to=tmp_path, base_url=server.base_url)
    assert path.read_text(encoding="utf-8") == "1\n"


def test_a_missing_file_on_the_server_is_an_http_error(server, tmp_path):
    with pytest.raises(FetchError) as info:
        fetch_files("hitom", to=tmp_path / "out", base_url=server.base_url)
    assert f"{server.base_url}/{HITOM}: HTTP 404" in str(info.value)


def _zip(path: Path, members: dict[str, bytes]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as bundle:
        for name, data in members.items():
            bundle.writestr(f"release/{name}", data)


@pytest.fixture
def toy_archive(server: Server, monkeypatch: pytest.MonkeyPatch) -> Archive:
    """ToMi's entry pointed at a small archive of two pinned members (the zip itself unpinned)."""
    data = {"a.txt": b"first member\n", "b.txt": "second member, ü\n".encode()}
    members = tuple(
        (name, _pin(server.roots[0] / "pins", f"tomi/{name}", d)) for name, d in data.items()
    )
    archive = Archive(path="tomi/toy.zip", url="https://example.invalid/toy.zip", members=members)
    _zip(server.roots[0] / archive.path, data)
    monkeypatch.setitem(SOURCES, "tomi", dataclasses.replace(SOURCES["tomi"], archive=archive))
    return archive


def test_archive_members_are_extracted_verified_and_the_zip_removed(server, toy_archive, tmp_path):
    summary = fetch_files("tomi", to=tmp_path / "out", base_url=server.base_url)
    assert [f.status for f in summary.files] == ["extracted", "extracted"]
    for _, pinned in toy_archive.members:
        assert _sha(tmp_path / "out" / pinned.path) == pinned.sha256
    assert not (tmp_path / "out" / toy_archive.path).exists()
    assert server.requests == [(toy_archive.path, None)]
    again = fetch_files("tomi", to=tmp_path / "out", base_url=server.base_url)
    assert [f.status for f in again.files] == ["present", "present"]
    assert len(server.requests) == 1


def test_an_archive_member_with_another_checksum_is_refused(server, toy_archive, tmp_path):
    _zip(server.roots[0] / toy_archive.path, {"a.txt": b"first member\n", "b.txt": b"changed\n"})
    with pytest.raises(FetchError, match=r"tomi/b\.txt: sha256 mismatch"):
        fetch_files("tomi", to=tmp_path / "out", base_url=server.base_url)
    assert not (tmp_path / "out" / "tomi" / "b.txt").exists()
    assert not (tmp_path / "out" / toy_archive.path).exists()


def test_the_real_tomi_archive_members_extract_to_their_pins(shared_server, benchmarks, tmp_path):
    # ToMi ships as a zip; the test zips the shared members as the release names them.
    server = shared_server
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
def test_every_pinned_source_fetches_and_imports(name, shared_server, benchmarks, tmp_path):
    server = shared_server
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


def test_cli_fetch_imports_and_prints_the_license(server, toy, tmp_path):
    result = runner.invoke(
        app,
        [
            "datasets",
            "fetch",
            TOY,
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
    assert "2 files of socialiqa verified in" in result.output
    assert "(2 downloaded)" in result.output
    assert f"license: {toy.license}" in result.output
    assert "evaluation only: Toy files: for these tests only." in result.output
    assert f"{SOCIALIQA_RECORDS} samples of socialiqa written to" in result.output
    assert len(list(read_samples(tmp_path / "datasets" / "socialiqa.jsonl"))) == SOCIALIQA_RECORDS


def test_cli_fetch_reads_the_base_url_from_the_environment(server, toy, tmp_path):
    result = runner.invoke(
        app,
        ["datasets", "fetch", "socialiqa", "--to", str(tmp_path), "--no-import"],
        env={"COLUMNS": "200", "TOMFLYWHEEL_FETCH_BASE_URL": server.base_url},
    )
    assert result.exit_code == 0, result.output
    assert "import with: tomflywheel datasets import socialiqa" in result.output
    assert is_fetched("socialiqa", tmp_path) is True
    assert len(server.requests) == 2


def test_cli_list_shows_what_is_fetched_and_imported(server, toy, tmp_path, monkeypatch):
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
