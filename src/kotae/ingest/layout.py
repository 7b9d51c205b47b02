"""Turn a reader's blocks (lines, paragraphs, tables) into page texts and the sections that tile them.

Every reader that has headings goes through `assemble`, so the offset invariant
`pages[s.page - 1][s.start:s.start + len(s.text)] == s.text` is enforced in one place.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from kotae.ingest.headings import Heading, push
from kotae.types import Section


@dataclass(frozen=True)
class Block:
    """One unit of a page: a line, a paragraph or a rendered table (no trailing newline)."""

    text: str
    page: int = 1
    heading: Heading | None = None  # set when this block is a heading: (level, label)
    kind: str = "text"  # "text" | "table"


def _trimmed(page_text: str, start: int, end: int) -> tuple[int, str]:
    raw = page_text[start:end]
    lead = len(raw) - len(raw.lstrip())
    return start + lead, raw.strip()


def assemble(blocks: Iterable[Block], page_count: int = 1) -> tuple[list[str], list[Section]]:
    """Join blocks into page texts (one "\\n" between blocks) and cut sections.

    A section starts at each heading block (the heading is part of its text), at each table,
    after a table, and at the top of each page; the heading path carries over page breaks.
    Sections are trimmed of surrounding whitespace and empty ones are dropped.
    """
    by_page: dict[int, list[Block]] = {}
    for block in blocks:
        by_page.setdefault(block.page, []).append(block)
    page_count = max([page_count, *by_page])
    pages: list[str] = []
    sections: list[Section] = []
    stack: list[Heading] = []
    for page in range(1, page_count + 1):
        parts: list[str] = []
        cuts: list[tuple[int, tuple[str, ...], str]] = []  # (offset, heading path, kind)
        offset = 0
        previous_kind = ""
        for i, block in enumerate(by_page.get(page, [])):
            if block.heading is not None:
                stack = push(stack, block.heading)
            if i == 0 or block.heading is not None or block.kind == "table" or previous_kind == "table":
                cuts.append((offset, tuple(label for _, label in stack), block.kind))
            parts.append(block.text)
            offset += len(block.text) + 1
            previous_kind = block.kind
        text = "\n".join(parts)
        pages.append(text)
        ends = [c[0] for c in cuts[1:]] + [len(text)]
        for (start, path, kind), end in zip(cuts, ends):
            at, body = _trimmed(text, start, end)
            if body:
                sections.append(Section(page=page, heading=path, text=body, start=at, kind=kind))
    return pages, sections


def sections_from_lines(
    pages: list[str], classify: Callable[[list[str]], list[Heading | None]]
) -> list[Section]:
    """Sections for finished page texts whose lines are classified by `classify(lines)`.

    Page texts are not changed: blocks are their lines, so offsets point into `pages` as given.
    """
    return sections_from_headings(pages, [classify(page.split("\n")) for page in pages])


def sections_from_headings(pages: list[str], headings: list[list[Heading | None]]) -> list[Section]:
    """Sections for finished page texts given each page's line headings (one entry per "\n"-split line)."""
    blocks = []
    for number, (page, found) in enumerate(zip(pages, headings), start=1):
        for line, heading in zip(page.split("\n"), found):
            blocks.append(Block(text=line, page=number, heading=heading))
    rebuilt, sections = assemble(blocks, page_count=len(pages))
    assert rebuilt == list(pages)
    return sections


def clip_sections(sections: Iterable[Section], pages: list[str]) -> list[Section]:
    """Keep the parts of sections that still lie inside `pages` after the pages were shortened."""
    kept = []
    for s in sections:
        page = pages[s.page - 1]
        if s.start >= len(page):
            continue
        text = page[s.start : s.start + len(s.text)].rstrip()
        if text:
            kept.append(Section(s.page, s.heading, text, s.start, s.rows, s.kind))
    return kept
