"""PDF tables in the page text: word boxes from PDFium (only on pages that look like they hold a table),
each table's lines in the page text replaced by its rows, and the rows cut into "rows" sections.

The reader calls `read_tables` while the document is open, then `place_tables` on the cleaned page
texts and `row_sections` on the sections found in them.
"""

from __future__ import annotations

import ctypes
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

import pypdfium2 as pdfium  # type: ignore[import-untyped]
import pypdfium2.raw as pdfium_c  # type: ignore[import-untyped]

from kotae.ingest.clean import join_surrogates, running_keys
from kotae.ingest.headings import is_caption
from kotae.ingest.pdf_ruled import CJK, continued, grids, ruled_tables
from kotae.ingest.pdf_rules import page_rules
from kotae.ingest.pdf_tables import Table, Word, find_tables, lines_from_words
from kotae.types import Section

PRESENT = 0.5  # a drawn table is matched character by character only when this share of its words is on the page
CANDIDATE_LINES = 3  # a page needs this many lines with two figures before its boxes are read
_FIGURE = re.compile(r"(?<![\w.])\(?\$?\d[\d,.]*\)?%?(?![\w])")
_SPACE = re.compile(r"\s+")
_CURRENCY = {"$", "€", "£", "¥"}
_OPENING = set("([{")
_LOW = set("_‗＿")
# a line of running text that ends a sentence: eight words or more, or twenty characters of Japanese ending in 。
_PROSE = re.compile(r"^(?:\S+\s+){7,}\S*[.:]\s*$|^.{19,}[。：]\s*$")


def looks_tabular(text: str) -> bool:
    """Cheap test on the raw text: at least CANDIDATE_LINES lines holding two or more figures."""
    count = 0
    for line in text.split("\n"):
        if len(_FIGURE.findall(line)) >= 2:
            count += 1
            if count >= CANDIDATE_LINES:
                return True
    return False


def page_words(textpage: pdfium.PdfTextPage, height: float, rotated: list[Word] | None = None) -> list[Word]:
    """The page's words with their boxes (top-left origin), split at spaces and at jumps between glyphs. Rotated
    text is no row's; when `rotated` is given, its runs go there (a drawn table's turned column names)."""
    raw = textpage.raw
    turned: list[str] = []
    turned_box: list[float] = []

    def flush_turned() -> None:
        if turned and rotated is not None and "".join(turned).strip():
            rotated.append(Word(join_surrogates("".join(turned).strip()), turned_box[0], height - turned_box[3],
                                turned_box[2], height - turned_box[1], max(1.0, turned_box[2] - turned_box[0])))
        turned.clear()

    left, right, bottom, top = (ctypes.c_double() for _ in range(4))
    refs = [ctypes.byref(v) for v in (left, right, bottom, top)]
    words: list[Word] = []
    text: list[str] = []
    box: list[float] = []
    size = 0.0

    def flush() -> None:
        if text:
            # a character outside the BMP comes as two UTF-16 halves, one per index: joined here, in the word
            words.append(Word(join_surrogates("".join(text)), box[0], height - box[3], box[2], height - box[1], size))
            text.clear()

    seen: set[tuple[str, int, int]] = set()
    for i in range(pdfium_c.FPDFText_CountChars(raw)):
        ch = chr(pdfium_c.FPDFText_GetUnicode(raw, i) or 32)
        if ch.isspace() or ch < " " or not pdfium_c.FPDFText_GetCharBox(raw, i, *refs):
            flush()
            if ch == " " and turned:
                turned.append(ch)  # a turned line is one word: its words' boxes do not share a row
            else:
                flush_turned()
            continue
        x0, x1, y0, y1 = left.value, right.value, bottom.value, top.value
        if abs(math.sin(pdfium_c.FPDFText_GetCharAngle(raw, i))) > 0.1:  # rotated text is no row
            flush()
            if turned and (x0 > turned_box[2] + 2 or x1 < turned_box[0] - 2):
                flush_turned()  # the next turned line
            turned_box = [x0, y0, x1, y1] if not turned else [min(turned_box[0], x0), min(turned_box[1], y0),
                                                                max(turned_box[2], x1), max(turned_box[3], y1)]
            turned.append(ch)
            continue
        flush_turned()
        key = (ch, round(2 * x0), round(2 * y0))
        if key in seen:  # the same glyph drawn again on itself (a bold effect): read once
            continue
        seen.add(key)
        if text:
            em = max(size, 1.0)
            below = ch in _LOW and x0 - box[2] <= 0.6 * em  # an underscore sits under the line's box
            if x0 - box[2] > 0.6 * em or x0 < box[0] - 0.5 * em or (not below and (y0 > box[3] or y1 < box[1])):
                flush()
        if not text or set(text) <= _OPENING:
            # Some writers scale the text matrix, not the font: PDFium then reports size 1; the glyph says more
            # (a bracket's glyph is taller than the text: the size is read from the next character).
            size = max(pdfium_c.FPDFText_GetFontSize(raw, i), 1.4 * (y1 - y0))
        if not text:
            box = [x0, y0, x1, y1]
        else:
            box = [min(box[0], x0), min(box[1], y0), max(box[2], x1), max(box[3], y1)]
        text.append(ch)
    flush()
    flush_turned()
    return words


