"""Download a benchmark's pinned files, verify their sha256, resume partial downloads, import.

A file is downloaded to ``<path>.part`` and renamed only once its sha256 matches, so the fetch
folder never holds an unverified file under its real name. A ``.part`` left by an interrupted
download is resumed with an HTTP ``Range`` request; a checksum mismatch removes it. A file already
in place is verified and kept (a copy put there by hand is fine); nothing is run, and no file
content reaches a command line.
"""

from __future__ import annotations

import logging
import os
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal
from urllib.parse import quote

import httpx

from tomflywheel._io import sha256_file
from tomflywheel.datasets._import import DEFAULT_DATASETS_DIR, ImportSummary, import_dataset
from tomflywheel.datasets._sources import (
    SOURCES,
    UNPINNED,
    Archive,
    PinnedFile,
    Source,
    default_fetch_dir,
)
from tomflywheel.errors import ConfigError, FetchError

logger = logging.getLogger(__name__)

ENV_FETCH_BASE_URL = "TOMFLYWHEEL_FETCH_BASE_URL"
"""Fetch every file from ``<base>/<relative path>`` instead of its public URL (a mirror)."""

FetchProgress = Callable[[int, int | None, str], None]
"""``(bytes done, bytes in all or None while unknown, file being fetched)``."""

_CHUNK = 1 << 16
_ATTEMPTS = 3


@dataclass(frozen=True, slots=True)
class FetchedFile:
    """What happened to one file."""

    path: Path
    """Where it is now."""
    status: Literal["present", "downloaded", "resumed", "extracted"]
    """Already there and verified, downloaded whole, completed from a partial file, or taken
    out of the benchmark's archive."""


@dataclass(slots=True)
class FetchSummary:
    """The outcome of ``fetch_dataset``."""

    source: Source
    """The pinned source (license, evaluation-only request)."""
    folder: Path
    """The fetch folder."""
    files: list[FetchedFile] = field(default_factory=list)
    """Every pinned file, in table order."""
    imported: ImportSummary | None = None
    """The import, unless it was skipped."""


class _Progress:
    """Byte counts of every file, reported as one total."""

    def __init__(self, source: Source, callback: FetchProgress | None) -> None:
        # An archive counts as one file of unknown size; its members are not downloaded.
        self.sizes: dict[str, int | None] = {f.path: f.size for f in source.files}
        if source.archive is not None:
            self.sizes[source.archive.path] = None
        self.done: dict[str, int] = dict.fromkeys(self.sizes, 0)
        self.callback = callback

    def total(self) -> int | None:
        sizes = list(self.sizes.values())
        return None if None in sizes else sum(s for s in sizes if s is not None)

    def set(self, path: str, done: int, size: int | None = None) -> None:
        self.done[path] = done
        if size is not None:
            self.sizes[path] = size
        if self.callback is not None:
            self.callback(sum(self.done.values()), self.total(), path)


def _by_hand(pinned: PinnedFile | Archive, dest: Path) -> str:
    if isinstance(pinned, Archive):
        names = ", ".join(name for name, _ in pinned.members)
        return f"download {pinned.url}, extract {names} into {dest.parent / Path(pinned.path).stem}"
    digest = f"sha256 {pinned.sha256}"
    return f"download {pinned.url} and save it as {dest} ({digest})"


def _offline(
    err: FetchError, source: Source, item: PinnedFile | Archive, folder: Path
) -> FetchError:
    by_hand = _by_hand(item, folder / item.path)
    return FetchError(
        f"{err}. Offline? Fetch it by hand: {by_hand}; then run `tomflywheel datasets fetch "
        f"{source.name} --to {folder}` again (it verifies the file, then imports)"
    )


def _url(item: PinnedFile | Archive, base_url: str | None) -> str:
    if base_url:
        return f"{base_url.rstrip('/')}/{quote(item.path)}"
    return item.url


