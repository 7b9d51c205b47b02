"""Page images (PDF pages, image frames) with passages highlighted.

Two ways to find a passage on the page, drawn the same way, as translucent rectangles:
- pages with a text layer: a chunk's text comes from the *cleaned* page text (running headers dropped,
  hyphens joined, widths normalised), so its offsets do not point into the PDF. Instead the passage is
  found again in the PDF's own text layer, compared without whitespace, hyphens, case or width;
- OCR'd pages (scans, images): the index kept each word's box and its offsets into the cleaned page
  text (`kotae.ingest.ocr.page_words`), so the words inside the chunk's offsets are the passage, and
  their boxes are scaled from the stored units (PDF points, image pixels) to the rendered image.
"""
from __future__ import annotations

import io
import re
import threading
import unicodedata
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import pypdfium2 as pdfium  # type: ignore[import-untyped]
import pypdfium2.raw as pdfium_c  # type: ignore[import-untyped]
from PIL import Image, ImageDraw, ImageOps

from kotae.ingest.pdf import PDFIUM_LOCK  # PDFium is not thread-safe: one lock for every use
from kotae.types import PageWords

Box = tuple[float, float, float, float]  # left, top, right, bottom in image pixels
FILL = (255, 214, 0, 96)
EDGE = (232, 140, 0, 220)
_HYPHENS = frozenset("-\u00ad\u2010\u2011\ufffe\x02")
_PIECE = re.compile(r"[^\n。．！？!?]+[\n。．！？!?]*|[\n。．！？!?]+")
WINDOW = 16  # folded characters per probe when a whole sentence is not found as is
IMAGE_DPI = 300  # the resolution assumed for an image that records none (a typical scan)
MAX_SIDE = 4000  # pixels: the longest side of a rendered image frame


class PageNotFound(LookupError):
    pass


# what a damaged file raises while a page is rendered (OSError: Pillow's unreadable image)
UNRENDERABLE = (pdfium.PdfiumError, Image.DecompressionBombError, OSError)


@dataclass(frozen=True)
class Passage:
    """A chunk to highlight: its text and its [start, end) in the cleaned text of its page."""

    text: str
    start: int
    end: int


def fold(text: str) -> tuple[str, list[int]]:
    """`text` without whitespace, hyphens or control characters, NFKC and case-folded, plus the index in
    `text` each folded character came from."""
    out: list[str] = []
    where: list[int] = []
    for i, ch in enumerate(text):
        if ch.isspace() or ch in _HYPHENS or unicodedata.category(ch).startswith("C"):
            continue
        for c in unicodedata.normalize("NFKC", ch).casefold():
            if not c.isspace() and c not in _HYPHENS:
                out.append(c)
                where.append(i)
    return "".join(out), where


def locate(page_text: str, passage: str) -> list[tuple[int, int]]:
    """Character ranges [start, end) of `page_text` that hold `passage`: the whole passage when it is
    there, else its sentences (and, failing those, short windows of them) in reading order."""
    page, where = fold(page_text)
    whole, _ = fold(passage)
    if not page or not whole:
        return []
    at = page.find(whole)
    if at >= 0:
        return [(where[at], where[at + len(whole) - 1] + 1)]
    spans: list[tuple[int, int]] = []
    pos = 0
    for sentence in _PIECE.findall(passage):
        folded, _ = fold(sentence)
        probes = [folded] if len(folded) >= 4 else []
        if probes and page.find(folded) < 0:
            probes = [folded[i : i + WINDOW] for i in range(0, len(folded), WINDOW)]
            probes = [p for p in probes if len(p) >= 6]
        for probe in probes:
            at = page.find(probe, pos)
            at = at if at >= 0 else page.find(probe)
            if at >= 0:
                spans.append((where[at], where[at + len(probe) - 1] + 1))
                pos = at + len(probe)
    return _merge(spans)


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(b, out[-1][1]))
        else:
            out.append((a, b))
    return out


