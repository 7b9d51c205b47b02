"""PDF page images with passages highlighted.

A chunk's text comes from the *cleaned* page text (running headers dropped, hyphens joined, widths
normalised), so its offsets do not point into the PDF. Instead the passage is found again in the PDF's
own text layer, compared without whitespace, hyphens, case or width, and the boxes of the matched
characters are drawn as translucent rectangles.
"""
from __future__ import annotations

import io
import re
import threading
import unicodedata
from collections import OrderedDict
from collections.abc import Sequence

import pypdfium2 as pdfium  # type: ignore[import-untyped]
import pypdfium2.raw as pdfium_c  # type: ignore[import-untyped]
from PIL import Image, ImageDraw

from kotae.ingest.pdf import _PDFIUM  # PDFium is not thread-safe: share the reader's lock

Box = tuple[float, float, float, float]  # left, top, right, bottom in image pixels
FILL = (255, 214, 0, 96)
EDGE = (232, 140, 0, 220)
_HYPHENS = frozenset("-\u00ad\u2010\u2011\ufffe\x02")
_PIECE = re.compile(r"[^\n。．！？!?]+[\n。．！？!?]*|[\n。．！？!?]+")
WINDOW = 16  # folded characters per probe when a whole sentence is not found as is


class PageNotFound(LookupError):
    pass


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


def render_page(path: str, number: int, passages: Sequence[str], scale: float = 1.5) -> tuple[bytes, int]:
    """PNG of page `number` (1-based) with `passages` highlighted, and the number of boxes drawn."""
    boxes: list[Box] = []
    with _PDFIUM:
        pdf = _open(path)
        try:
            if not 1 <= number <= len(pdf):
                raise PageNotFound(f"page {number} is not in the document (it has {len(pdf)} pages)")
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
                                     for a, b in locate(text, passage) for i in range(a, b)
                                     if not text[i].isspace() and text[i].isprintable()]
                            boxes += line_boxes(chars)
                    finally:
                        textpage.close()
            finally:
                page.close()
        finally:
            pdf.close()
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
    """`render_page` behind a small in-memory LRU cache keyed by file content, page, passages and scale."""

    def __init__(self, size: int = 64) -> None:
        self.size = size
        self._cache: OrderedDict[tuple[object, ...], tuple[bytes, int]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, path: str, sha256: str, number: int, passages: Sequence[str],
            scale: float) -> tuple[bytes, int]:
        key = (sha256, path, number, tuple(passages), scale)
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
        value = render_page(path, number, passages, scale)
        with self._lock:
            self._cache[key] = value
            while len(self._cache) > self.size:
                self._cache.popitem(last=False)
        return value