def read_tables(pdf: pdfium.PdfDocument, index: int, text: str | None) -> list[Table]:
    """The tables on page `index` (0-based): drawn grids (kotae.ingest.pdf_ruled), then, when the text looks
    tabular, tables found in its words' alignment (kotae.ingest.pdf_tables)."""
    if not text:
        return []
    try:
        page = pdf[index]
    except pdfium.PdfiumError:
        return []
    try:
        drawn = grids(page_rules(page))
        tabular = looks_tabular(text)
        if not tabular and not drawn:
            return []
        textpage = page.get_textpage()
        turned: list[Word] = []
        try:
            words = page_words(textpage, page.get_height(), turned if drawn else None)
        finally:
            textpage.close()
    except pdfium.PdfiumError:
        return []
    finally:
        page.close()
    ruled = [table for _, table in ruled_tables(drawn, words + turned)]
    # Tables found in the words' alignment come after the drawn ones: where a drawn table was placed in the
    # text, one found over the same words is skipped (place_tables), where it was not, that one stands.
    return ruled + (find_tables(lines_from_words(words)) if tabular else [])


def across_pages(tables: dict[int, list[Table]]) -> dict[int, list[Table]]:
    """The tables of each page (1-based), a drawn table that goes on from the page before read as its rest
    (kotae.ingest.pdf_ruled.continued): its rows under the first part's header and title."""
    out = {n: list(found) for n, found in tables.items()}
    for n in sorted(out):
        before = [t for t in out.get(n - 1, []) if t.drawn]
        first = next((i for i, t in enumerate(out[n]) if t.drawn), None)
        if before and first is not None:
            out[n][first] = continued(before[-1], out[n][first])
    return out


@dataclass(frozen=True)
class Placed:
    """A table's rows in a page's text: (start, end) of each row line, and the table's title."""

    page: int
    title: str
    rows: tuple[tuple[int, int], ...]


_ATOM = re.compile(f"[{CJK}]|[^\\s{CJK}]+")


_CHAR = re.compile(r"\S")


def _tokens(text: str, chars: bool = False) -> list[tuple[str, int, int]]:
    """The text's words, a Japanese or Chinese character each its own (so 「月額2, 999円」 and 「月額2, 999円毎月」
    split alike, however the text layer or OCR spaced them), with their offsets; with `chars`, every character."""
    return [(m.group(), m.start(), m.end()) for m in (_CHAR if chars else _ATOM).finditer(text)]


