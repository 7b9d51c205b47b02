"""Plain text and Markdown readers: one page; sections split at headings; Markdown's pipe tables read as rows."""

from __future__ import annotations

import re

from kotae.ingest.clean import clean_plain_text
from kotae.ingest.encoding import decode_lenient
from kotae.ingest.grid import numeric
from kotae.ingest.headings import Heading, classify_lines
from kotae.ingest.layout import Block, assemble, sections_from_lines
from kotae.ingest.limits import break_long_lines
from kotae.ingest.registry import register
from kotae.ingest.tables import render_table
from kotae.types import ParsedDocument, Section

_ATX = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))??(?:[ \t]+#+)?[ \t]*")
_SETEXT = re.compile(r" {0,3}(=+|-+)[ \t]*")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")


def _code_lines(lines: list[str]) -> list[bool]:
    """True for the lines of fenced code blocks (fences included) and of YAML front matter."""
    code, fence = [], ""
    for line in lines:
        m = _FENCE.match(line)
        if fence:
            code.append(True)
            if (
                m
                and m.group(1)[0] == fence[0]
                and len(m.group(1)) >= len(fence)
                and not line[m.end() :].strip()
            ):
                fence = ""
        else:
            code.append(bool(m))
            fence = m.group(1) if m else ""
    if lines and lines[0].strip() == "---":  # YAML front matter is not a setext heading
        end = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), 0)
        code[: end + 1] = [True] * (end + 1)
    return code


def markdown_headings(lines: list[str]) -> list[Heading | None]:
    """(level, title) for ATX ("## Title") and setext (Title / ====) heading lines, else None.

    Lines inside fenced code blocks are never headings. A setext heading starts at its text line.
    """
    code = _code_lines(lines)
    found: list[Heading | None] = [None] * len(lines)
    for i, line in enumerate(lines):
        if code[i]:
            continue
        atx = _ATX.fullmatch(line)
        if atx:
            if atx.group(2):
                found[i] = (len(atx.group(1)), atx.group(2).strip())
            continue
        under = _SETEXT.fullmatch(lines[i + 1]) if i + 1 < len(lines) and not code[i + 1] else None
        if under and line.strip() and not _SETEXT.fullmatch(line) and not line.startswith(("    ", "\t")):
            found[i] = (1 if under.group(1)[0] == "=" else 2, line.strip())
    return found


# GitHub-flavoured Markdown tables: a header row and a delimiter row (| --- | :-: |), then body rows, all with pipes
_DELIMITER = re.compile(r" {0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*(?:\|[ \t]*)?")
_PIPE = re.compile(r"(?<!\\)\|")
_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")
_STRONG = re.compile(r"^(\*\*|__)(.+)\1$")


def _cells(line: str) -> list[str]:
    """A table row's cells: split at unescaped pipes (the outer ones optional), escapes undone, a cell that is all
    bold (**Feature**) unwrapped."""
    line = line.strip()
    line = line.removeprefix("|")
    line = line[:-1] if line.endswith("|") and not line.endswith("\\|") else line
    out = []
    for cell in _PIPE.split(line):
        cell = _ESCAPED.sub(r"\1", cell.strip())
        bold = _STRONG.match(cell)
        out.append(bold.group(2).strip() if bold else cell)
    return out


def pipe_tables(lines: list[str], code: list[bool]) -> list[tuple[int, int, list[list[str]]]]:
    """(first line, end line, rows with the header first) of each pipe table outside code blocks: a row with a pipe
    over a delimiter row of as many cells, and the rows with a pipe that follow."""
    found: list[tuple[int, int, list[list[str]]]] = []
    i = 0
    while i + 1 < len(lines):
        head, under = lines[i], lines[i + 1]
        if (not code[i] and not code[i + 1] and "|" in head and "|" in under and _DELIMITER.fullmatch(under)
                and len(_cells(head)) == len(_cells(under))):
            end = i + 2
            while end < len(lines) and not code[end] and "|" in lines[end] and lines[end].strip():
                end += 1
            found.append((i, end, [_cells(line) for k, line in enumerate(lines[i:end]) if k != 1]))
            i = end
        else:
            i += 1
    return found


