"""The one owner of atomic file writes and inter-process file locks.

Several processes share a workspace (the orchestrator, the `deepresearch archive` and `search`
processes agents run, a person's editor), so every file another process may read is replaced in
one step (`atomic_write`), and every read-modify-write of shared state happens under an exclusive
`flock` on a sidecar lock file (`file_lock`).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import secrets
import shutil
import stat
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from deepresearch.core.errors import LockTimeoutError

# How long a lock on shared workspace state may be waited for: each holder keeps it for a few
# milliseconds (an append, a counter, a registration).
LOCK_TIMEOUT = 60.0


def atomic_write(path: Path, data: str | bytes, *, durable: bool = True) -> None:
    """Replace `path` with `data` so a reader sees the old or the new file, never a partial one.

    The file keeps the mode a person gave it (a new one honours the umask). `durable` also flushes
    the data and the rename to disk, so a power cut leaves one of the two versions."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.parent / f".{path.name}.{secrets.token_hex(6)}.tmp"
    # os.open with 0o666 honours the umask (mkstemp would make the file private).
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as handle:
            with contextlib.suppress(FileNotFoundError):
                os.chmod(handle.fileno(), stat.S_IMODE(path.stat().st_mode))
            handle.write(data.encode("utf-8") if isinstance(data, str) else data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    if durable:
        _fsync_dir(path.parent)


def write_if_changed(path: Path, text: str) -> bool:
    """Atomically write `text` unless the file already holds it (files shared by parallel agents);
    True when it wrote."""
    try:
        if path.read_text(encoding="utf-8") == text:
            return False
    except (OSError, UnicodeDecodeError):
        pass
    atomic_write(path, text, durable=False)
    return True


@contextlib.contextmanager
def file_lock(path: Path, timeout: float = LOCK_TIMEOUT) -> Iterator[None]:
    """Hold an exclusive `flock` on `path` (created if needed) for the block; waits at most
    `timeout` seconds for it, then raises LockTimeoutError (nothing holds a lock that long unless
    it is stuck or hostile).

    Lock a sidecar file, never the data file itself: a data file replaced by `atomic_write` would
    leave the lock on the old inode. Not reentrant within one process."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+b") as handle:
        _acquire(handle.fileno(), path, timeout)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _acquire(fd: int, path: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    pause = 0.005
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise LockTimeoutError(
                    f"{path} stayed locked by another process for more than {timeout:g} s",
                    hint="another deepresearch process is stuck holding it: stop that process and retry",
                ) from None
            time.sleep(pause)
            pause = min(pause * 2, 0.1)


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The JSON objects of a JSON-lines file, in order; none when it does not exist. A line cut
    short by a killed writer (or anything not an object) is skipped: the next append starts anew."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    rows = []
    for line in text.splitlines():
        try:
            data = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(data, dict):
            rows.append(data)
    return rows


def append_jsonl(path: Path, *records: dict[str, Any]) -> None:
    """Append each record as one JSON line, in one write, on lines of their own even when a killed
    writer left the last line unfinished. Callers that share the file between processes hold its
    `file_lock`."""
    line = "".join(json.dumps(data, ensure_ascii=False) + "\n" for data in records)
    with open(path, "ab+") as handle:
        handle.seek(0, 2)
        if handle.tell() > 0:
            handle.seek(-1, 2)
            if handle.read(1) != b"\n":
                line = "\n" + line  # don't glue onto a line a killed process left unfinished
        handle.write(line.encode("utf-8"))


def file_sha256(path: Path) -> str:
    """The SHA-256 hex digest of a file's bytes."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def merge_tree(source: Path, target: Path) -> None:
    """Move everything under `source` into `target`, folder by folder (a file of the same name in
    `target` is replaced); `source` is left empty. Used to keep what a command made in a temporary
    folder once it has succeeded."""
    target.mkdir(parents=True, exist_ok=True)
    for entry in sorted(source.iterdir()):
        there = target / entry.name
        if entry.is_dir() and not entry.is_symlink() and there.is_dir():
            merge_tree(entry, there)
        elif there.is_dir() and not there.is_symlink():
            raise IsADirectoryError(f"{there} is a folder; cannot replace it with the file {entry.name}")
        else:
            shutil.move(str(entry), str(there))


def _fsync_dir(folder: Path) -> None:
    """Flush the directory entry of a rename to disk (POSIX only: Windows cannot open folders)."""
    if os.name == "nt":
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