def line_boxes(char_boxes: Sequence[Box]) -> list[Box]:
    """Merge character boxes (in reading order) into one box per run on a line."""
    out: list[Box] = []
    for left, top, right, bottom in char_boxes:
        if out:
            l0, t0, r0, b0 = out[-1]
            height = max(b0 - t0, bottom - top, 1.0)
            same_line = min(b0, bottom) - max(t0, top) > 0.5 * min(b0 - t0, bottom - top)
            if same_line and -height <= left - r0 <= 2 * height:
                out[-1] = (min(l0, left), min(t0, top), max(r0, right), max(b0, bottom))
                continue
        out.append((left, top, right, bottom))
    return out


def column_boxes(boxes: Sequence[Box]) -> list[Box]:
    """Merge upright boxes (in reading order) that follow each other down a column: vertical Japanese,
    which OCR reads as a word or two per box."""
    out: list[Box] = []
    for left, top, right, bottom in boxes:
        if out:
            l0, t0, r0, b0 = out[-1]
            width = min(r0 - l0, right - left)
            upright = b0 - t0 >= 0.8 * (r0 - l0) or bottom - top >= 0.8 * (right - left)  # not two lines
            same_column = width > 0 and min(r0, right) - max(l0, left) > 0.5 * width
            if upright and same_column and -width <= top - b0 <= max(r0 - l0, right - left):
                out[-1] = (min(l0, left), min(t0, top), max(r0, right), max(b0, bottom))
                continue
        out.append((left, top, right, bottom))
    return out


def _page_chars(textpage: pdfium.PdfTextPage) -> str:
    """The text layer with one Python character per PDFium character index."""
    n = textpage.count_chars()
    text = textpage.get_text_range()
    if len(text) == n:
        return str(text)
    # characters outside the BMP make the decoded string shorter than the index range
    return "".join(chr(pdfium_c.FPDFText_GetUnicode(textpage.raw, i)) for i in range(n))


def _to_pixels(box: tuple[float, float, float, float], crop: Box, rotation: int, scale: float) -> Box:
    """A PDF-space box (left, bottom, right, top) as pixels of the page rendered with `scale`."""
    x0, y0, x1, y1 = box
    cl, cb, cr, ct = crop
    corners = [(x0, y0), (x1, y1)]
    if rotation == 90:
        pts = [((y - cb) * scale, (x - cl) * scale) for x, y in corners]
    elif rotation == 180:
        pts = [((cr - x) * scale, (y - cb) * scale) for x, y in corners]
    elif rotation == 270:
        pts = [((ct - y) * scale, (cr - x) * scale) for x, y in corners]
    else:
        pts = [((x - cl) * scale, (ct - y) * scale) for x, y in corners]
    (ax, ay), (bx, by) = pts
    return min(ax, bx), min(ay, by), max(ax, bx), max(ay, by)


def _open(path: str) -> pdfium.PdfDocument:
    try:
        return pdfium.PdfDocument(path)
    except pdfium.PdfiumError:
        return pdfium.PdfDocument(path, password="")  # permissions-only encryption, as the reader does


def ocr_boxes(words: PageWords, passage: Passage, sx: float, sy: float) -> list[Box]:
    """Boxes, in image pixels, of the OCR'd words inside the passage's offsets, merged per line (or
    column) run; `sx`, `sy`: image pixels per unit of `words` across and down."""
    inside = [(w.x0 * sx, w.y0 * sy, w.x1 * sx, w.y1 * sy) for w in words.words
              if w.start >= 0 and w.start < passage.end and w.end > passage.start]
    return column_boxes(line_boxes(inside))


def _not_in(number: int, pages: int) -> str:
    return f"page {number} is not in the document (it has {pages} page{'' if pages == 1 else 's'})"


