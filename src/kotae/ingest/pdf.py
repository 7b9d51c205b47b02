"""PDF reader (pypdfium2): text layer per page, cleaned, with headings found from the lines."""

from __future__ import annotations

import re
import threading

import pypdfium2 as pdfium  # type: ignore[import-untyped]

from kotae.errors import DocumentError, EncryptedDocument
from kotae.ingest import clean
from kotae.ingest.headings import classify_lines
from kotae.ingest.layout import sections_from_lines
from kotae.ingest.registry import register
from kotae.types import ParsedDocument

# PDFium is not thread-safe: one document at a time per process.
_PDFIUM = threading.Lock()
_PASSWORD_ERROR = 4  # FPDF_ERR_PASSWORD
_PDFIUM_CAUSE = re.compile(r"PDFium: ([^)]+)\)")
_DECRYPT_FIX = "remove the password (e.g. qpdf --decrypt --password=PASS in.pdf out.pdf) and index it again"
_REPAIR_FIX = "open it in a PDF viewer and save or print it to a new PDF, then index it again"
_OCR_FIX = "OCR is not supported yet; run it through OCR first (e.g. ocrmypdf in.pdf out.pdf)"


def _open(path: str, data: bytes) -> pdfium.PdfDocument:
    # An empty user password (permissions-only encryption) must open like a plain PDF.
    for password in (None, ""):
        try:
            return pdfium.PdfDocument(data, password=password)
        except pdfium.PdfiumError as exc:
            if getattr(exc, "err_code", None) != _PASSWORD_ERROR:
                cause = _PDFIUM_CAUSE.search(str(exc))
                reason = (
                    f"malformed PDF (PDFium: {cause.group(1).lower()})" if cause else f"malformed PDF ({exc})"
                )
                raise DocumentError(path, reason, _REPAIR_FIX) from exc
    raise EncryptedDocument(path, "the PDF is protected by a password", _DECRYPT_FIX)


def _title(pdf: pdfium.PdfDocument) -> str:
    try:
        title = str(pdf.get_metadata_dict().get("Title", "") or "").strip()
    except pdfium.PdfiumError:
        return ""
    return "" if title.lower() == "untitled" else title  # "untitled" is a PDF writer's placeholder


def _page_text(pdf: pdfium.PdfDocument, index: int) -> str | None:
    """The raw text layer of one page; None when PDFium cannot load the page."""
    try:
        page = pdf[index]
    except pdfium.PdfiumError:
        return None
    try:
        textpage = page.get_textpage()
        try:
            return str(textpage.get_text_range())
        finally:
            textpage.close()
    except pdfium.PdfiumError:
        return None
    finally:
        page.close()


def _raw_pages(path: str, data: bytes) -> tuple[list[str | None], str]:
    """(raw text per page, None where PDFium failed on the page; document title)."""
    texts: list[str | None] = []
    with _PDFIUM:
        pdf = _open(path, data)
        try:
            title = _title(pdf)
            for index in range(len(pdf)):
                texts.append(_page_text(pdf, index))
        finally:
            pdf.close()
    return texts, title


def clean_pages(raw: list[str]) -> list[str]:
    """The PDF cleaning chain: controls and mojibake, running lines, page numbers, hyphenation."""
    pages = [clean.clean_layout_text(text) for text in raw]
    pages = clean.drop_running_lines(pages, clean.find_running_lines(pages))
    return [clean.rejoin_hyphens(clean.drop_page_numbers(page)) for page in pages]


def _warning(number: int, raw: str | None) -> str | None:
    if raw is None:
        return f"page {number} could not be read (damaged page?); the page was skipped"
    if not raw.strip():
        return (
            f"page {number} has no text layer (scanned image?); "
            "OCR is not supported yet — the page was skipped"
        )
    return None


@register("pdf")
def read_pdf(path: str, data: bytes) -> ParsedDocument:
    """Read a PDF: one cleaned page text per PDF page ("" for a page without text), 1-based numbering."""
    raw, title = _raw_pages(path, data)
    if not raw:
        raise DocumentError(path, "the PDF has no pages", _REPAIR_FIX)
    if not any(text and text.strip() for text in raw):
        raise DocumentError(path, "no page has a text layer (scanned images?)", _OCR_FIX)
    warnings = [w for n, text in enumerate(raw, start=1) if (w := _warning(n, text))]
    pages = clean_pages([text or "" for text in raw])
    sections = sections_from_lines(pages, classify_lines)
    return ParsedDocument(
        path=path,
        kind="pdf",
        pages=tuple(pages),
        sections=tuple(sections),
        warnings=tuple(warnings),
        title=title,
    )
