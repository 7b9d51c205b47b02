"""Image reader: PNG, JPEG and TIFF (each frame a page), read by OCR through the same path as scanned PDF pages."""

from __future__ import annotations

import io

from PIL import Image, ImageOps, UnidentifiedImageError

from kotae.errors import DocumentError
from kotae.ingest.headings import classify_lines
from kotae.ingest.layout import sections_from_lines
from kotae.ingest.limits import check_frames, check_pixels
from kotae.ingest.ocr import INSTALL, OcrOptions, apply_ocr, as_options, mark_ocr, page_words
from kotae.ingest.ocr_tables import scanned_tables
from kotae.ingest.pdf import clean_pages
from kotae.ingest.pdf_table_pages import place_tables, row_sections
from kotae.ingest.registry import register
from kotae.types import ParsedDocument

A4_WIDTH_PT = 595.0  # an image's size in points is unknown: its shorter side is taken as an A4 page's width
_RESAVE_FIX = "open it in an image viewer and save it again as PNG, JPEG or TIFF"


def _frame_count(path: str, data: bytes) -> int:
    """How many frames the image has, every frame's size checked against the limits before any is decoded."""
    try:
        with Image.open(io.BytesIO(data)) as image:
            n = getattr(image, "n_frames", 1)
            check_frames(path, n)
            for index in range(n):
                image.seek(index)
                check_pixels(path, *image.size, frame=index + 1 if n > 1 else None)
    except Image.DecompressionBombError as exc:
        raise DocumentError(path, f"the image is too large to read ({exc})", "scale it down and index it again") from exc
    except DocumentError:
        raise
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError, TypeError, KeyError, EOFError) as exc:
        raise DocumentError(path, f"not a readable image ({type(exc).__name__}: {exc})", _RESAVE_FIX) from exc
    if n < 1:
        raise DocumentError(path, "the image has no frames", _RESAVE_FIX)
    return int(n)


def _frame(path: str, data: bytes, index: int) -> Image.Image:
    """Frame `index` (from 0), upright (EXIF orientation applied), in grey: decoded only when OCR asks for it."""
    try:
        with Image.open(io.BytesIO(data)) as image:
            image.seek(index)
            return ImageOps.exif_transpose(image.convert("L"))
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError, TypeError, KeyError, EOFError) as exc:
        raise DocumentError(path, f"frame {index + 1} is not readable ({type(exc).__name__}: {exc})",
                            _RESAVE_FIX) from exc


@register("image", extensions=(".png", ".jpg", ".jpeg", ".tif", ".tiff"))
def read_image(path: str, data: bytes, *, ocr: str | OcrOptions = "auto") -> ParsedDocument:
    """Read an image by OCR: one page per frame, word boxes in image pixels."""
    options = as_options(ocr)
    if options.mode == "off":
        raise DocumentError(path, "an image can only be read by OCR, and OCR is off", "pass --ocr auto")
    n = _frame_count(path, data)
    outcome = apply_ocr([""] * n, [(0.0, None)] * n, lambda page: lambda: _frame(path, data, page - 1), options)
    if outcome.missing:
        raise DocumentError(path, f"an image can only be read by OCR, but {outcome.missing}", f"install it: {INSTALL}")
    if not any(text.strip() for text in outcome.texts):
        raise DocumentError(path, "OCR found no text in the image", "check that it shows text")
    pages = clean_pages(outcome.texts)
    # drawn tables (kotae.ingest.ocr_tables), the image's shorter side taken as an A4 page's width in points
    tables = {n: found for n, page in outcome.read.items()
              if (found := scanned_tables(page, A4_WIDTH_PT / max(1, min(page.width, page.height))))}
    pages, placed = place_tables(pages, tables)
    sections = sections_from_lines(pages, classify_lines)
    sections = mark_ocr(row_sections(sections, pages, placed) if placed else sections, set(outcome.read))
    return ParsedDocument(
        path=path,
        kind="image",
        pages=tuple(pages),
        sections=tuple(sections),
        warnings=tuple(outcome.warnings),
        ocr=tuple(page_words(n, outcome.read[n], pages[n - 1]) for n in sorted(outcome.read)),
    )
