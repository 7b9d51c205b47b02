"""Reading order of a PDF page from its character boxes: lines, columns, vertical Japanese, right to left.

Pure functions over `Char`s (PDF coordinates: points, origin bottom left) plus one I/O edge,
`page_chars`, that reads them from a pypdfium2 text page. A page that is one column of horizontal
text keeps PDFium's own text; only pages found to have columns or vertical writing are rebuilt:
columns are read left to right within each band between full-width lines (titles, captions,
footers), vertical lines right to left within each tier, tiers top to bottom.
"""

from __future__ import annotations

import ctypes
import re
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
import pypdfium2.raw as pdfium_c  # type: ignore[import-untyped]

from kotae.ingest.pdf_chars import Char
from kotae.ingest.pdf_rtl import fix_ligatures, is_rtl, rtl_text
from kotae.ingest.pdf_vertical import is_vertical, vertical_text

HYPHEN_MARK = "\ufffe"
CJK_SHARE = 0.2  # a page this much CJK is boxed character by character
_TOKEN = re.compile(r"[^\s]+|\s", re.DOTALL)
_ONE = re.compile(r".", re.DOTALL)
WORD_GAP = 1.0  # a horizontal gap wider than this many character heights splits a line into segments
PHRASE_GAP = 1.6  # segments of one column and baseline closer than this many heights are one line
ROW_CELL = 0.35  # segments this short (share of a column's width) on one baseline across columns: a table row
TABLE_BRIDGE = 3  # lines alone on their baseline between table rows that still belong to the table
GUTTER_MIN = 8.0  # points: the narrowest gap between two columns
CROSSING = 0.03  # a gutter may be crossed by this share of the narrow segments (a header, a box)
NARROW = 0.55  # a segment narrower than this share of the text width can sit in a column
COLUMN_MIN = 0.18  # a column is at least this share of the text width
FULL = 0.6  # a column's own lines fill at least this share of its width…
FULL_LINES = 6  # …and it has at least this many of them
TITLE_HEIGHT = 1.3  # a segment taller than this many median line heights is a title, not body text
SPANNING_MAX = 0.35  # more full-width lines than this share: the page is one column after all
BOLD = 600  # the font weight from which a character is bold


@dataclass(slots=True)
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
    ends: tuple[int, int] = (-1, -1)  # text-page indexes of its first and last characters (a font change inside)
    cell: bool = False  # one of several short segments of a baseline across columns (a table row)
    mixed: bool = False  # joined from segments in different fonts (a run-in heading and its text)


@dataclass(frozen=True)
class PageLayout:
    """What a page's character boxes tell: its lines, columns found, and the text in reading order."""

    lines: tuple[Line, ...]
    columns: int  # 1 for a single column
    vertical: bool
    text: str | None  # the page text in reading order; None: keep PDFium's text (one horizontal column)


# --- I/O edge ------------------------------------------------------------------------------------
def page_chars(textpage) -> list[Char]:  # type: ignore[no-untyped-def]
    """The characters of a pypdfium2 PdfTextPage, in PDFium's order (generated spaces and breaks included).

    Text with spaces between words comes as one `Char` per word, boxed from its first and last
    character (one call per edge, not per character: lines split only where words meet); CJK text,
    which has no spaces, comes one character at a time.
    """
    raw = textpage.raw
    count = pdfium_c.FPDFText_CountChars(raw)
    text = textpage.get_text_range()
    if len(text) != count:  # characters outside the BMP: one code point per index instead
        text = "".join(chr(pdfium_c.FPDFText_GetUnicode(raw, i) or 32) for i in range(count))
    rect = pdfium_c.FS_RECTF()
    ref = ctypes.byref(rect)
    box = pdfium_c.FPDFText_GetLooseCharBox
    text = fix_ligatures(text, lambda i, j: _tight_box(raw, i) == _tight_box(raw, j))
    chars: list[Char] = []
    append = chars.append
    wide = sum(1 for ch in text if ord(ch) >= 0x2E80)
    for m in (_ONE if wide > CJK_SHARE * len(text) else _TOKEN).finditer(text):
        i, word = m.start(), m.group()
        if word.isspace():
            append(Char(word, 0.0, 0.0, 0.0, 0.0, i))
            continue
        box(raw, i, ref)
        x0, y0, x1, y1 = rect.left, rect.bottom, rect.right, rect.top
        if len(word) > 1:
            box(raw, m.end() - 1, ref)
            x0, y0, x1, y1 = min(x0, rect.left), min(y0, rect.bottom), max(x1, rect.right), max(y1, rect.top)
        append(Char(word, x0, y0, x1, y1, i))
    return chars


