"""Tables in grids of cells (CSV records, Excel sheets): title rows, the header row, data rows and notes.

Pure and streaming: rows come in as (row number, cells) and lines go out as they are decided, so a sheet
of a million rows is never held as cells. A grid may hold several tables one under another, separated by
blank rows, each with its own title rows ("Financial performance") above its header row:

- a block (rows between blank rows) that opens with a row of a single cell, when the grid is wider than one
  column, starts a new table: its single-cell rows are the table's title, the next row its header;
- a block that opens with the current header again starts a new table under the same title;
- any other block goes on with the current table (a blank row inside a table does not end it);
- a block of single cells under a table of several columns is notes, kept as plain lines.

The first table's header is the first row after its title rows, unless that row is mostly numbers (then the
table has no header and its values are shown unnamed).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from kotae.types import Section

__all__ = ["LOOKAHEAD", "Line", "grid_lines", "page_of", "render_row"]

LOOKAHEAD = 8  # rows of a block read before deciding what it is
_NUMBER = re.compile(r"[-+(]?[¥$€£]?\s*[\d,]*\.?\d+\s*%?\)?|\d{4}[-/]\d{1,2}[-/]\d{1,2}([ T][\d:.]+)?")
_CELL_BREAK = re.compile(r"\s*\n\s*")


@dataclass(frozen=True)
class Line:
    """One line of the page: a data row rendered "column: value | …" (kind "rows") or a note ("text")."""

    number: int  # the row it came from (the reader's numbering)
    text: str
    kind: str  # "rows" | "text"
    title: str = ""  # the title of the table it belongs to ("" when none)
    header_number: int = 0  # the row number of its table's header (0: no header row)


def render_row(header: list[str], values: list[str]) -> str:
    """One row as "column: value | column: value"; empty values are skipped, unnamed columns show the value."""
    parts = []
    for i, value in enumerate(values):
        value = _CELL_BREAK.sub(" ", value.strip())
        if not value:
            continue
        name = _CELL_BREAK.sub(" ", header[i].strip()) if i < len(header) else ""
        parts.append(f"{name}: {value}" if name else value)
    return " | ".join(parts)


def _filled(cells: list[str]) -> int:
    return sum(1 for c in cells if c.strip())


def numeric(cell: str) -> bool:
    """Whether a table cell is a number, an amount, a percentage or a date (what a header row never holds)."""
    return bool(_NUMBER.fullmatch(cell.strip()))


def _textual(cells: list[str]) -> bool:
    """A header candidate: most of its non-empty cells are not numbers."""
    values = [c for c in cells if c.strip()]
    return bool(values) and sum(not numeric(c) for c in values) * 2 > len(values)


class _Tables:
    """The current table (title, header) while a grid streams by."""

    def __init__(self) -> None:
        self.header: list[str] | None = None
        self.header_number = 0
        self.title = ""
        self.pending: list[tuple[int, list[str]]] = []

    def row(self, number: int, cells: list[str]) -> Line | None:
        text = render_row(self.header or [], cells)
        return Line(number, text, "rows", self.title, self.header_number) if text else None

    def block(self, rows: list[tuple[int, list[str]]], last: bool = False) -> Iterator[Line]:
        """Decide what the opening rows of a block are; yield their lines."""
        wide = max(_filled(c) for _, c in rows)
        named = _filled(self.header) if self.header is not None else 0
        if wide == 1 and len(rows) <= 2 and named != 1 and not last:
            self.pending += rows  # a title above a blank row: the next block decides
            return
        first = rows[0][1]
        repeated = self.header is not None and [c.strip() for c in first] == [c.strip() for c in self.header]
        opens_table = (self.header is None or repeated or (wide >= 2 and _filled(first) == 1)
                       or (bool(self.pending) and _filled(first) >= 2 and _textual(first)))
        if not opens_table:
            yield from self.flush()
            if wide == 1 and named >= 2:  # notes under a table
                yield from (Line(n, _joined(c), "text", self.title) for n, c in rows)
            else:
                yield from (line for n, c in rows if (line := self.row(n, c)) is not None)
            return
        i, titles = 0, [_joined(c) for _, c in self.pending]
        self.pending = []
        if not repeated:
            while i < len(rows) and wide >= 2 and _filled(rows[i][1]) == 1:
                titles.append(_joined(rows[i][1]))
                i += 1
        if i == len(rows):  # only title-like rows: notes, the table (if any) goes on
            yield from (Line(n, _joined(c), "text", self.title) for n, c in rows)
            return
        if not repeated or titles:
            self.title = " ".join(titles)
        number, cells = rows[i]
        following = rows[i + 1][1] if i + 1 < len(rows) else None
        if _textual(cells) or (following is not None and _textual(following)):  # numbers over words: still names
            self.header, self.header_number = cells, number
            i += 1
            if following is not None and _subheader(cells, following):
                self.header, self.header_number = _combined(cells, following), rows[i][0]
                i += 1
        else:
            self.header, self.header_number = [], 0
        for n, c in rows[i:]:
            line = self.row(n, c)
            if line is not None:
                yield line

    def flush(self) -> Iterator[Line]:
        """Rows held as a possible title that no table followed: notes."""
        rows, self.pending = self.pending, []
        yield from (Line(n, _joined(c), "text", self.title) for n, c in rows)

    def finish(self) -> Iterator[Line]:
        if len(self.pending) > 1 and self.header is None:  # a tiny one-column grid: a header and its rows
            rows, self.pending = self.pending, []
            yield from self.block(rows, last=True)
        yield from self.flush()


def _subheader(header: list[str], row: list[str]) -> bool:
    """A second header row: words only, blank under the header's first column, and naming at least one column
    the header row left blank (",,,,Accuracy,Time to complete" under "…,Results,")."""
    first = next((i for i, c in enumerate(header) if c.strip()), 0)
    values = [c for c in row if c.strip()]
    if not values or any(numeric(c) for c in values) or (first < len(row) and row[first].strip()):
        return False
    return any(c.strip() and (i >= len(header) or not header[i].strip()) for i, c in enumerate(row))


def _combined(header: list[str], sub: list[str]) -> list[str]:
    """Column names of a two-row header: a name spans the blank cells to its right that the second row names."""
    out, parent = [], ""
    for i in range(max(len(header), len(sub))):
        top = header[i].strip() if i < len(header) else ""
        low = sub[i].strip() if i < len(sub) else ""
        if top:
            parent = top
            out.append(f"{top} {low}".strip())
        else:
            out.append(f"{parent} {low}".strip() if low else "")
    return out


def _joined(cells: list[str]) -> str:
    return " ".join(" ".join(c.split()) for c in cells if c.strip())


def grid_lines(rows: Iterable[tuple[int, list[str]]], lookahead: int = LOOKAHEAD) -> Iterator[Line]:
    """The lines of a grid, decided block by block (see the module docstring); empty rows are skipped."""
    tables = _Tables()
    opening: list[tuple[int, list[str]]] = []
    decided = False
    for number, cells in rows:
        if not _filled(cells):
            if opening:
                yield from tables.block(opening)
            opening, decided = [], False
            continue
        if decided:
            line = tables.row(number, cells)
            if line is not None:
                yield line
            continue
        opening.append((number, cells))
        if len(opening) >= lookahead:
            yield from tables.block(opening)
            opening, decided = [], True
    if opening:
        yield from tables.block(opening)
    yield from tables.finish()


def page_of(lines: Iterable[Line], page: int, heading: tuple[str, ...] = (),
            rows: str = "grid") -> tuple[str, list[Section]]:
    """A page's text (one line each) and its sections: one per data row (kind "rows") or note ("text"),
    under `heading` plus the table's title. `rows`: "grid" numbers rows as the grid does (Excel row
    numbers); "data" counts from the table's header row (CSV: data row 1 is the row after the header)."""
    parts: list[str] = []
    sections: list[Section] = []
    offset = 0
    for line in lines:
        path = heading + ((line.title,) if line.title and line.title not in heading else ())
        number = line.number - line.header_number if rows == "data" else line.number
        kind = line.kind
        sections.append(Section(page, path, line.text, offset, rows=(number, number) if kind == "rows" else None,
                                kind=kind))
        parts.append(line.text)
        offset += len(line.text) + 1
    return "\n".join(parts), sections