@dataclass
class _Downloader:
    """One HTTP client; downloads with resume and a bounded number of attempts."""

    client: httpx.Client
    progress: _Progress
    retry_wait_s: float = 1.0

    def get(self, url: str, part: Path, key: str) -> bool:
        """Download ``url`` into ``part`` (resuming it); returns whether a partial was resumed.

        Raises:
            FetchError: Unreachable, an HTTP error, or still interrupted after the attempts.
        """
        resumed = False
        for attempt in range(1, _ATTEMPTS + 1):
            have = part.stat().st_size if part.exists() else 0
            resumed = resumed or have > 0
            try:
                self._stream(url, part, key, have)
                return resumed
            except (httpx.ConnectError, httpx.ConnectTimeout) as err:
                raise FetchError(f"cannot reach {url} ({err})") from err
            except httpx.TransportError as err:
                got = part.stat().st_size if part.exists() else 0
                logger.warning("%s: interrupted after %d bytes (%s)", url, got, err)
                if attempt == _ATTEMPTS:
                    raise FetchError(
                        f"{url}: interrupted after {got:,} bytes, {_ATTEMPTS} attempts ({err}); "
                        f"run the fetch again to resume from {part}"
                    ) from err
                time.sleep(self.retry_wait_s * attempt)
        return resumed

    def _stream(self, url: str, part: Path, key: str, have: int) -> None:
        headers = {"Range": f"bytes={have}-"} if have else {}
        with self.client.stream("GET", url, headers=headers) as response:
            if response.status_code == 416 and have:
                part.unlink()  # the partial file is longer than the file: start over
                raise httpx.RemoteProtocolError("range not satisfiable", request=response.request)
            if response.status_code >= 400:
                raise FetchError(f"{url}: HTTP {response.status_code}")
            start = have if response.status_code == 206 else 0
            if response.status_code == 206 and not response.headers.get(
                "content-range", ""
            ).startswith(f"bytes {have}-"):
                raise FetchError(f"{url}: the server answered another range than asked")
            length = response.headers.get("content-length")
            size = start + int(length) if length and length.isdigit() else None
            with part.open("ab" if start else "wb") as handle:
                done = start
                self.progress.set(key, done, size)
                for chunk in response.iter_bytes():
                    handle.write(chunk)
                    done += len(chunk)
                    self.progress.set(key, done)


def _verify(path: Path, pinned: PinnedFile) -> None:
    """Raise (after removing ``path``) unless it has the pinned sha256."""
    actual = sha256_file(path)
    if actual != pinned.sha256:
        path.unlink()
        raise FetchError(
            f"{pinned.path}: sha256 mismatch (expected {pinned.sha256}, got {actual}); "
            "the download was removed"
        )


def _present(dest: Path, pinned: PinnedFile) -> bool:
    """Whether ``dest`` is already the pinned file; a different file there is an error."""
    if not dest.is_file():
        return False
    actual = sha256_file(dest)
    if actual != pinned.sha256:
        raise FetchError(
            f"{dest} is not the pinned file (sha256 {actual}, expected {pinned.sha256}); "
            "move it away and fetch again"
        )
    return True


def _fetch_file(
    loader: _Downloader, source: Source, pinned: PinnedFile, folder: Path, base_url: str | None
) -> FetchedFile:
    dest = folder / pinned.path
    if _present(dest, pinned):
        loader.progress.set(pinned.path, dest.stat().st_size, dest.stat().st_size)
        return FetchedFile(dest, "present")
    dest.parent.mkdir(parents=True, exist_ok=True)
    part = dest.with_name(dest.name + ".part")
    if part.is_file() and pinned.size is not None and part.stat().st_size >= pinned.size:
        # A run killed between the last byte and the rename, or a partial file gone wrong.
        if part.stat().st_size == pinned.size and sha256_file(part) == pinned.sha256:
            os.replace(part, dest)
            return FetchedFile(dest, "resumed")
        part.unlink()
    try:
        resumed = loader.get(_url(pinned, base_url), part, pinned.path)
    except FetchError as err:
        raise _offline(err, source, pinned, folder) from err
    _verify(part, pinned)
    os.replace(part, dest)
    return FetchedFile(dest, "resumed" if resumed else "downloaded")


def _member(archive: zipfile.ZipFile, name: str, path: Path) -> zipfile.ZipInfo:
    matches = [
        i for i in archive.infolist() if i.filename == name or i.filename.endswith(f"/{name}")
    ]
    if len(matches) != 1:
        raise FetchError(f"{path}: expected one {name} in the archive, found {len(matches)}")
    return matches[0]


