"""PDF reader (pypdfium2): text layer per page in reading order (kotae.ingest.pdf_layout), cleaned,
with headings found from the lines and their fonts (kotae.ingest.pdf_headings).

Pages without a usable text layer are rendered with PDFium and read by OCR (kotae.ingest.ocr).
"""

from __future__ import annotations

import re
import threading

import pypdfium2 as pdfium  # type: ignore[import-untyped]
import pypdfium2.raw as pdfium_c  # type: ignore[import-untyped]

from kotae.errors import DocumentError, EncryptedDocument
from kotae.ingest import clean, pdf_table_pages
from kotae.ingest.cover import filing_context
from kotae.ingest.layout import sections_from_headings
from kotae.ingest.ocr import INSTALL, OcrOptions, OcrOutcome, apply_ocr, as_options, mark_ocr, page_words
from kotae.ingest.ocr_tables import scanned_tables
from kotae.ingest.pdf_headings import classify_pages
from kotae.ingest.pdf_layout import Line, analyse, font_reader, page_chars
from kotae.ingest.pdf_tables import Table
from kotae.ingest.registry import register
from kotae.types import ParsedDocument

# PDFium is not thread-safe: one document at a time per process.
PDFIUM_LOCK = threading.Lock()
_PASSWORD_ERROR = 4  # FPDF_ERR_PASSWORD
_PDFIUM_CAUSE = re.compile(r"PDFium: ([^)]+)\)")
_DECRYPT_FIX = "remove the password (e.g. qpdf --decrypt --password=PASS in.pdf out.pdf) and index it again"
_REPAIR_FIX = "open it in a PDF viewer and save or print it to a new PDF, then index it again"
_OCR_FIX = "pass --ocr auto to read it with OCR (needs tesseract)"
INK_DPI = 36  # enough to tell ink from paper, cheap to render
SCAN_COVER = 0.8  # a page this covered by images is a scan: its ink is measured


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


LAYOUTS = ("chars", "model-columns", "model")


def _model_order(page: pdfium.PdfPage, lines: tuple[Line, ...]) -> tuple[str, tuple[Line, ...]]:
    """The page's lines ordered by the layout model's regions (kotae.ingest.layout_model)."""
    from kotae.ingest import layout_model
    from kotae.ingest.layout_regions import region_order, region_text

    ordered = region_order(list(lines), layout_model.page_regions(page))
    return region_text(ordered), tuple(ordered)


def _page_text(pdf: pdfium.PdfDocument, index: int, layout: str = "chars") -> tuple[str | None, tuple[Line, ...]]:
    """The raw text layer of one page in reading order, and its lines with their fonts;
    (None, ()) when PDFium cannot load the page. `layout` (LAYOUTS): "chars" orders lines from the
    character boxes alone; "model-columns" by a layout model's regions on pages found to have columns;
    "model" by the model's regions on every horizontal page."""
    try:
        page = pdf[index]
    except pdfium.PdfiumError:
        return None, ()
    try:
        textpage = page.get_textpage()
        try:
            found = analyse(page_chars(textpage), font_reader(textpage))
            if found.lines and not found.vertical and (layout == "model" or (layout == "model-columns"
                                                                              and found.columns > 1)):
                return _model_order(page, found.lines)
            text = found.text if found.text is not None else str(textpage.get_text_range())
            return text, found.lines
        finally:
            textpage.close()
    except pdfium.PdfiumError:
        return None, ()
    finally:
        page.close()


def _image_cover(page: pdfium.PdfPage) -> float:
    """The share of the page that image objects cover (overlaps counted twice, capped at 1)."""
    width, height = page.get_size()
    covered = 0.0
    for obj in page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_IMAGE], max_depth=3):
        left, bottom, right, top = obj.get_bounds()
        covered += max(0.0, min(right, width) - max(left, 0.0)) * max(0.0, min(top, height) - max(bottom, 0.0))
    return min(1.0, covered / (width * height)) if width * height else 0.0


def _ink(page: pdfium.PdfPage) -> float:
    """The dark share of the page rendered at INK_DPI."""
    image = page.render(scale=INK_DPI / 72, grayscale=True).to_pil()
    histogram = image.histogram()
    return sum(histogram[:128]) / max(1, sum(histogram))


def _page_facts(pdf: pdfium.PdfDocument, index: int, text: str | None) -> tuple[float, float | None]:
    """(area in square inches, ink share — measured only for empty or image-covered pages) for needs_ocr."""
    try:
        page = pdf[index]
    except pdfium.PdfiumError:
        return 0.0, None
    try:
        width, height = page.get_size()
        area = width * height / 72 / 72
        if text is None or (text.strip() and _image_cover(page) < SCAN_COVER):
            return area, None
        return area, _ink(page)
    except pdfium.PdfiumError:
        return 0.0, None
    finally:
        page.close()


