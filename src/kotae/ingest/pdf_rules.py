"""The rules a PDF page draws (horizontal and vertical line segments), read from PDFium's path objects.

The edge of kotae.ingest.pdf_ruled, which finds the tables they draw.
"""

from __future__ import annotations

import ctypes
import itertools

import pypdfium2 as pdfium  # type: ignore[import-untyped]
import pypdfium2.raw as pdfium_c  # type: ignore[import-untyped]

from kotae.ingest.pdf_ruled import MAX_RULES, Rule

__all__ = ["page_rules"]

THIN = 2.5  # points: a drawn path thinner than this is a rule
MIN_RULE = 6.0  # points: shorter strokes are no table's rules (glyph parts, ticks)
MAX_SEGMENTS = 200  # a path with more segments is a drawing (outlined text, a chart), not rules


def page_rules(page: pdfium.PdfPage) -> list[Rule]:
    """The page's drawn rules (y down, points): thin paths, stroked or filled, and the straight segments of
    short stroked paths (a box's sides); [] on a page drawn with more paths than MAX_RULES. The sides of
    filled areas are not rules: a document converted from HTML fills every cell."""
    raw = page.raw
    width, height = page.get_width(), page.get_height()
    left, bottom, right, top = (ctypes.c_float() for _ in range(4))
    refs = [ctypes.byref(v) for v in (left, bottom, right, top)]
    rules: list[Rule] = []
    paths = 0
    for i in range(pdfium_c.FPDFPage_CountObjects(raw)):
        obj = pdfium_c.FPDFPage_GetObject(raw, i)
        if pdfium_c.FPDFPageObj_GetType(obj) != pdfium_c.FPDF_PAGEOBJ_PATH:
            continue
        paths += 1
        if paths > MAX_RULES:
            return []
        if not pdfium_c.FPDFPageObj_GetBounds(obj, *refs):
            continue
        x0, y0, x1, y1 = left.value, bottom.value, right.value, top.value
        w, h = x1 - x0, y1 - y0
        if w >= 0.9 * width and h >= 0.9 * height:
            continue  # a page background
        if h <= THIN and w >= MIN_RULE:
            rules.append(Rule(True, height - (y0 + y1) / 2, x0, x1))
        elif w <= THIN and h >= MIN_RULE:
            rules.append(Rule(False, (x0 + x1) / 2, height - y1, height - y0))
        elif max(w, h) >= MIN_RULE and _stroked(obj):
            rules += _segments(obj, height)  # a filled area (a cell's background) draws no rule
    return rules


def _stroked(obj: ctypes.c_void_p) -> bool:
    fill, stroke = ctypes.c_int(), ctypes.c_int()
    return bool(pdfium_c.FPDFPath_GetDrawMode(obj, ctypes.byref(fill), ctypes.byref(stroke)) and stroke.value)


def _segments(path: ctypes.c_void_p, height: float) -> list[Rule]:
    """The straight axis-aligned segments of a path of at most MAX_SEGMENTS segments without curves."""
    n = pdfium_c.FPDFPath_CountSegments(path)
    if n <= 1 or n > MAX_SEGMENTS:
        return []
    m = pdfium_c.FS_MATRIX()
    if not pdfium_c.FPDFPageObj_GetMatrix(path, m):
        return []
    x, y = ctypes.c_float(), ctypes.c_float()
    points: list[tuple[float, float, int, bool]] = []
    for i in range(n):
        seg = pdfium_c.FPDFPath_GetPathSegment(path, i)
        kind = pdfium_c.FPDFPathSegment_GetType(seg)
        if kind == pdfium_c.FPDF_SEGMENT_BEZIERTO:
            return []
        if not pdfium_c.FPDFPathSegment_GetPoint(seg, x, y):
            return []
        px, py = m.a * x.value + m.c * y.value + m.e, m.b * x.value + m.d * y.value + m.f
        points.append((px, height - py, kind, bool(pdfium_c.FPDFPathSegment_GetClose(seg))))
    rules: list[Rule] = []
    start = points[0]
    for (x0, y0, _, _), (x1, y1, kind, close) in itertools.pairwise(points):
        if kind == pdfium_c.FPDF_SEGMENT_MOVETO:
            start = (x1, y1, kind, close)
            continue
        rules += _rule(x0, y0, x1, y1)
        if close:
            rules += _rule(x1, y1, start[0], start[1])
    return rules


def _rule(x0: float, y0: float, x1: float, y1: float) -> list[Rule]:
    if abs(y1 - y0) <= 0.5 and abs(x1 - x0) >= MIN_RULE:
        return [Rule(True, (y0 + y1) / 2, min(x0, x1), max(x0, x1))]
    if abs(x1 - x0) <= 0.5 and abs(y1 - y0) >= MIN_RULE:
        return [Rule(False, (x0 + x1) / 2, min(y0, y1), max(y0, y1))]
    return []