def _extract(zip_path: Path, archive: Archive, folder: Path) -> list[FetchedFile]:
    """Copy each pinned member out of the zip (size-capped) and verify it."""
    out = []
    try:
        with zipfile.ZipFile(zip_path) as bundle:
            for name, pinned in archive.members:
                dest = folder / pinned.path
                if _present(dest, pinned):
                    out.append(FetchedFile(dest, "present"))
                    continue
                dest.parent.mkdir(parents=True, exist_ok=True)
                part = dest.with_name(dest.name + ".part")
                limit = (pinned.size or 0) + 1
                with bundle.open(_member(bundle, name, zip_path)) as src, part.open("wb") as dst:
                    while chunk := src.read(min(_CHUNK, limit - dst.tell())):
                        dst.write(chunk)
                _verify(part, pinned)
                os.replace(part, dest)
                out.append(FetchedFile(dest, "extracted"))
    except zipfile.BadZipFile as err:
        raise FetchError(f"{zip_path}: not a zip archive ({err})") from err
    finally:
        zip_path.unlink(missing_ok=True)
    return out


def _fetch_archive(
    loader: _Downloader, source: Source, archive: Archive, folder: Path, base_url: str | None
) -> list[FetchedFile]:
    members = [pinned for _, pinned in archive.members]
    if all(_present(folder / m.path, m) for m in members):
        loader.progress.set(archive.path, 0, 0)
        return [FetchedFile(folder / m.path, "present") for m in members]
    zip_path = folder / archive.path
    zip_path.parent.mkdir(parents=True, exist_ok=True)
    part = zip_path.with_name(zip_path.name + ".part")
    try:
        loader.get(_url(archive, base_url), part, archive.path)
    except FetchError as err:
        raise _offline(err, source, archive, folder) from err
    os.replace(part, zip_path)
    return _extract(zip_path, archive, folder)


def get_source(name: str) -> Source:
    """The pinned source of ``name``.

    Raises:
        ConfigError: No pinned source (the message says why and where to get the files).
    """
    if name in SOURCES:
        return SOURCES[name]
    if name in UNPINNED:
        raise ConfigError(f"no pinned source for {name!r}: {UNPINNED[name]}")
    known = ", ".join(sorted(SOURCES))
    raise ConfigError(f"no pinned source for {name!r} (fetchable: {known})")


def fetch_files(
    name: str,
    *,
    to: Path | None = None,
    base_url: str | None = None,
    on_progress: FetchProgress | None = None,
) -> FetchSummary:
    """Download and verify every pinned file of ``name`` into ``to``; no import.

    Args:
        name: Dataset name (``tomflywheel datasets list`` shows which have a source).
        to: The fetch folder (default ``default_fetch_dir()``); files keep their relative paths.
        base_url: Fetch from ``<base_url>/<relative path>`` (a mirror, a local server);
            default ``$TOMFLYWHEEL_FETCH_BASE_URL``, else each file's public URL.
        on_progress: Called with (bytes done, total or None, current file) as bytes arrive.

    Raises:
        ConfigError: No pinned source for ``name``.
        FetchError: Unreachable (the message says where to put the file by hand), an HTTP
            error, a checksum mismatch (the download is removed), or a foreign file in the way.
    """
    source = get_source(name)
    folder = Path(to) if to is not None else default_fetch_dir()
    base = base_url if base_url is not None else os.environ.get(ENV_FETCH_BASE_URL) or None
    summary = FetchSummary(source=source, folder=folder)
    progress = _Progress(source, on_progress)
    with httpx.Client(follow_redirects=True, timeout=httpx.Timeout(30.0)) as client:
        loader = _Downloader(client, progress)
        for pinned in source.files:
            summary.files.append(_fetch_file(loader, source, pinned, folder, base))
        if source.archive is not None:
            summary.files += _fetch_archive(loader, source, source.archive, folder, base)
    return summary


def fetch_dataset(
    name: str,
    *,
    to: Path | None = None,
    base_url: str | None = None,
    on_progress: FetchProgress | None = None,
    datasets_dir: Path = DEFAULT_DATASETS_DIR,
    run_import: bool = True,
) -> FetchSummary:
    """``fetch_files``, then import the files into ``<datasets_dir>/<name>.jsonl``.

    Raises:
        ConfigError: No pinned source for ``name``.
        FetchError: See ``fetch_files``.
        DataError: The import found a malformed record.
    """
    summary = fetch_files(name, to=to, base_url=base_url, on_progress=on_progress)
    if run_import:
        path = summary.folder / summary.source.import_path
        summary.imported = import_dataset(name, path, datasets_dir=datasets_dir)
    return summary
