"""Pictures inside Office files that hold text — a scanned page pasted into Word, a screenshot of a form on a slide
— read by OCR like an image file, under the same `index.ocr` mode ("off": never).

Only pictures large enough to hold a line of text are read (MIN_SIDE; icons, logos and bullets are smaller), at
most MAX_PICTURES a document (a deck of photos is not an archive of scans), and what OCR reads is kept only when it
reads as text: a mean word confidence of MIN_CONFIDENCE or more and MIN_CHARS characters (a photo gives scattered,
low-confidence fragments). Formats PIL cannot open (EMF, WMF drawings) are passed over.
"""
from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from dataclasses import replace

from PIL import Image

from kotae.ingest.limits import current
from kotae.ingest.ocr import OcrOptions, OcrPage, find_engine, run_pages

__all__ = ["MAX_PICTURES", "read_pictures"]

MIN_SIDE = 300  # pixels, the shorter side
MAX_PICTURES = 20
MIN_CONFIDENCE = 60.0
MIN_CHARS = 12


def _size(blob: bytes) -> tuple[int, int] | None:
    try:
        with Image.open(io.BytesIO(blob)) as image:
            return image.size
    except (OSError, ValueError, Image.DecompressionBombError):
        return None


def read_pictures(blobs: Sequence[bytes], options: OcrOptions) -> tuple[list[str], tuple[str, ...]]:
    """The text OCR reads in each picture ("" when none, or when it does not read as text), and notes for the user
    (no OCR engine, pictures past MAX_PICTURES)."""
    out = [""] * len(blobs)
    if options.mode == "off" or not blobs:
        return out, ()
    cap = current().max_pixels
    readable = [i for i, blob in enumerate(blobs)
                if (size := _size(blob)) is not None and min(size) >= MIN_SIDE and size[0] * size[1] <= cap]
    if not readable:
        return out, ()
    engine = find_engine(options.tesseract)
    if isinstance(engine, str):
        return out, (f"{len(readable)} picture(s) not read: {engine}",)
    chosen = readable[:MAX_PICTURES]

    def loader(i: int) -> Callable[[], object]:
        return lambda: Image.open(io.BytesIO(blobs[i]))

    pages = run_pages({i + 1: loader(i) for i in chosen}, engine, replace(options, on_page=None))
    for number, page in pages.items():
        if isinstance(page, OcrPage) and page.confidence >= MIN_CONFIDENCE and len(page.text.strip()) >= MIN_CHARS:
            out[number - 1] = page.text.strip()
    notes = ((f"{len(readable) - MAX_PICTURES} more pictures were not read by OCR (the first {MAX_PICTURES} were)",)
             if len(readable) > MAX_PICTURES else ())
    return out, notes