def _tight_box(raw, index: int) -> tuple[float, ...]:  # type: ignore[no-untyped-def]
    edges = [ctypes.c_double() for _ in range(4)]
    pdfium_c.FPDFText_GetCharBox(raw, index, *[ctypes.byref(e) for e in edges])
    return tuple(round(e.value, 1) for e in edges)


def font_reader(textpage) -> Callable[[int], tuple[float, int]]:  # type: ignore[no-untyped-def]
    """A function giving the font (size in pt, weight; -1 unknown) of a character of the text page."""
    raw = textpage.raw

    def font(index: int) -> tuple[float, int]:
        return round(pdfium_c.FPDFText_GetFontSize(raw, index), 1), pdfium_c.FPDFText_GetFontWeight(raw, index)

    return font


# --- lines ---------------------------------------------------------------------------------------
def _line(chars: list[Char]) -> Line | None:
    text = "".join(c[0] for c in chars).strip()
    if text.endswith(HYPHEN_MARK):  # PDFium's end-of-line hyphen: a soft hyphen before the break
        text = text[:-1] + "\u00ad"
    boxed = [c for c in chars if c[3] > c[1] or c[4] > c[2]]  # spaces carry no box
    if not text or not boxed:
        return None
    _, x0, y0, x1, y1, _ = zip(*boxed)
    return Line(text, min(x0), min(y0), max(x1), max(y1), probe=boxed[len(boxed) // 2].at,
                ends=(boxed[0].at, boxed[-1].at))


def lines_of(chars: list[Char]) -> list[Line]:
    """Horizontal segments: PDFium's line breaks, split again at wide gaps and where text jumps back or down."""
    lines: list[Line] = []
    run: list[Char] = []
    last: Char | None = None
    for c in chars:
        t, x0, y0, x1, y1, _ = c
        if t == "\n" or t == "\r":
            if t == "\n":
                if line := _line(run):
                    lines.append(line)
                run, last = [], None
            continue
        if x1 == x0 and y1 == y0:  # a space, generated or not
            run.append(c)
            continue
        if last is not None:
            _, lx0, ly0, lx1, ly1, _ = last
            height = max(1.0, ly1 - ly0)
            mid = (y0 + y1) / 2
            # a gap is judged against the smaller of the two characters: a heading's large font beside the
            # next column's body text would otherwise bridge the gutter
            gap = WORD_GAP * min(height, max(1.0, y1 - y0))
            if not (ly0 <= mid <= ly1) or x0 < lx0 - height or x0 - lx1 > gap:
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
    """Vertical strips of at least GUTTER_MIN points that (almost) no narrow segment of body text covers (a
    title set larger than the body, above the columns, may cross the gutters: it is read as a spanning line)."""
    width = right - left
    heights = sorted(ln.y1 - ln.y0 for ln in lines)
    tall = TITLE_HEIGHT * heights[len(heights) // 2] if heights else float("inf")
    narrow = [ln for ln in lines if ln.x1 - ln.x0 < NARROW * width and ln.y1 - ln.y0 <= tall]
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
    if len(columns) > 1:  # a column reaches to the middle of its gutters: a line spans only if it crosses one
        mids = [left] + [(a + b) / 2 for a, b in gaps] + [right]
        columns = [(mids[i], mids[i + 1]) for i in range(len(mids) - 1)]
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


def _tables_in_stream_order(lines: list[Line]) -> list[Line]:
    """Top-down lines of one column with each table (lines sharing baselines, up to TABLE_BRIDGE lines
    apart) put back in PDFium's order, which keeps the lines of a cell together."""
    shared = [i for i, ln in enumerate(lines) if not ln.alone]
    out = list(lines)
    start = 0
    while start < len(shared):
        end = start
        while end + 1 < len(shared) and shared[end + 1] - shared[end] <= TABLE_BRIDGE:
            end += 1
        a, b = shared[start], shared[end] + 1
        if end > start:
            out[a:b] = sorted(lines[a:b], key=lambda ln: ln.probe)
        start = end + 1
    return out


def column_order(lines: list[Line], columns: list[tuple[float, float]]) -> list[Line]:
    """Lines in reading order: bands between full-width lines, each band column by column, top down;
    a table across the columns (`cell` lines) in PDFium's order, which keeps a cell's lines together."""
    ordered: list[Line] = []
    band: list[list[Line]] = [[] for _ in columns]
    table: list[Line] = []

    def flush() -> None:
        for column in band:
            ordered.extend(_tables_in_stream_order(_top_down(column)))
            column.clear()
        ordered.extend(sorted(table, key=lambda ln: ln.probe))
        table.clear()

    for line in _top_down(lines):
        at = _column_of(line, columns)
        if line.cell:
            if any(band):
                flush()
            table.append(line)
        elif at is None:
            flush()
            ordered.append(line)
        else:
            if table:
                flush()
            band[at].append(line)
    flush()
    return ordered


def table_rows(lines: list[Line], columns: list[tuple[float, float]]) -> list[Line]:
    """The lines with `cell` set (in place) where short segments of one baseline sit in several columns: a table across
    the gutter (columns of prose have lines that fill their column)."""
    groups: dict[int, list[Line]] = {}
    for ln in lines:
        groups.setdefault(round(ln.y0 / 2), []).append(ln)
    out: list[Line] = []
    for members in groups.values():
        at = {_column_of(ln, columns) for ln in members}
        short = all(ln.x1 - ln.x0 < ROW_CELL * (columns[0][1] - columns[0][0]) for ln in members)
        cell = len(at) >= 2 and None not in at and short
        for ln in members:
            if cell:
                ln.cell, ln.alone = True, False
            out.append(ln)
    return out


def phrases(lines: list[Line], columns: list[tuple[float, float]]) -> list[Line]:
    """Segments of one column and baseline joined with a space where their gap is under PHRASE_GAP heights
    ("1" + "Introduction" → "1 Introduction"); cells further apart stay apart."""
    groups: dict[tuple[int | None, int], list[Line]] = {}
    for ln in lines:
        groups.setdefault((_column_of(ln, columns), round(ln.y0)), []).append(ln)
    out = []
    for members in groups.values():
        members.sort(key=lambda ln: ln.x0)
        current = members[0]
        for ln in members[1:]:
            if ln.x0 - current.x1 <= PHRASE_GAP * max(1.0, current.y1 - current.y0):
                bigger = ln if len(ln.text) > len(current.text) else current  # the font of most text
                mixed = current.mixed or (ln.size, ln.weight) != (current.size, current.weight)
                current = replace(current, text=f"{current.text} {ln.text}", x1=max(current.x1, ln.x1),
                                  y0=min(current.y0, ln.y0), y1=max(current.y1, ln.y1), size=bigger.size,
                                  weight=bigger.weight, mixed=mixed)
            else:
                out.append(current)
                current = ln
        out.append(current)
    return out


def mark_alone(lines: list[Line], columns: list[tuple[float, float]]) -> list[Line]:
    """The lines with `alone` set (in place): False when another segment of its column sits on the same baseline."""
    keys = [(_column_of(ln, columns), round(ln.y0)) for ln in lines]
    counts: dict[tuple[int | None, int], int] = {}
    for key in keys:
        for dy in (-1, 0, 1):
            counts[(key[0], key[1] + dy)] = counts.get((key[0], key[1] + dy), 0) + 1
    for ln, k in zip(lines, keys):
        ln.alone = counts[k] <= 1
    return lines


def _rows_text(ordered: list[Line], columns: list[tuple[float, float]]) -> str:
    """Lines joined: a space between segments of one column and baseline (a table row stays one line)."""
    out: list[str] = []
    last: tuple[int | None, int] | None = None
    for ln in ordered:
        at = (_column_of(ln, columns), round(ln.y0))
        if out and last is not None and at[0] == last[0] and abs(at[1] - last[1]) <= 1:
            out[-1] += " " + ln.text
        else:
            out.append(ln.text)
        last = at
    return "\n".join(out)


def analyse(chars: list[Char], font: Callable[[int], tuple[float, int]] | None = None) -> PageLayout:
    """The layout of one page's characters; `text` is set only when PDFium's order should be replaced.

    `font(index)` gives a character's (size, weight) (see `font_reader`); without it lines carry no font.
    """
    lines = lines_of(chars)
    if font is not None:
        for ln in lines:
            ln.size, ln.weight = font(ln.probe)
            # a run-in heading set in the line's own segment ("Credit for taxes paid. You are", bold then
            # regular): its first or last character is bold where its middle is not, or the reverse
            ln.mixed = ln.weight > 0 and any(
                i >= 0 and font(i)[1] > 0 and (font(i)[1] >= BOLD) != (ln.weight >= BOLD) for i in ln.ends)
    if is_vertical(chars):
        return PageLayout(tuple(lines), 1, True, vertical_text(chars))
    if is_rtl(chars):
        return PageLayout(tuple(lines), 1, False, rtl_text(chars))
    columns = find_columns(lines)
    marked = mark_alone(phrases(lines, columns), columns)
    if len(columns) <= 1:
        return PageLayout(tuple(marked), 1, False, None)
    ordered = column_order(table_rows(marked, columns), columns)
    return PageLayout(tuple(ordered), len(columns), False, _rows_text(ordered, columns))
