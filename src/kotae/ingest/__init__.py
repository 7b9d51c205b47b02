"""Ingestion: read a file into a ParsedDocument (cleaned page texts plus the sections that tile them).

The kind is decided from the file's content (magic bytes, sniffing), the extension only where the
content cannot tell. Readers live in a registry; built-in ones register like a plug-in one would
(`kotae.plugins` loads both, the built-ins first, on the first read or registry lookup):

    from kotae.ingest import register

    @register("epub")  # reads files named .epub; `extensions=(".epub", ".ep")` to name others
    def read_epub(path: str, data: bytes) -> ParsedDocument: ...

A plug-in's kind is chosen by the file's extension; kotae's own kinds are decided from the content.
The registry is the one list of supported types: `supported_extensions()` (folder walks, uploads, errors).

A reader that can OCR (pdf, image) also takes an `ocr` keyword: "auto", "always", "off" or OcrOptions.
"""

from __future__ import annotations

import inspect
import os
from dataclasses import replace

from kotae.config import LimitSettings
from kotae.errors import DocumentError
from kotae.ingest import limits as _limits
from kotae.ingest import zipcap
from kotae.ingest.clean import SURROGATE, join_surrogates
from kotae.ingest.clean import cut_references as _cut_pages
from kotae.ingest.detect import is_supported, reader_kind
from kotae.ingest.layout import clip_sections
from kotae.ingest.ocr import OcrOptions, as_options, mark_ocr
from kotae.ingest.registry import READERS, Reader, register, supported_extensions
from kotae.ingest.zipcap import ZipLimits
from kotae.types import ParsedDocument

__all__ = ["MAX_BYTES", "READERS", "Reader", "is_supported", "read_document", "register", "supported_extensions"]

MAX_BYTES = 200 * 1024 * 1024  # larger files are refused before they are read
TEXT_KINDS = ("text", "markdown", "csv", "html")


def _read_bytes(path: str) -> bytes:
    """The file's bytes, read once; errors become DocumentError with a fix."""
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size > MAX_BYTES:
                raise DocumentError(
                    path,
                    f"file is {size // (1024 * 1024)} MB, over the {MAX_BYTES // (1024 * 1024)} MB limit",
                    "split it into smaller files",
                )
            data = f.read()
    except FileNotFoundError as exc:
        raise DocumentError(
            path, "file disappeared while being read", "check that it still exists and index it again"
        ) from exc
    except IsADirectoryError as exc:
        raise DocumentError(path, "is a folder, not a file", "pass the files inside it") from exc
    except PermissionError as exc:
        raise DocumentError(path, "permission denied", "make the file readable and index it again") from exc
    except OSError as exc:
        raise DocumentError(path, f"cannot read the file ({exc.strerror or exc})", "check the disk") from exc
    if not data:
        raise DocumentError(path, "file is empty", "check the file, or remove it from the folder")
    return data


def _with_references_cut(doc: ParsedDocument) -> ParsedDocument:
    pages = _cut_pages(list(doc.pages))
    if pages == list(doc.pages):
        return doc
    first = next(i for i, (a, b) in enumerate(zip(pages, doc.pages), start=1) if a != b)
    note = f"references cut from page {first} to the end (cut_references)"
    sections = mark_ocr(clip_sections(doc.sections, pages), {words.page for words in doc.ocr})
    return replace(doc, pages=tuple(pages), sections=tuple(sections), warnings=(*doc.warnings, note))


def _takes_ocr(reader: Reader) -> bool:
    try:
        return "ocr" in inspect.signature(reader).parameters
    except (TypeError, ValueError):
        return False


def read_document(path: str, *, cut_references: bool = False, ocr: str | OcrOptions = "auto",
                  zip_limits: ZipLimits | None = None, limits: LimitSettings | None = None) -> ParsedDocument:
    """Read one file into a ParsedDocument; raise DocumentError (one line: file, cause, fix) if it can't.

    With `cut_references`, everything from the last "References" / "Bibliography" / "参考文献"
    heading line to the end is dropped (later pages stay, empty, so page numbers do not move).
    `ocr`: "auto" reads scanned pages and images by OCR, "always" OCRs every PDF page, "off" never.
    `zip_limits`: how far a DOCX/XLSX/PPTX may inflate (checked before it is read; default `ZipLimits()`).
    `limits` caps characters, pixels, frames and columns (see `kotae.ingest.limits`).
    """
    from kotae import plugins

    plugins.load()
    path = os.fspath(path)
    options = as_options(ocr)
    with _limits.using(limits or LimitSettings()), zipcap.use(zip_limits or ZipLimits()):
        data = _read_bytes(path)
        kind = reader_kind(path, data)
        if kind in TEXT_KINDS:
            _limits.check_text_bytes(path, len(data))
        reader = READERS[kind]
        doc = reader(path, data, ocr=options) if _takes_ocr(reader) else reader(path, data)  # type: ignore[call-arg]
        del data
        _limits.check_chars(path, sum(len(p) for p in doc.pages))
    doc = _storable(doc)
    return _with_references_cut(doc) if cut_references else doc


def _storable(doc: ParsedDocument) -> ParsedDocument:
    """`doc` with no UTF-16 half left in its texts (`clean.join_surrogates`), whichever reader made it: a
    document holding one cannot be stored. PDF page texts are joined before their sections are cut; this
    catches the rest (a table's cells, a heading, a plug-in's text)."""
    texts = [doc.title, *doc.pages, *(t for s in doc.sections for t in (s.text, *s.heading))]
    if not any(SURROGATE.search(t) for t in texts):
        return doc
    fix = join_surrogates
    return replace(doc, title=fix(doc.title), pages=tuple(fix(p) for p in doc.pages),
                   sections=tuple(replace(s, text=fix(s.text), heading=tuple(fix(h) for h in s.heading))
                                  for s in doc.sections))
