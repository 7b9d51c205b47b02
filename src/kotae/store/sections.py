"""Files of named numpy sections, memory-mapped: the SQLite store's vector file and keyword file.

Layout: an 8-byte magic (the file kind and its version), a 4-byte header length, a JSON header (the caller's
fields plus "sections": name → offset, dtype, shape), then the sections, each aligned to 4 KiB. Written
atomically (a temporary file beside `path`, renamed over it); read back as read-only views of one mapping, so
opening costs nothing and the OS pages in what a search reads.
"""
from __future__ import annotations

import json
import os
import struct
import tempfile
from collections.abc import Callable
from typing import Any

import numpy as np

ALIGN = 4096


def write(path: str, magic: bytes, meta: dict[str, Any], specs: dict[str, tuple[str, tuple[int, ...]]],
          fill: Callable[[dict[str, np.ndarray]], None], prefix: str = ".sections-") -> None:
    """Write a file of the sections `specs` (name → dtype, shape); `fill` writes their contents into the
    writable views of the mapped temporary file."""
    sections: dict[str, tuple[int, str, list[int]]] = {}
    offset = 0
    for name, (dtype, shape) in specs.items():
        offset = -(-offset // ALIGN) * ALIGN
        sections[name] = (offset, dtype, list(shape))
        offset += int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
    header = json.dumps({**meta, "sections": sections}).encode()
    base = -(-(12 + len(header)) // ALIGN) * ALIGN
    fd, tmp = tempfile.mkstemp(prefix=prefix, dir=os.path.dirname(path) or ".")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(magic + struct.pack("<I", len(header)) + header)
            f.truncate(base + max(offset, 1))
        mm = np.memmap(tmp, dtype=np.uint8, mode="r+")
        views = {name: _view(mm, base, *s) for name, s in sections.items()}
        fill(views)
        mm.flush()
        del views, mm
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def read(path: str, magic: bytes) -> tuple[dict[str, Any], dict[str, np.ndarray]] | None:
    """(header, read-only section views), or None when the file is missing, of another kind or version, or
    damaged (a section past the end of the file, a header that does not parse)."""
    try:
        with open(path, "rb") as f:
            head = f.read(12)
            if len(head) < 12 or head[:8] != magic:
                return None
            size = struct.unpack("<I", head[8:])[0]
            header = json.loads(f.read(size))
    except (OSError, ValueError):
        return None
    base = -(-(12 + size) // ALIGN) * ALIGN
    try:
        ends = [base + int(off) + int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
                for off, dtype, shape in header["sections"].values()]
        if max(ends, default=base) > os.path.getsize(path):
            return None  # cut short (a full disk, a copy that stopped): rebuilt by the caller
        mm = np.memmap(path, dtype=np.uint8, mode="r")
        return header, {name: _view(mm, base, *s) for name, s in header["sections"].items()}
    except (OSError, ValueError, TypeError, KeyError, AttributeError):  # a damaged header
        return None


def _view(mm: np.memmap, base: int, offset: int, dtype: str, shape: list[int]) -> np.ndarray:
    size = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
    return mm[base + offset : base + offset + size].view(dtype).reshape(shape)
