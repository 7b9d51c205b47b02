"""Reading order of a PDF page from its character boxes: lines, columns, vertical Japanese.

Pure functions over `Char`s (PDF coordinates: points, origin bottom left) plus one I/O edge,
`page_chars`, that reads them from a pypdfium2 text page. A page that is one column of horizontal
text keeps PDFium's own text; only pages found to have columns or vertical writing are rebuilt:
columns are read left to right within each band between full-width lines (titles, captions,
footers), vertical lines right to left within each tier, tiers top to bottom.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass, replace
from statistics import median

import numpy as np
import pypdfium2.raw as pdfium_c  # type: ignore[import-untyped]

WORD_GAP = 1.0  # a horizontal gap wider than this many character heights splits a line into segments
GUTTER_MIN = 8.0  # points: the narrowest gap between two columns
CROSSING = 0.03  # a gutter may be crossed by this share of the narrow segments (a header, a box)
NARROW = 0.55  # a segment narrower than this share of the text width can sit in a column
COLUMN_MIN = 0.18  # a column is at least this share of the text width
FULL = 0.6  # a column's own lines fill at least this share of its width…
FULL_LINES = 6  # …and it has at least this many of them
SPANNING_MAX = 0.35  # more full-width lines than this share: the page is one column after all
VERTICAL_SHARE = 0.6  # share of character steps going down that makes a page vertical
VERTICAL_MIN = 20
VERTICAL_SAMPLE = 600  # characters looked at


@dataclass(slots=True)
class Char:
    """One character with its loose box (points, y up) and its index in the text page."""

    text: str
    x0: float
    y0: float
    x1: float
    y1: float
    index: int = -1


@dataclass(frozen=True)
class Line:
    """A run of characters on one baseline with no wide gap inside (a line, or one cell of a table row)."""

    text: str
    x0: float
    y0: float
    x1: float
    y1: float
    size: float = 0.0  # font size (pt) of its middle character, 0 unknown
    weight: int = -1  # font weight of its middle character, -1 unknown
    alone: bool = True  # no other segment shares its baseline in its column
    probe: int = -1  # text-page index of its middle character (where its font is read)


@dataclass(frozen=True)
class PageLayout:
    """What a page's character boxes tell: its lines, columns found, and the text in reading order."""

    lines: tuple[Line, ...]
    columns: int  # 1 for a single column
    vertical: bool
    text: str | None  # the page text in reading order; None: keep PDFium's text (one horizontal column)


# --- I/O edge ------------------------------------------------------------------------------------
def page_chars(textpage) -> list[Char]:  # type: ignore[no-untyped-def]
    """The characters of a pypdfium2 PdfTextPage, in PDFium's order (generated spaces and breaks included)."""
    raw = textpage.raw
    count = pdfium_c.FPDFText_CountChars(raw)
    text = textpage.get_text_range()
    if len(text) != count:  # characters outside the BMP: one code point per index instead
        text = "".join(chr(pdfium_c.FPDFText_GetUnicode(raw, i) or 32) for i in range(count))
    rect = pdfium_c.FS_RECTF()
    ref = ctypes.byref(rect)
    box = pdfium_c.FPDFText_GetLooseCharBox
    chars = []
    for i, ch in enumerate(text):
        if ch.isspace():
            chars.append(Char(ch, 0.0, 0.0, 0.0, 0.0, i))
        else:
            box(raw, i, ref)
            chars.append(Char(ch, rect.left, rect.bottom, rect.right, rect.top, i))
    return chars


def with_fonts(textpage, lines: list[Line]) -> list[Line]:  # type: ignore[no-untyped-def]
    """Lines with the font size (pt) and weight of their middle character, read from the text page."""
    raw = textpage.raw
    out = []
    for ln in lines:
        size = pdfium_c.FPDFText_GetFontSize(raw, ln.probe)
        weight = pdfium_c.FPDFText_GetFontWeight(raw, ln.probe)
        out.append(replace(ln, size=round(size, 1), weight=weight))
    return out


