"""Structure: sections turned into units (sentences, pieces, rows) and grouped into runs.

A run is what chunks may span: one section, tiny sections merged into a neighbour on their page, or
consecutive rows of one table (one page and heading). Chunks never cross a run's edges.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kotae.chunking.pieces import split_long
from kotae.chunking.sentences import split_sentences
from kotae.errors import DocumentError
from kotae.types import ParsedDocument, Section

Counter = Callable[[str], int]


@dataclass(frozen=True)
class Unit:
    """A sentence (or a piece of one, or a CSV row) at page offsets, with its cost less the overhead."""

    start: int
    end: int
    cost: int
    section: int  # index into its run's sections
    rows: tuple[int, int] | None = None


@dataclass
class Run:
    """Sections that chunks may span: one section, tiny ones merged in, or consecutive CSV rows."""

    page: int
    kind: str
    sections: list[Section]
    units: list[Unit]

    def cost(self, overhead: int) -> int:
        return overhead + sum(u.cost for u in self.units)

    def absorb(self, other: Run) -> None:
        base = len(self.sections)
        self.sections.extend(other.sections)
        self.units.extend(Unit(u.start, u.end, u.cost, u.section + base, u.rows) for u in other.units)


def section_units(
    page_text: str, sec: Section, index: int, count: Counter, overhead: int, max_tokens: int
) -> list[Unit]:
    """A section's sentences (a row's text, for CSV), each cut into pieces if over `max_tokens`."""
    if sec.kind == "rows":
        lead = len(sec.text) - len(sec.text.lstrip())
        spans = [(sec.start + lead, sec.start + len(sec.text.rstrip()))]
    else:
        spans = [(sec.start + s, sec.start + e) for s, e in split_sentences(sec.text)]
    units = []
    for s, e in spans:
        for ps, pe, cost in split_long(page_text, s, e, count, max_tokens):
            units.append(Unit(ps, pe, max(1, cost - overhead), index, sec.rows))
    return units


def _check_section(doc: ParsedDocument, sec: Section) -> None:
    if not 1 <= sec.page <= len(doc.pages):
        raise DocumentError(
            doc.path,
            f"a section is on page {sec.page} of {len(doc.pages)}",
            "this is a bug in the reader; please report it",
        )
    page = doc.pages[sec.page - 1]
    if page[sec.start : sec.start + len(sec.text)] != sec.text:
        raise DocumentError(
            doc.path,
            f"page {sec.page}: section text does not match the page text at offset {sec.start}",
            "this is a bug in the reader; please report it",
        )


def build_runs(
    doc: ParsedDocument, count: Counter, overhead: int, max_tokens: int, min_tokens: int
) -> list[Run]:
    """Sections grouped into runs: tiny text sections merged into a neighbour on their page, rows grouped."""
    runs: list[Run] = []
    page_first = 0  # index in `runs` of the first run on the current page
    for sec in doc.sections:
        _check_section(doc, sec)
        if not sec.text.strip():
            continue
        page_text = doc.pages[sec.page - 1]
        kind = "rows" if sec.kind == "rows" else "text"
        if runs and runs[-1].page != sec.page:
            _settle_page(runs, page_first, overhead, min_tokens)
            page_first = len(runs)
        last = runs[-1] if len(runs) > page_first else None
        if last is not None and last.kind == kind and _joins(last, sec, overhead, min_tokens):
            last.sections.append(sec)
            index = len(last.sections) - 1
            last.units.extend(section_units(page_text, sec, index, count, overhead, max_tokens))
        else:
            units = section_units(page_text, sec, 0, count, overhead, max_tokens)
            runs.append(Run(sec.page, kind, [sec], units))
    _settle_page(runs, page_first, overhead, min_tokens)
    return runs


def _joins(last: Run, sec: Section, overhead: int, min_tokens: int) -> bool:
    """Rows join the rows before them under the same heading while the row numbers go on (a table's rows
    are numbered from its start: a number that does not grow begins another table, which gets its own
    chunks); text joins a run still under min_tokens."""
    if last.kind == "rows":
        before = last.sections[-1]
        goes_on = before.rows is None or sec.rows is None or sec.rows[0] > before.rows[1]
        return before.heading == sec.heading and goes_on
    return last.cost(overhead) < min_tokens


def _settle_page(runs: list[Run], page_first: int, overhead: int, min_tokens: int) -> None:
    """A tiny text run left last on its page merges into the previous text run on that page."""
    if len(runs) - page_first < 2:
        return
    last, prev = runs[-1], runs[-2]
    if last.kind == prev.kind == "text" and last.cost(overhead) < min_tokens:
        prev.absorb(last)
        runs.pop()
