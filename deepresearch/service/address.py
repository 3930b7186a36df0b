"""Unix socket paths of any length.

A socket's path must fit in `sun_path` (108 bytes on Linux), and a workspace can sit deeper than
that. A longer path is reached through `/proc/self/fd/N/NAME`, where N is an open descriptor of its
folder: short, and the same socket file.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

MAX_BYTES = 100  # below sun_path's 108, with room for the terminating NUL


@contextlib.contextmanager
def reachable(path: Path) -> Iterator[str]:
    """A path for bind() or connect() that names `path`, valid while the block runs."""
    if len(os.fsencode(str(path))) <= MAX_BYTES:
        yield str(path)
        return
    folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        yield f"/proc/self/fd/{folder}/{path.name}"
    finally:
        os.close(folder)