# --- lines ---------------------------------------------------------------------------------------
def _line(chars: list[Char]) -> Line | None:
    text = "".join(c.text for c in chars).strip()
    boxed = [c for c in chars if not c.text.isspace()]
    if not text or not boxed:
        return None
    return Line(text, min(c.x0 for c in boxed), min(c.y0 for c in boxed), max(c.x1 for c in boxed),
                max(c.y1 for c in boxed), probe=boxed[len(boxed) // 2].index)


def lines_of(chars: list[Char]) -> list[Line]:
    """Horizontal segments: PDFium's line breaks, split again at wide gaps and where text jumps back or down."""
    lines: list[Line] = []
    run: list[Char] = []
    last: Char | None = None
    for c in chars:
        t = c.text
        if t == "\n" or t == "\r":
            if t == "\n":
                if line := _line(run):
                    lines.append(line)
                run, last = [], None
            continue
        if t.isspace():
            run.append(c)
            continue
        if last is not None:
            height = max(1.0, last.y1 - last.y0)
            mid = (c.y0 + c.y1) / 2
            if not (last.y0 <= mid <= last.y1) or c.x0 < last.x0 - height or c.x0 - last.x1 > WORD_GAP * height:
                if line := _line(run):
                    lines.append(line)
                run = []
        run.append(c)
        last = c
    if line := _line(run):
        lines.append(line)
    return lines


# --- columns -------------------------------------------------------------------------------------
def _gaps(lines: list[Line], left: float, right: float) -> list[tuple[float, float]]:
    """Vertical strips of at least GUTTER_MIN points that (almost) no narrow segment covers."""
    width = right - left
    narrow = [ln for ln in lines if ln.x1 - ln.x0 < NARROW * width]
    cover = np.zeros(int(width) + 2, dtype=np.int32)
    for ln in narrow:
        cover[int(ln.x0 - left) : int(ln.x1 - left) + 1] += 1
    free = cover <= max(1, CROSSING * len(narrow))
    gaps, start = [], None
    for x, ok in enumerate(free):
        if ok and start is None:
            start = x
        elif not ok and start is not None:
            if start > 0 and x - start >= GUTTER_MIN:
                gaps.append((left + start, left + x))
            start = None
    return gaps


def _column_ok(lines: list[Line], x0: float, x1: float, width: float) -> bool:
    inside = [ln for ln in lines if ln.x0 >= x0 - 1 and ln.x1 <= x1 + 1]
    full = sum(1 for ln in inside if ln.x1 - ln.x0 >= FULL * (x1 - x0))
    return x1 - x0 >= COLUMN_MIN * width and full >= FULL_LINES


def find_columns(lines: list[Line]) -> list[tuple[float, float]]:
    """The page's columns as x ranges, left to right; one range when the page is a single column."""
    if not lines:
        return []
    left, right = min(ln.x0 for ln in lines), max(ln.x1 for ln in lines)
    gaps = _gaps(lines, left, right)
    while True:
        edges = [left] + [g for gap in gaps for g in gap] + [right]
        columns = [(edges[i], edges[i + 1]) for i in range(0, len(edges), 2)]
        bad = [i for i, (a, b) in enumerate(columns) if not _column_ok(lines, a, b, right - left)]
        if not bad or not gaps:
            break
        i = bad[0]  # merge the failing column into its neighbour across the narrower gap
        sides = [j for j in (i - 1, i) if 0 <= j < len(gaps)]
        gaps.pop(min(sides, key=lambda j: gaps[j][1] - gaps[j][0]))
    if len(columns) > 1:
        spanning = sum(1 for ln in lines if _column_of(ln, columns) is None)
        if spanning > SPANNING_MAX * len(lines):
            return [(left, right)]
    return columns


def _column_of(line: Line, columns: list[tuple[float, float]]) -> int | None:
    for i, (x0, x1) in enumerate(columns):
        if line.x0 >= x0 - 1 and line.x1 <= x1 + 1:
            return i
    return None


def _top_down(lines: list[Line]) -> list[Line]:
    return sorted(lines, key=lambda ln: (-round((ln.y0 + ln.y1) / 2 / 3), ln.x0))


def column_order(lines: list[Line], columns: list[tuple[float, float]]) -> list[Line]:
    """Lines in reading order: bands between full-width lines, each band column by column, top down."""
    ordered: list[Line] = []
    band: list[list[Line]] = [[] for _ in columns]

    def flush() -> None:
        for column in band:
            ordered.extend(_top_down(column))
            column.clear()

    for line in _top_down(lines):
        at = _column_of(line, columns)
        if at is None:
            flush()
            ordered.append(line)
        else:
            band[at].append(line)
    flush()
    return ordered


def mark_alone(lines: list[Line], columns: list[tuple[float, float]]) -> list[Line]:
    """Each line with `alone` set: False when another segment of its column sits on the same baseline."""
    keys = [(_column_of(ln, columns), round(ln.y0)) for ln in lines]
    counts: dict[tuple[int | None, int], int] = {}
    for key in keys:
        for dy in (-1, 0, 1):
            counts[(key[0], key[1] + dy)] = counts.get((key[0], key[1] + dy), 0) + 1
    return [replace(ln, alone=counts[k] <= 1) for ln, k in zip(lines, keys)]


# --- vertical writing ------------------------------------------------------------------------------
def is_vertical(chars: list[Char]) -> bool:
    """Most steps from one visible character to the next go down the page, not across it."""
    seen = [c for c in chars if not c.text.isspace()][:VERTICAL_SAMPLE]
    down = across = 0
    for a, b in zip(seen, seen[1:]):
        height = max(1.0, a.y1 - a.y0)
        if b.y1 <= a.y0 + 0.3 * height and abs((b.x0 + b.x1) - (a.x0 + a.x1)) / 2 < 0.5 * height:
            down += 1
        elif b.x0 >= a.x1 - 0.3 * height and abs((b.y0 + b.y1) - (a.y0 + a.y1)) / 2 < 0.5 * height:
            across += 1
    return down >= VERTICAL_MIN and down >= VERTICAL_SHARE * (down + across)


def vertical_text(chars: list[Char]) -> str:
    """Vertical lines read right to left within tiers, tiers top to bottom, each line top down."""
    seen = [c for c in chars if not c.text.isspace()]
    if not seen:
        return ""
    height = median(c.y1 - c.y0 for c in seen) or 1.0
    columns: list[list[Char]] = []
    for c in sorted(seen, key=lambda c: -(c.x0 + c.x1)):
        mid = (c.x0 + c.x1) / 2
        if columns and abs(mid - (columns[-1][0].x0 + columns[-1][0].x1) / 2) < 0.5 * height:
            columns[-1].append(c)
        else:
            columns.append([c])
    runs: list[list[Char]] = []
    for column in columns:
        column.sort(key=lambda c: -c.y1)
        run = [column[0]]
        for c in column[1:]:
            if run[-1].y0 - c.y1 > 2 * height:
                runs.append(run)
                run = []
            run.append(c)
        runs.append(run)
    tiers: list[tuple[float, float, list[list[Char]]]] = []  # (top, bottom, runs)
    for run in sorted(runs, key=lambda r: -r[0].y1):
        top, bottom = run[0].y1, run[-1].y0
        for i, (t, b, members) in enumerate(tiers):
            if top > b and bottom < t:  # overlaps this tier's height
                tiers[i] = (max(t, top), min(b, bottom), members + [run])
                break
        else:
            tiers.append((top, bottom, [run]))
    out = []
    for _, _, members in sorted(tiers, key=lambda t: -t[0]):
        for run in sorted(members, key=lambda r: -(r[0].x0 + r[0].x1)):
            out.append("".join(c.text for c in run))
    return "\n".join(out)


def analyse(chars: list[Char]) -> PageLayout:
    """The layout of one page's characters; `text` is set only when PDFium's order should be replaced."""
    lines = lines_of(chars)
    if is_vertical(chars):
        return PageLayout(tuple(lines), 1, True, vertical_text(chars))
    columns = find_columns(lines)
    marked = mark_alone(lines, columns)
    if len(columns) <= 1:
        return PageLayout(tuple(marked), 1, False, None)
    ordered = column_order(marked, columns)
    return PageLayout(tuple(ordered), len(columns), False, "\n".join(ln.text for ln in ordered))