def _span(page: str, table: Table, chars: bool = False) -> tuple[int, int] | None:
    """Where the table's lines lie in the page text: the shortest stretch that starts with a word of its
    first line (or of its second, on a text line that holds the first's), ends with a word of its last,
    and holds nearly all of its words (in any order: the text layer may order a header's lines
    otherwise); None when no stretch does."""
    tokens = [t for t in _tokens(page, chars) if t[0] not in _CURRENCY]
    lines = [[w for w, _, _ in _tokens(line, chars) if w not in _CURRENCY] for line in table.source]
    want = Counter(w for line in lines for w in line)
    size = sum(want.values())
    if size < 4:
        return None
    first, second, last = set(lines[0]), set(lines[1]) if len(lines) > 1 else set(), set(lines[-1])

    def opens(word: str, at: int) -> bool:
        # a two-row header's rows may come as one line of the text, the lower row's words first
        end = page.find("\n", at)
        return word in first or (word in second and bool(
            first & {w for w, _, _ in _tokens(page[at : end if end >= 0 else None], chars)}))

    starts = [i for i, (word, at, _) in enumerate(tokens)
              if opens(word, at) and not page[page.rfind("\n", 0, at) + 1 : at].strip(" \t\r" + "".join(_CURRENCY))]
    # a table begins a line of the text: a word of its header inside a caption ("… higher mAP score") is
    # no start, unless no line starts with one
    span = _best_span(tokens, want, size, last, starts) or (None if chars else _best_span(
        tokens, want, size, last, [i for i, t in enumerate(tokens) if t[0] in first]))
    if span is None or not table.drawn:
        return span
    # a drawn table never ends inside a line on its own words (a header read twice leaves its last cells surplus)
    end = span[1]
    for word, at, stop in tokens:
        if at < end:
            continue
        if "\n" in page[end:at] or word not in want:
            break
        end = stop
    return span[0], end


def _best_span(tokens: list[tuple[str, int, int]], want: Counter[str], size: int, last: set[str],
               starts: list[int]) -> tuple[int, int] | None:
    best: tuple[int, int, int] | None = None  # (matched, start, end)
    for i in starts:
        have: Counter[str] = Counter()
        matched = 0
        for j in range(i, min(len(tokens), i + int(1.3 * size) + 1)):
            w = tokens[j][0]
            if have[w] < want[w]:
                matched += 1
            have[w] += 1
            if w in last and matched >= 0.8 * size and (best is None or matched > best[0] or (
                    matched == best[0] and j - i < best[2] - best[1])):  # as many words in fewer: no text around
                best = (matched, i, j)
    if best is None:
        return None
    return tokens[best[1]][1], tokens[best[2]][2]


def place_tables(pages: Sequence[str], tables: dict[int, list[Table]],
                 running: set[str] | None = None) -> tuple[list[str], list[Placed]]:
    """Page texts with each found table's lines replaced by its rows (one line each); a table whose
    lines cannot be found in the text is left as the text has it, unless they can once its first and last
    lines that are running lines the cleaning took out (`running`) are left aside, or, for a drawn table, once
    its header line is (its body is replaced, the header line stays where the text has it)."""
    out = list(pages)
    placed: list[Placed] = []
    for number, found in sorted(tables.items()):
        text = out[number - 1]
        for table in found:
            lines = table.lines()
            span = _placement(text, table, running, [k for k in placed if k.page == number])
            if span is None or not lines:
                continue
            body = "\n".join(_SPACE.sub(" ", line) for line in lines)
            before, after = text[: span[0]], text[span[1] :]
            if (caption := _caption_end(before, table.title)) is not None and not any(
                    k.page == number and caption <= k.rows[0][0] < span[0] for k in placed):
                # the text layer gave the table after the prose below it: its rows go under its caption
                rest = after.lstrip("\n")
                before, after = before[:caption], before[caption:].rstrip("\n") + ("\n" + rest if rest else "")
            if before and not before.endswith("\n"):
                before += "\n"
            if after and not after.startswith("\n"):
                after = "\n" + after
            old, text = text, before + body + after
            offsets, at = [], len(before)
            for line in body.split("\n"):
                offsets.append((at, at + len(line)))
                at += len(line) + 1
            delta = len(text) - len(old)
            placed = [_shifted(k, number, span, delta) for k in placed]
            placed.append(Placed(number, table.title, tuple(offsets)))
        out[number - 1] = text
    return out, placed


def _caption_end(before: str, title: str) -> int | None:
    """Where the line after the table's numbered caption ("Table 2-1 …", 「表3 …」: printed right above its table)
    starts in the text before the table, when prose stands between them (a line of running text: the text layer
    read the table after what is printed under it); else None."""
    if not is_caption(title):
        return None
    lines = before.split("\n")
    at = [i for i, line in enumerate(lines) if line.strip() == title.strip()]
    if len(at) != 1:
        return None
    between = lines[at[0] + 1:]
    if not any(_PROSE.search(line) for line in between):
        return None
    return sum(len(line) + 1 for line in lines[: at[0] + 1])


