"""A workspace as bytes and back: how a job travels to and from a Ray node without shared storage."""

from __future__ import annotations

import io
import shutil
import tarfile
from pathlib import Path


def pack(folder: Path) -> bytes:
    """The folder's contents as a gzipped tar (paths relative to the folder)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for path in sorted(folder.rglob("*")):
            archive.add(path, arcname=path.relative_to(folder).as_posix(), recursive=False)
    return buffer.getvalue()


def unpack(data: bytes, folder: Path) -> None:
    """Replace `folder` with the packed contents; a reader sees the old or the new folder whole."""
    incoming = folder.with_name(f".{folder.name}.incoming")
    retired = folder.with_name(f".{folder.name}.retired")
    for stale in (incoming, retired):
        shutil.rmtree(stale, ignore_errors=True)
    incoming.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        archive.extractall(incoming, filter="data")  # no absolute paths, no escapes, no devices
    if folder.exists():
        folder.rename(retired)
    incoming.rename(folder)
    shutil.rmtree(retired, ignore_errors=True)
