"""Headings of a PDF from its fonts: a heading is set larger or bolder than the document's body text.

Pure functions over cleaned page texts and each page's `Line`s (text, font size, weight, alone on its
baseline). Where the PDF's fonts tell nothing (one size and weight throughout, OCR'd pages, lines that
cleaning changed) the text rules of kotae.ingest.headings decide alone. Lines repeated across pages
(running headers and footers, digits ignored) are never headings; Japanese structural markers
(第N章 / 第N条 …) are headings at any size, as statutes set them in the body font.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Sequence

from kotae.ingest.headings import Heading, classify_lines, is_structural
from kotae.ingest.pdf_layout import BOLD, Line

LARGER = 1.12  # a heading's font is at least this many times the body size…
# …or bold (pdf_layout.BOLD) where the body is lighter
MAX_CHARS = 80
MAX_WORDS = 12
MIN_EMPHASISED = 2  # fewer emphasised lines in the document: its fonts tell nothing
RUNNING_PAGES = 3  # a line on this many pages (and on a fifth of them) is a running header or footer
RUNNING_SHARE = 0.2
DEEPEST = 4
_SPACE = re.compile(r"\s+")
_DIGITS = re.compile(r"\d+")


def key(text: str) -> str:
    """How a cleaned line and a layout line are matched: NFKC, whitespace collapsed."""
    return _SPACE.sub(" ", unicodedata.normalize("NFKC", text)).strip()


def body_font(lines: Sequence[Line]) -> tuple[float, int]:
    """(size, weight) of the most text in the document, by characters."""
    sizes: Counter[float] = Counter()
    weights: Counter[int] = Counter()
    for ln in lines:
        if ln.size > 0:
            sizes[round(ln.size * 2) / 2] += len(ln.text)
            weights[ln.weight] += len(ln.text)
    if not sizes:
        return 0.0, -1
    return sizes.most_common(1)[0][0], weights.most_common(1)[0][0]


def emphasised(line: Line, body: tuple[float, int]) -> bool:
    size, weight = body
    return size > 0 and line.size > 0 and not line.mixed and (
        line.size >= size * LARGER or (line.weight >= BOLD and 0 <= weight < BOLD and line.size >= size * 0.95))


def running_keys(pages: Sequence[str]) -> set[str]:
    """Lines (digits masked) that recur on RUNNING_PAGES pages or more and a RUNNING_SHARE of them."""
    seen: Counter[str] = Counter()
    for page in pages:
        seen.update({_DIGITS.sub("#", key(line)) for line in page.split("\n") if line.strip()})
    need = max(RUNNING_PAGES, RUNNING_SHARE * len(pages))
    return {k for k, n in seen.items() if n >= need}


def _title_like(text: str) -> bool:
    letters = [c for c in text if c.isalpha()]
    digits = sum(c.isdigit() for c in text)
    words = text.split()
    return (len(letters) >= 3 and not text[0].islower() and digits <= 0.3 * len(text.replace(" ", "")) and len(text) <= MAX_CHARS
            and len(words) <= MAX_WORDS and not text.endswith((".", ",", ";", "、", "。"))
            and not (len(words) >= 3 and sum(len(w) == 1 for w in words) > 0.6 * len(words)))


def _levels(candidates: Sequence[Line]) -> dict[tuple[float, bool], int]:
    styles = sorted({(round(ln.size * 2) / 2, ln.weight >= BOLD) for ln in candidates}, reverse=True)
    return {style: min(DEEPEST, i + 1) for i, style in enumerate(styles)}


def classify_pages(pages: Sequence[str], page_lines: Sequence[Sequence[Line]]) -> list[list[Heading | None]]:
    """The heading (or None) of every line of every cleaned page, from its text and, where known, its font.

    `page_lines[i]` are the layout lines of page i+1 (empty for an OCR'd page).
    """
    every = [ln for lines in page_lines for ln in lines]
    body = body_font(every)
    emph = [ln for ln in every if ln.alone and emphasised(ln, body) and _title_like(key(ln.text))]
    fonts_tell = len(emph) >= MIN_EMPHASISED
    levels = _levels(emph)
    running = running_keys(pages)
    out = []
    for page, lines in zip(pages, page_lines):
        by_key = {key(ln.text): ln for ln in lines}
        texts = page.split("\n")
        found = classify_lines(texts)
        for i, text in enumerate(texts):
            k = key(text)
            if not k:
                continue
            if _DIGITS.sub("#", k) in running and not is_structural(k):
                found[i] = None
                continue
            ln = by_key.get(k)
            if not fonts_tell or ln is None or is_structural(k):
                continue  # the text rules decide
            strong = ln.alone and emphasised(ln, body)
            if found[i] is not None:
                found[i] = found[i] if strong else None
            elif strong and _title_like(k):
                found[i] = (levels.get((round(ln.size * 2) / 2, ln.weight >= BOLD), DEEPEST), k)
        out.append(found)
    return out
