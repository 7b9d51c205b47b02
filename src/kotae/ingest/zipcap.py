"""Caps on zip containers (DOCX, XLSX, PPTX), checked from the central directory before anything is inflated.

A 256 KB DOCX can hold a document.xml that inflates to 256 MB (a zip bomb); parsing it would take gigabytes.
The central directory states each member's inflated size, so the whole file can be judged by reading a few
KB: the total inflated size, and the compression ratio of each large XML part (XML compresses 5-40×; a ratio of
hundreds is a bomb; images, which may compress as well as that when blank, count only towards the total). A member that lies about its size is caught too: Python's zipfile never inflates a
member past its stated size (it fails with a CRC error instead).

The limits come from `index.zip` (`kotae.config.ZipSettings`); `read_document` sets them for the readers of
the file it reads (`use`), and a reader called directly gets the defaults.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from kotae.errors import DocumentError

__all__ = ["ZipLimits", "check_zip", "use"]

MB = 1024 * 1024
_PARSED = (".xml", ".rels", ".vml")  # the parts readers parse into trees


@dataclass(frozen=True)
class ZipLimits:
    """How large a zip container may inflate, in all and per large member (see `index.zip`)."""

    max_inflated_mb: float = 256.0
    max_ratio: float = 100.0
    ratio_from_mb: float = 1.0  # members smaller than this may compress better (a sheet of empty styled cells)


_DEFAULT = ZipLimits()
_LIMITS: ContextVar[ZipLimits | None] = ContextVar("kotae_zip_limits", default=None)


@contextmanager
def use(limits: ZipLimits) -> Iterator[None]:
    """Apply `limits` to the zip containers read inside the block (this thread or task only)."""
    token = _LIMITS.set(limits)
    try:
        yield
    finally:
        _LIMITS.reset(token)


def _mb(n: float) -> str:
    return f"{n / MB:,.0f} MB" if n >= MB else f"{n / 1024:,.0f} KB"


def check_zip(path: str, data: bytes, limits: ZipLimits | None = None) -> zipfile.ZipFile:
    """The zip archive in `data`, opened (nothing inflated) once its central directory is within `limits`
    (default: those `use` set); DocumentError naming the file, the member, the limit and the setting if not.
    A corrupt archive raises zipfile.BadZipFile (the caller names the format)."""
    limits = limits or _LIMITS.get() or _DEFAULT
    archive = zipfile.ZipFile(io.BytesIO(data))
    members = archive.infolist()
    for m in members:
        if not m.filename.lower().endswith(_PARSED):
            continue  # images (a blank BMP or EMF compresses hundreds of times) count only towards the total
        if m.file_size > limits.ratio_from_mb * MB and m.file_size > limits.max_ratio * max(1, m.compress_size):
            ratio = m.file_size / max(1, m.compress_size)
            raise DocumentError(
                path,
                f"{m.filename} would inflate {ratio:,.0f}× ({_mb(m.compress_size)} to {_mb(m.file_size)}), over "
                f"the {limits.max_ratio:g}× compression ratio limit (a zip bomb)",
                "if the file is genuine, raise index.zip.max_ratio (KOTAE_INDEX_ZIP_MAX_RATIO)",
            )
    total = sum(m.file_size for m in members)
    if total > limits.max_inflated_mb * MB:
        raise DocumentError(
            path,
            f"the zip container would inflate to {_mb(total)}, over the {limits.max_inflated_mb:g} MB limit "
            "(a zip bomb, or a very large document)",
            "if the file is genuine, raise index.zip.max_inflated_mb (KOTAE_INDEX_ZIP_MAX_INFLATED_MB) or split "
            "the document",
        )
    return archive
