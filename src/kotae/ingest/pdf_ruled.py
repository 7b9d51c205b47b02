"""Ruled tables: tables whose cells are drawn (rules and cell fills), read from the page's drawing.

Pure: rules (horizontal and vertical line segments, in points, origin at the page's top left) and word boxes in,
tables (kotae.ingest.pdf_tables.Table) out. Rules that touch one another form a group; a group's distinct
rule positions (and its outer edges, which need no rule: many tables leave their sides open) cut its box into
a grid; a grid line missing between two cells merges them (a label spanning rows, a group header spanning
columns). Each word goes to the cell holding its centre, so a cell's text stays whole however many lines it
wraps over, where the text layer reads the row line by line across its cells.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from kotae.ingest.pdf_tables import Line, Table, Word, is_number, lines_from_words

__all__ = ["CJK", "Box", "Rule", "continued", "grids", "merge_rules", "ruled_tables"]

SNAP = 2.0  # points: rule positions this close are one
MIN_BAND = 4.0  # points: a grid band narrower than this (a double rule) is no row or column
COVER = 0.6  # a grid line counts as drawn between two cells when rules cover this share of their border
REGULAR = 0.75  # a grid whose cells are mostly merged (a form, a figure drawn in boxes) is no table
MAX_RULES = 1500
MAX_NAME = 100  # characters: a column's name is never longer
MAX_PAIRS = 250_000  # horizontal × vertical rules compared when grouping (~0.2 s); more is a drawing  # a page drawn with more rules than this is a drawing, not tables
_YEAR = re.compile(r"(19|20)\d\d")
CJK = "\u3001-\u303f\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uff00-\uffef"  # Japanese and Chinese, as a class's ranges
_CJK = re.compile(f"[{CJK}]")


@dataclass(frozen=True, slots=True)
class Rule:
    """A horizontal rule at y = `at` from x `start` to `end`, or a vertical one at x = `at` (y down)."""

    horizontal: bool
    at: float
    start: float
    end: float


def _clusters(values: Iterable[float], tolerance: float) -> list[float]:
    """Sorted values with those within `tolerance` of the previous one merged (their mean)."""
    out: list[list[float]] = []
    for v in sorted(values):
        if out and v - out[-1][-1] <= tolerance:
            out[-1].append(v)
        else:
            out.append([v])
    return [sum(c) / len(c) for c in out]


def merge_rules(rules: Sequence[Rule]) -> list[Rule]:
    """Rules snapped to shared positions and joined where collinear ones overlap or nearly meet."""
    out: list[Rule] = []
    for horizontal in (True, False):
        same = [r for r in rules if r.horizontal == horizontal]
        positions = _clusters((r.at for r in same), SNAP)
        by_at: dict[float, list[tuple[float, float]]] = {}
        for r in same:
            i = bisect.bisect_left(positions, r.at)
            at = min(positions[max(0, i - 1) : i + 1], key=lambda p: abs(p - r.at))
            by_at.setdefault(at, []).append((r.start, r.end))
        for at, spans in by_at.items():
            spans.sort()
            start, end = spans[0]
            for s, e in spans[1:]:
                if s <= end + SNAP:
                    end = max(end, e)
                else:
                    out.append(Rule(horizontal, at, start, end))
                    start, end = s, e
            out.append(Rule(horizontal, at, start, end))
    return out


def _touch(h: Rule, v: Rule) -> bool:
    return v.start - SNAP <= h.at <= v.end + SNAP and h.start - SNAP <= v.at <= h.end + SNAP


def _groups(rules: list[Rule]) -> list[list[Rule]]:
    """Rules that touch (a horizontal one crossing or meeting a vertical one), grouped transitively."""
    parent = list(range(len(rules)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    hs = [i for i, r in enumerate(rules) if r.horizontal]
    vs = [i for i, r in enumerate(rules) if not r.horizontal]
    for i in hs:
        for j in vs:
            if _touch(rules[i], rules[j]):
                parent[find(i)] = find(j)
    groups: dict[int, list[Rule]] = {}
    for i, r in enumerate(rules):
        groups.setdefault(find(i), []).append(r)
    return list(groups.values())


def _bands(positions: list[float]) -> list[float]:
    """Grid positions without bands narrower than MIN_BAND (the second line of a double rule)."""
    out: list[float] = []
    for p in positions:
        if out and p - out[-1] < MIN_BAND:
            continue
        out.append(p)
    return out


def _covered(rules: list[Rule], horizontal: bool, at: float, lo: float, hi: float) -> bool:
    """Rules drawn along `at` cover at least COVER of the stretch lo..hi."""
    if hi <= lo:
        return True
    spans = sorted((max(lo, r.start), min(hi, r.end)) for r in rules
                   if r.horizontal == horizontal and abs(r.at - at) <= SNAP and r.end > lo and r.start < hi)
    covered, reach = 0.0, lo
    for s, e in spans:
        s = max(s, reach)
        if e > s:
            covered += e - s
            reach = e
    return covered >= COVER * (hi - lo)


def _join_lines(lines: list[str]) -> str:
    """Pieces of text (a cell's lines, a line's words) as one: beside a Japanese or Chinese character they join
    without a space, in other scripts with one."""
    text = ""
    for line in lines:
        if text and not (_CJK.match(text[-1]) or _CJK.match(line[0])):
            text += " "
        text += line
    return text


def _line_text(line: Line) -> str:
    """A line's words, joined without a space where a Japanese or Chinese character meets the next word within
    an em (「A店、」「B店」 → 「A店、B店」: PDFium's character boxes leave a gap after 「、」)."""
    text = ""
    for prev, w in zip((None, *line.words), line.words):
        if prev is not None and not ((_CJK.match(prev.text[-1]) or _CJK.match(w.text[0]))
                                     and w.x0 - prev.x1 < max(prev.size, 1.0)):
            text += " "
        text += w.text
    return text


def _cell_text(words: list[Word]) -> str:
    return _join_lines([_line_text(line) for line in lines_from_words(words)])


@dataclass
class _Grid:
    xs: list[float]
    ys: list[float]
    owner: list[list[int]]  # cell (row, column) → its merged cell's id

    def spans(self) -> dict[int, tuple[int, int, int, int]]:
        """Merged cell id → (first row, last row, first column, last column)."""
        out: dict[int, tuple[int, int, int, int]] = {}
        for r, row in enumerate(self.owner):
            for c, k in enumerate(row):
                r0, r1, c0, c1 = out.get(k, (r, r, c, c))
                out[k] = (min(r0, r), max(r1, r), min(c0, c), max(c1, c))
        return out


def _grid(group: list[Rule]) -> _Grid | None:
    hs = [r for r in group if r.horizontal]
    vs = [r for r in group if not r.horizontal]
    if not hs or not vs:
        return None
    left = min([h.start for h in hs] + [v.at for v in vs])
    right = max([h.end for h in hs] + [v.at for v in vs])
    top = min([v.start for v in vs] + [h.at for h in hs])
    bottom = max([v.end for v in vs] + [h.at for h in hs])
    xs = _bands(_clusters([left, right, *(v.at for v in vs)], SNAP))
    ys = _bands(_clusters([top, bottom, *(h.at for h in hs)], SNAP))
    rows, cols = len(ys) - 1, len(xs) - 1
    if rows < 2 or cols < 2:
        return None
    parent = list(range(rows * cols))
    # the rules along each grid line, so each cell's borders look at a few rules, not all of them
    down = [[v for v in vs if abs(v.at - x) <= SNAP] for x in xs]
    across = [[h for h in hs if abs(h.at - y) <= SNAP] for y in ys]

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for r in range(rows):
        for c in range(cols):
            if c + 1 < cols and not _covered(down[c + 1], False, xs[c + 1], ys[r], ys[r + 1]):
                parent[find(r * cols + c)] = find(r * cols + c + 1)
            if r + 1 < rows and not _covered(across[r + 1], True, ys[r + 1], xs[c], xs[c + 1]):
                parent[find(r * cols + c)] = find((r + 1) * cols + c)
    owner = [[find(r * cols + c) for c in range(cols)] for r in range(rows)]
    grid = _Grid(xs, ys, owner)
    spans = grid.spans()
    if sum(r0 == r1 and c0 == c1 for r0, r1, c0, c1 in spans.values()) < REGULAR * len(spans):
        return None
    return grid


def _split_band(cell_words: dict[int, list[Word]], ids: list[int]) -> list[dict[int, list[Word]]] | None:
    """A band whose filled cells all hold the same number (≥ 2) of lines at the same heights: rows the
    table draws no rule between (a column-ruled table); its cells split line by line. None otherwise."""
    per_cell = {k: lines_from_words(cell_words[k]) for k in ids if cell_words.get(k)}
    counts = {len(lines) for lines in per_cell.values()}
    if len(per_cell) < 2 or len(counts) != 1 or (n := counts.pop()) < 2:
        return None
    tops = list(per_cell.values())
    for i in range(n):
        mids = [(ls[i].y0 + ls[i].y1) / 2 for ls in tops]
        height = min(ls[i].y1 - ls[i].y0 for ls in tops)
        if max(mids) - min(mids) > 0.5 * height:
            return None
    return [{k: list(lines[i].words) for k, lines in per_cell.items()} for i in range(n)]


def _title(lines: list[Line], top: float, x0: float, x1: float) -> str:
    """The short line right above the table, its words over the table's width (a caption: 「表1 …」,
    "[표 1] …", "Table 2. …"), or ""."""
    above = [ln for ln in lines if ln.y1 <= top + SNAP and ln.words[0].x0 < x1 and ln.words[-1].x1 > x0]
    if not above:
        return ""
    line = max(above, key=lambda ln: ln.y1)
    text = " ".join(w.text for w in line.words if x0 - SNAP <= (w.x0 + w.x1) / 2 <= x1 + SNAP).strip()
    if not text or top - line.y1 > 2.5 * max(line.size, 1.0) or len(text) > 80 \
            or text.endswith((".", "。", ",", "、", ":", "：")):
        return ""
    return text


def _table(grid: _Grid, words: list[Word], lines: list[Line]) -> Table | None:
    xs, ys = grid.xs, grid.ys
    inside = [w for w in words
              if xs[0] <= (w.x0 + w.x1) / 2 <= xs[-1] and ys[0] <= (w.y0 + w.y1) / 2 <= ys[-1]]
    if not inside:
        return None
    cell_words: dict[int, list[Word]] = {}
    for w in inside:
        cx, cy = (w.x0 + w.x1) / 2, (w.y0 + w.y1) / 2
        c = min(max(0, sum(x <= cx for x in xs) - 1), len(xs) - 2)
        r = min(max(0, sum(y <= cy for y in ys) - 1), len(ys) - 2)
        cell_words.setdefault(grid.owner[r][c], []).append(w)
    spans = grid.spans()
    cols = len(xs) - 1
    # One output row per grid row; a cell spanning rows repeats its text in each; one spanning columns
    # stands in its first column. A band the table draws no rules through is split by its lines.
    grid_rows: list[tuple[list[str], list[str]]] = []  # (values in their first column, values across spans)
    shown: set[int] = set()
    for r, row in enumerate(grid.owner):
        ids = list(dict.fromkeys(row))
        own = [k for k in ids if spans[k][0] == spans[k][1] == r]
        split = _split_band(cell_words, own) if len(own) == len(ids) else None
        for part in split or [{k: cell_words.get(k, []) for k in ids}]:
            values, wide = [""] * cols, [""] * cols
            for k in ids:
                text = _cell_text(part.get(k, []))
                if spans[k][1] > spans[k][0] and len(text) > MAX_NAME:
                    return None  # a paragraph down a column of boxes: a form's line labels, not a row label
                values[spans[k][2]] = text
                for c in range(spans[k][2], spans[k][3] + 1):
                    wide[c] = text
            if any(values[spans[k][2]] for k in ids if k not in shown):  # a row with text of its own
                if sum(bool(v) for v in values) == 1 and len(ids) == 1 and cols > 1:
                    values = [""] * cols + [next(v for v in values if v)]  # a note across the table: unnamed
                grid_rows.append((values, wide))
        shown.update(ids)
    filled_cols = {c for values, _ in grid_rows for c, v in enumerate(values[:cols]) if v}
    if len(grid_rows) < 3 or len(filled_cols) < 2:
        return None
    # The header: the first row when its cells are words, not figures, and the row under it too when the
    # first holds a cell spanning columns (a group header over its columns).
    first = [v for v in grid_rows[0][0] if v]
    header_rows = 0
    if sum(not is_number(v) or bool(_YEAR.fullmatch(v)) for v in first) * 2 > len(first):
        header_rows = 2 if any(spans[k][3] > spans[k][2] for k in grid.owner[0]) and len(grid_rows) > 3 else 1
    names = []
    for c in range(cols):
        parts: list[str] = []
        for _, wide in grid_rows[:header_rows]:
            if wide[c] and wide[c] not in parts:
                parts.append(wide[c])
        names.append(" › ".join(parts))
    if any(len(name) > MAX_NAME for name in names):
        return None  # a paragraph over the boxes: a form's instructions, not a column's name
    body = tuple(tuple(values) for values, _ in grid_rows[header_rows:])
    source = tuple(_line_text(line) for line in lines_from_words(inside))
    head = tuple(tuple(values) for values, _ in grid_rows[:header_rows])
    return Table(_title(lines, ys[0], xs[0], xs[-1]), tuple(names), body, source, drawn=True, columns=tuple(xs),
                 head=head)


Box = tuple[float, float, float, float]  # x0, y0, x1, y1 (y down)
SAME_COLUMN = 3.0  # points: column boundaries this close on two pages are the same table's


def continued(previous: Table, table: Table) -> Table:
    """`table`, the first drawn table of a page, read as the rest of `previous`, the last drawn table of the page
    before, when it has the same columns and no caption of its own: a header it repeats stays its header, a
    first row that is not that header is data under `previous`' header and title."""
    if not (previous.drawn and table.drawn and not table.title and len(previous.columns) == len(table.columns)
            and all(abs(a - b) <= SAME_COLUMN for a, b in zip(previous.columns, table.columns, strict=True))):
        return table
    if table.header == previous.header:
        return replace(table, title=previous.title)
    return replace(table, title=previous.title, header=previous.header, rows=table.head + table.rows, head=())


def grids(rules: Sequence[Rule]) -> list[_Grid]:
    """The grids the rules cut (at least two columns and two rows, cells mostly unmerged)."""
    if len(rules) > MAX_RULES:
        return []
    merged = merge_rules(rules)
    horizontal = sum(r.horizontal for r in merged)
    if horizontal * (len(merged) - horizontal) > MAX_PAIRS:
        return []  # a drawing (a map, a plan): grouping its lines would cost seconds a page
    return [g for group in _groups(merged) if (g := _grid(group)) is not None]


def ruled_tables(found: Sequence[_Grid], words: Sequence[Word]) -> list[tuple[Box, Table]]:
    """The tables of the grids (`grids`), top to bottom, each with its box: a grid with at least three rows
    (a header and two) with text in two columns or more."""
    if not found:
        return []
    all_lines = lines_from_words(list(words))
    out = [((g.xs[0], g.ys[0], g.xs[-1], g.ys[-1]), t) for g in found
           if (t := _table(g, list(words), all_lines)) is not None]
    return sorted(out, key=lambda f: f[0][1])