def _headed(rows: list[list[str]]) -> list[list[str]]:
    """The rows with a second header row folded into the first: a row of words only that repeats a cell of the
    header (a Markdown table can only print a two-row header so: "| # layers | TEDs | TEDs |" over
    "| # layers | simple | complex |") names its columns "TEDs simple", "TEDs complex"."""
    if len(rows) < 3:
        return rows
    header, second = rows[0], rows[1]
    values = [c for c in second if c.strip()]
    if not values or any(map(numeric, values)) or not any(
            a.strip() and a.strip() == b.strip() for a, b in zip(header, second, strict=False)):
        return rows
    names = [a if not b.strip() or b.strip() == a.strip() else f"{a} {b}".strip()
             for a, b in zip(header, [*second, *[""] * (len(header) - len(second))], strict=False)]
    return [names, *rows[2:]]


def _markdown_sections(text: str) -> tuple[list[str], list[Section]]:
    """Page text and sections of a Markdown text as its reader sees it: pipe tables rendered as "column: value" rows,
    backslash escapes undone outside code blocks (QIBM\\_DB → QIBM_DB)."""
    lines = text.split("\n")
    code = _code_lines(lines)
    found = markdown_headings(lines)

    def block(k: int) -> Block:
        heading = found[k]
        if code[k]:
            return Block(lines[k], heading=heading)
        return Block(_ESCAPED.sub(r"\1", lines[k]),
                     heading=(heading[0], _ESCAPED.sub(r"\1", heading[1])) if heading else None)

    blocks: list[Block] = []
    at = 0
    for start, end, rows in pipe_tables(lines, code):
        blocks += [block(k) for k in range(at, start)]
        blocks.append(Block(break_long_lines(render_table(_headed(rows))), kind="table"))
        at = end
    blocks += [block(k) for k in range(at, len(lines))]
    pages, sections = assemble(blocks)
    return pages, sections


def _uncommented(text: str) -> str:
    """`text` without its `<!-- … -->` spans, in one pass (a regex retried at every unclosed `<!--` is quadratic);
    an unclosed comment is kept as text."""
    out: list[str] = []
    at = 0
    while (start := text.find("<!--", at)) >= 0 and (end := text.find("-->", start + 4)) >= 0:
        out.append(text[at:start])
        at = end + 3
    out.append(text[at:])
    return "".join(out)


def drop_comments(text: str) -> str:
    """Markdown's HTML comments (`<!-- image -->`, notes to editors) removed outside code blocks: a reader of the
    rendered page never sees them, so they are no evidence and no answer."""
    lines = text.split("\n")
    out: list[str] = []
    run: list[str] = []
    for line, code in zip(lines, _code_lines(lines), strict=True):
        if not code:
            run.append(line)
            continue
        if run:
            out.append(_uncommented("\n".join(run)))
            run = []
        out.append(line)
    if run:
        out.append(_uncommented("\n".join(run)))
    return "\n".join(out)


def _read(path: str, data: bytes, kind: str) -> ParsedDocument:
    decoded, notes = decode_lenient(path, data)
    if kind == "markdown":
        decoded = drop_comments(decoded)
    text = break_long_lines(clean_plain_text(decoded).strip("\n"))
    if kind == "markdown":
        pages, sections = _markdown_sections(text)
        text = pages[0]
    else:
        sections = sections_from_lines([text], classify_lines)
    title = next((s.heading[0] for s in sections if s.heading), "") if kind == "markdown" else ""
    warnings = notes if text.strip() else (*notes, "the file has no text")
    return ParsedDocument(
        path=path, kind=kind, pages=(text,), sections=tuple(sections), warnings=warnings, title=title
    )


@register("text", extensions=(".txt",))
def read_text(path: str, data: bytes) -> ParsedDocument:
    """Read plain text; headings are found as in PDFs (第N条, "1.2 Scope", ALL-CAPS titles)."""
    return _read(path, data, "text")


@register("markdown", extensions=(".md", ".markdown"))
def read_markdown(path: str, data: bytes) -> ParsedDocument:
    """Read Markdown; ATX and setext headings give the heading path by level."""
    return _read(path, data, "markdown")
