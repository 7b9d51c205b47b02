"""Image reader: PNG, JPEG and TIFF (each frame a page), read by OCR through the same path as scanned PDF pages."""

from __future__ import annotations

import io

from PIL import Image, ImageOps, UnidentifiedImageError

from kotae.errors import DocumentError
from kotae.ingest.headings import classify_lines
from kotae.ingest.layout import sections_from_lines
from kotae.ingest.ocr import INSTALL, OcrOptions, apply_ocr, as_options, mark_ocr, page_words
from kotae.ingest.pdf import clean_pages
from kotae.ingest.registry import register
from kotae.types import ParsedDocument

_RESAVE_FIX = "open it in an image viewer and save it again as PNG, JPEG or TIFF"


def _frames(path: str, data: bytes) -> list[Image.Image]:
    """Every frame of the image, upright (EXIF orientation applied), in grey."""
    try:
        with Image.open(io.BytesIO(data)) as image:
            frames = []
            for index in range(getattr(image, "n_frames", 1)):
                image.seek(index)
                frames.append(ImageOps.exif_transpose(image.convert("L")))
    except Image.DecompressionBombError as exc:
        raise DocumentError(path, f"the image is too large to read ({exc})", "scale it down and index it again") from exc
    except (UnidentifiedImageError, OSError, ValueError) as exc:
        raise DocumentError(path, f"not a readable image ({exc})", _RESAVE_FIX) from exc
    if not frames:
        raise DocumentError(path, "the image has no frames", _RESAVE_FIX)
    return frames


@register("image", extensions=(".png", ".jpg", ".jpeg", ".tif", ".tiff"))
def read_image(path: str, data: bytes, *, ocr: str | OcrOptions = "auto") -> ParsedDocument:
    """Read an image by OCR: one page per frame, word boxes in image pixels."""
    options = as_options(ocr)
    if options.mode == "off":
        raise DocumentError(path, "an image can only be read by OCR, and OCR is off", "pass --ocr auto")
    frames = _frames(path, data)
    outcome = apply_ocr([""] * len(frames), [(0.0, None)] * len(frames), lambda n: lambda: frames[n - 1], options)
    if outcome.missing:
        raise DocumentError(path, f"an image can only be read by OCR, but {outcome.missing}", f"install it: {INSTALL}")
    if not any(text.strip() for text in outcome.texts):
        raise DocumentError(path, "OCR found no text in the image", "check that it shows text")
    pages = clean_pages(outcome.texts)
    sections = mark_ocr(sections_from_lines(pages, classify_lines), set(outcome.read))
    return ParsedDocument(
        path=path,
        kind="image",
        pages=tuple(pages),
        sections=tuple(sections),
        warnings=tuple(outcome.warnings),
        ocr=tuple(page_words(n, outcome.read[n], pages[n - 1]) for n in sorted(outcome.read)),
    )