def _raw_pages(path: str, data: bytes, tables: dict[int, list[Table]] | None = None,
               ) -> tuple[list[str | None], list[tuple[float, float | None]], str, list[tuple[Line, ...]]]:
    """(raw text per page, None where PDFium failed on the page; each page's facts for needs_ocr;
    document title; each page's layout lines with fonts). `tables`, when given, is filled with the
    tables found on each page (1-based)."""
    texts: list[str | None] = []
    lines: list[tuple[Line, ...]] = []
    facts: list[tuple[float, float | None]] = []
    with PDFIUM_LOCK:
        pdf = _open(path, data)
        try:
            title = _title(pdf)
            for index in range(len(pdf)):
                text, page_lines = _page_text(pdf, index)
                texts.append(text)
                lines.append(page_lines)
                facts.append(_page_facts(pdf, index, text))
                if tables is not None and (found := pdf_table_pages.read_tables(pdf, index, text)):
                    tables[index + 1] = found
        finally:
            pdf.close()
    return texts, facts, title, lines


class _Renderer:
    """Page images for OCR, rendered one at a time under the PDFium lock from one open document."""

    def __init__(self, data: bytes, dpi: int) -> None:
        self.data, self.dpi = data, dpi
        self.pdf: pdfium.PdfDocument | None = None

    def loader(self, number: int):  # type: ignore[no-untyped-def]
        def render():  # type: ignore[no-untyped-def]
            with PDFIUM_LOCK:
                if self.pdf is None:
                    self.pdf = pdfium.PdfDocument(self.data)
                page = self.pdf[number - 1]
                try:
                    return page.render(scale=self.dpi / 72, grayscale=True).to_pil().copy()
                finally:
                    page.close()

        return render

    def close(self) -> None:
        with PDFIUM_LOCK:
            if self.pdf is not None:
                self.pdf.close()


def _read_scans(data: bytes, raw: list[str | None], facts: list[tuple[float, float | None]],
                options: OcrOptions) -> OcrOutcome:
    renderer = _Renderer(data, options.dpi)
    try:
        return apply_ocr(raw, facts, renderer.loader, options)
    finally:
        renderer.close()


def _no_text(path: str, outcome: OcrOutcome, options: OcrOptions) -> DocumentError:
    if options.mode == "off":
        return DocumentError(path, "no page has a text layer (scanned images?)", _OCR_FIX)
    if outcome.missing:
        return DocumentError(path, f"no page has a text layer and {outcome.missing}", f"install it: {INSTALL}")
    return DocumentError(path, "no text found, not even by OCR (blank or picture-only pages?)",
                         "check that the file shows text")


def clean_pages(raw: list[str]) -> list[str]:
    """The PDF cleaning chain: controls and mojibake, running lines, a long line on every page (kept once), page
    numbers (at the edges, and a page's own number between dashes anywhere), hyphenation."""
    return _cleaned(raw)[0]


def _cleaned(raw: list[str]) -> tuple[list[str], set[str]]:
    """`clean_pages`, and the running lines it took out (`clean.find_running_lines`' forms)."""
    pages = [clean.clean_layout_text(text) for text in raw]
    running = clean.find_running_lines(pages)
    pages = clean.drop_running_lines(pages, running)
    pages = clean.drop_repeats(pages, clean.find_repeated_lines(pages))
    return [clean.rejoin_hyphens(clean.drop_folios(clean.drop_page_numbers(page), n))
            for n, page in enumerate(pages, 1)], running


def _warning(number: int, raw: str | None) -> str | None:
    if raw is None:
        return f"page {number} could not be read (damaged page?); the page was skipped"
    return None  # pages without a (usable) text layer are OCR's to report


@register("pdf", extensions=(".pdf",))
def read_pdf(path: str, data: bytes, *, ocr: str | OcrOptions = "auto") -> ParsedDocument:
    """Read a PDF: one cleaned page text per PDF page ("" for a page without text), 1-based numbering.

    `ocr`: "auto" reads pages without a usable text layer by OCR, "always" every page, "off" none.
    """
    options = as_options(ocr)
    tables: dict[int, list[Table]] = {}
    raw, facts, title, lines = _raw_pages(path, data, tables)
    if not raw:
        raise DocumentError(path, "the PDF has no pages", _REPAIR_FIX)
    outcome = _read_scans(data, raw, facts, options)
    if not any(text.strip() for text in outcome.texts):
        raise _no_text(path, outcome, options)
    warnings = [w for n, text in enumerate(raw, start=1) if (w := _warning(n, text))] + outcome.warnings
    pages, running = _cleaned(outcome.texts)
    # Tables (kotae.ingest.pdf_table_pages): their lines become rows, cut into "rows" sections below.
    # Scanned pages' tables come from the rules OCR found on their images (kotae.ingest.ocr_tables).
    scanned = {n: found for n, page in outcome.read.items() if (found := scanned_tables(page, 72 / options.dpi))}
    by_page = pdf_table_pages.across_pages({**{n: t for n, t in tables.items() if n not in outcome.read}, **scanned})
    pages, placed = pdf_table_pages.place_tables(pages, by_page, running)
    fonts = [() if n in outcome.read else page_lines for n, page_lines in enumerate(lines, start=1)]
    sections = sections_from_headings(pages, classify_pages(pages, fonts))
    rows = pdf_table_pages.row_sections(sections, pages, placed, filing_context(pages) if placed else "")
    sections = mark_ocr(rows, set(outcome.read))
    words = tuple(page_words(n, outcome.read[n], pages[n - 1], 72 / options.dpi, "pt") for n in sorted(outcome.read))
    return ParsedDocument(
        path=path,
        kind="pdf",
        pages=tuple(pages),
        sections=tuple(sections),
        warnings=tuple(warnings),
        title=title,
        ocr=words,
    )