def _render_pdf(path: str, number: int, passages: Sequence[Passage], scale: float) -> tuple[Image.Image, list[Box]]:
    """Page `number` rendered with `scale`, and the boxes of `passages` found in its text layer."""
    boxes: list[Box] = []
    with PDFIUM_LOCK:
        pdf = _open(path)
        try:
            if not 1 <= number <= len(pdf):
                raise PageNotFound(_not_in(number, len(pdf)))
            page = pdf[number - 1]
            try:
                image = page.render(scale=scale).to_pil().convert("RGBA")
                crop, rotation = page.get_cropbox(), page.get_rotation()
                if passages:
                    textpage = page.get_textpage()
                    try:
                        text = _page_chars(textpage)
                        for passage in passages:
                            chars = [_to_pixels(textpage.get_charbox(i, loose=True), crop, rotation, scale)
                                     for a, b in locate(text, passage.text) for i in range(a, b)
                                     if not text[i].isspace() and text[i].isprintable()]
                            boxes += line_boxes(chars)
                    finally:
                        textpage.close()
            finally:
                page.close()
        finally:
            pdf.close()
    return image, boxes


def _dpi(image: Image.Image) -> float:
    dpi = image.info.get("dpi")
    x = float(dpi[0]) if isinstance(dpi, tuple) and dpi else 0.0
    return x if x >= 10 else IMAGE_DPI


def render_frame(path: str, number: int, scale: float = 1.5) -> Image.Image:
    """Frame `number` (1-based) of an image file, upright as the image reader read it (EXIF orientation
    applied), sized like a PDF page: `scale` pixels per 1/72 inch at the image's resolution (IMAGE_DPI
    when it records none), never larger than the original nor over MAX_SIDE pixels."""
    with Image.open(path) as source:
        frames = getattr(source, "n_frames", 1)
        if not 1 <= number <= frames:
            raise PageNotFound(_not_in(number, frames))
        source.seek(number - 1)
        factor = min(1.0, scale * 72 / _dpi(source))
        image = ImageOps.exif_transpose(source.convert("RGB"))
    factor = min(factor, MAX_SIDE / max(image.size))
    if factor < 1.0:
        size = (max(1, round(image.width * factor)), max(1, round(image.height * factor)))
        image = image.resize(size, Image.Resampling.LANCZOS, reducing_gap=3.0)
    return image.convert("RGBA")


def render_page(path: str, number: int, passages: Sequence[Passage], scale: float = 1.5, *, kind: str = "pdf",
                words: PageWords | None = None) -> tuple[bytes, int]:
    """PNG of page `number` (1-based) of a PDF (`kind` "pdf") or image file ("image") with `passages`
    highlighted, and the number of boxes drawn. With `words` (the page's OCR word boxes) the passages are
    found by their offsets among the words; without, in the PDF's text layer."""
    if words is not None and not (words.width > 0 and words.height > 0):
        words = None  # no page size to scale by
    boxes: list[Box] = []
    if kind == "image":
        image = render_frame(path, number, scale)
    else:
        image, boxes = _render_pdf(path, number, () if words is not None else passages, scale)
    if words is not None:
        sx, sy = image.width / words.width, image.height / words.height
        boxes = [box for passage in passages for box in ocr_boxes(words, passage, sx, sy)]
    if boxes:
        overlay = Image.new("RGBA", image.size, (0, 0, 0, 0))
        draw = ImageDraw.Draw(overlay)
        for left, top, right, bottom in boxes:
            draw.rectangle((left - 2, top - 1, right + 2, bottom + 1), fill=FILL, outline=EDGE, width=2)
        image = Image.alpha_composite(image, overlay)
    out = io.BytesIO()
    image.convert("RGB").save(out, format="PNG", optimize=False)
    return out.getvalue(), len(boxes)


class PageImages:
    """`render_page` behind a small in-memory LRU cache keyed by file content, page, passages, scale and
    whether OCR word boxes were given."""

    def __init__(self, size: int = 64) -> None:
        self.size = size
        self._cache: OrderedDict[tuple[object, ...], tuple[bytes, int]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, path: str, sha256: str, number: int, passages: Sequence[Passage], scale: float, *,
            kind: str = "pdf", words: PageWords | None = None) -> tuple[bytes, int]:
        key = (sha256, path, number, tuple(passages), scale, kind, words is not None)
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
        value = render_page(path, number, passages, scale, kind=kind, words=words)
        with self._lock:
            self._cache[key] = value
            while len(self._cache) > self.size:
                self._cache.popitem(last=False)
        return value