def _placement(text: str, table: Table, running: set[str] | None, placed: list[Placed]) -> tuple[int, int] | None:
    """The table's span in the page text (`_span`) outside the tables already placed: as it is, else without its
    edge lines that are dropped running lines, else, for a drawn table, without its header line (drawn tables side
    by side: the text layer reads their header lines as one, before either body)."""
    tries = [table]
    if running and (trimmed := _without_dropped_edges(table, running)) is not None:
        tries.append(trimmed)
    if table.drawn and len(table.source) > 2:
        tries.append(replace(table, source=table.source[1:]))
    # a drawn table's cells may be run together by the text layer ("XX" for two marks): character by character last,
    # when most of its words are on the page (not where they read otherwise: right-to-left text, whose boxes give
    # its words backwards)
    by_chars = table.drawn and _present(text, table) >= PRESENT
    for candidate, chars in [(t, False) for t in tries] + ([(t, True) for t in tries] if by_chars else []):
        span = _span(text, candidate, chars)
        if span is not None and not any(k.rows[0][0] < span[1] and span[0] < k.rows[-1][1] for k in placed):
            return span
    return None


def _present(text: str, table: Table) -> float:
    """Share of the table's words that the page text holds, in any order."""
    want = Counter(w for line in table.source for w, _, _ in _tokens(line))
    have = Counter(w for w, _, _ in _tokens(text))
    return sum((want & have).values()) / max(1, sum(want.values()))


def _without_dropped_edges(table: Table, running: set[str]) -> Table | None:
    """The table without its first and last source lines that are running lines the cleaning dropped
    (`running`: kotae.ingest.clean.find_running_lines' forms; a 10-Q's "Financial Statements Notes to Financial
    Statements 11" inside the region of the inventory table above it); None when there are none."""
    source = list(table.source)
    dropped = lambda line: bool(running_keys(line, True) & running)
    while len(source) > 1 and dropped(source[-1]):
        source.pop()
    while len(source) > 1 and dropped(source[0]):
        source.pop(0)
    return replace(table, source=tuple(source)) if len(source) < len(table.source) else None


def _shifted(p: Placed, page: int, span: tuple[int, int], delta: int) -> Placed:
    if p.page != page or p.rows[0][0] < span[1]:
        return p
    return Placed(p.page, p.title, tuple((a + delta, b + delta) for a, b in p.rows))


def row_sections(sections: Sequence[Section], pages: Sequence[str], placed: Sequence[Placed],
                 context: str = "") -> list[Section]:
    """Sections with each placed table's rows cut out as "rows" sections (one per row, numbered within
    the table, heading path + the table's title, after `context` when there is one: whose document and
    which period, kotae.ingest.cover); the text around them stays as it was."""
    by_page: dict[int, list[Placed]] = {}
    for p in placed:
        by_page.setdefault(p.page, []).append(p)
    out: list[Section] = []
    for sec in sections:
        cuts = [(a, b, n, p) for p in by_page.get(sec.page, []) for n, (a, b) in enumerate(p.rows, start=1)
                if sec.start <= a and b <= sec.start + len(sec.text)]
        if not cuts:
            out.append(sec)
            continue
        at = sec.start
        page = pages[sec.page - 1]
        for a, b, n, p in sorted(cuts, key=lambda c: c[0]):
            _text_part(out, sec, page, at, a)
            heading = sec.heading if not p.title or sec.heading[-1:] == (p.title,) else (*sec.heading, p.title)
            if context and heading[:1] != (context,):
                heading = (context, *heading)
            out.append(Section(sec.page, heading, page[a:b], a, rows=(n, n), kind="rows", ocr=sec.ocr))
            at = b
        _text_part(out, sec, page, at, sec.start + len(sec.text))
    return out


def _text_part(out: list[Section], sec: Section, page: str, start: int, end: int) -> None:
    raw = page[start:end]
    body = raw.strip()
    if body:
        lead = len(raw) - len(raw.lstrip())
        out.append(Section(sec.page, sec.heading, body, start + lead, sec.rows, sec.kind, sec.ocr))
