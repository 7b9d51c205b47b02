"""Low-information chunks: a table read out one cell (or one character) per line, a calendar, a block of bare
numbers. e5 places such text close to many short questions, so it can outrank the prose that answers them;
the dense ranking weighs it down by `information(text)` (the keyword ranking needs no help: it has no words
to match).
"""
from __future__ import annotations

import re
import unicodedata

_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)  # a run of letters (kana, kanji, Latin): no digits, no symbols
# A line of a table of contents or an index: a title, a dot leader, page numbers (arabic or roman) at its end;
# or a table row whose last cell is a page ("… | Page: 14"). A worksheet's "… line 3 .......... 3." ends in a
# period and is not one.
_LEADER = r"(?:(?:[.·・･]\s?){3,}|(?:[…‥]\s?){2,})"
_PAGES = r"(?:p\.?\s*|page:?\s*|ページ:?\s*|頁:?\s*)?(?:\d{1,4}|[ivxlcdm]{1,7})(?:\s*[,\-–]\s*\d{1,4})*"
_TOC_LINE = re.compile(rf"{_LEADER}\s*\.?\s*{_PAGES}\s*$", re.IGNORECASE)
_PAGE_CELL = re.compile(r"\|\s*(?:page|ページ|頁)\s*:\s*\d{1,4}\s*$", re.IGNORECASE)
_ROW_PAGE = re.compile(r"\|\s*(\d{1,3})\s*$")  # "Balance Sheets | 5": counted when the numbers never go back
_NUMERIC = re.compile(r"[\d,.$()%\s\-–—]*")
_CONTENTS = re.compile(r"(?:table of )?contents|index|目次|目 次|索引", re.IGNORECASE)
_ASKS_PAGE = re.compile(r"ページ|頁|\bpages?\b|\bp\.\s*\d", re.IGNORECASE)
NAVIGATION_SHARE = 0.3  # … with at least 3 such lines, this share of the chunk's lines makes it navigation
TAIL = 60  # characters of a line's end the patterns read: a line of thousands of dots costs no more than that


def signals(text: str) -> dict[str, float]:
    """The measurements `information` combines: digit share of the visible characters, visible characters
    per non-empty line, and the number of distinct letter runs (words; a kanji/kana run counts once)."""
    text = unicodedata.normalize("NFKC", text)
    visible = [c for c in text if not c.isspace()]
    lines = [ln for ln in text.splitlines() if ln.strip()]
    digits = sum(c.isdigit() for c in visible)
    return {"digit_share": digits / len(visible) if visible else 0.0,
            "chars_per_line": len(visible) / len(lines) if lines else 0.0,
            "distinct_words": float(len(set(_WORD.findall(text.lower())))),
            "visible": float(len(visible))}


_FIGURE = re.compile(r"[-+−(]?[$¥€£]?[\d.,:%/]*\d[\d.,:%/]*[)%]?[:;,]?")


def figure_share(text: str) -> float:
    """The share of a text's words (split at spaces and table bars) that are figures: numbers, amounts,
    percentages, dates in digits. A block of measurements ("0.2716 | 6Prot IL1RAP: -0.0221 | …") is mostly figures."""
    words = text.replace("|", " ").split()
    return sum(bool(_FIGURE.fullmatch(w)) for w in words) / len(words) if words else 0.0


def information(text: str) -> float:
    """1.0 for prose, down to 0.0 for text that carries almost no words: the lowest of three scores, each 1
    above its threshold and falling linearly below it. Short chunks (< 40 visible characters) stay 1: a
    one-line answer ("SSID: SAMPLE-STAFF") is not noise."""
    s = signals(text)
    if s["visible"] < 40:
        return 1.0
    per_line = min(1.0, s["chars_per_line"] / 6.0)  # one cell per line: 1–3 characters a line
    digits = min(1.0, max(0.0, (0.85 - s["digit_share"]) / 0.35))  # ≥ 85 % digits: 0; ≤ 50 %: 1
    words = min(1.0, s["distinct_words"] / max(4.0, min(12.0, s["visible"] / 20.0)))
    return round(min(per_line, digits, words), 3)


def demote(ranked: list[tuple[int, float]], info: dict[int, float], penalty: float) -> list[tuple[int, float]]:
    """A dense ranking re-sorted with each similarity lowered by `penalty` × (1 − information); the scores
    returned stay the raw similarities (the gate and the hits report those)."""
    if penalty <= 0:
        return ranked
    order = sorted(ranked, key=lambda p: -(p[1] - penalty * (1.0 - info.get(p[0], 1.0))))
    return order


def navigation(text: str, heading: tuple[str, ...] = ()) -> bool:
    """Whether a chunk is a table of contents or an index: ≥ 3 lines that end in a dot leader and page
    numbers (or a "Page: N" cell) making NAVIGATION_SHARE of its lines, or one such line under a heading
    "Contents", "Index", 目次 or 索引."""
    lines = [ln.strip() for ln in unicodedata.normalize("NFKC", text).splitlines() if ln.strip()]
    toc = sum(1 for ln in lines
              if _PAGE_CELL.search(ln[-TAIL:]) or _TOC_LINE.search(ln.replace("|", " ").strip()[-TAIL:]))
    if toc < 3:
        toc = max(toc, _page_rows(lines))
    if toc and heading and _CONTENTS.fullmatch(unicodedata.normalize("NFKC", heading[-1]).strip()):
        return True
    return toc >= 3 and toc >= NAVIGATION_SHARE * len(lines)


def _page_rows(lines: list[str]) -> int:
    """How many lines are table rows of titles ending in a page number ("Balance Sheets | 5"), when those
    numbers never decrease (a statement's rows of figures do not read so: their other cells hold numbers)."""
    pages = []
    for ln in lines:
        m = _ROW_PAGE.search(ln[-TAIL:])
        title = ln[: len(ln) - TAIL + m.start()] if m and len(ln) > TAIL else ln[: m.start()] if m else ""
        if m and _WORD.search(title) and not any(_NUMERIC.fullmatch(c) for c in title.split("|")):
            pages.append(int(m.group(1)))
    return len(pages) if pages == sorted(pages) else 0


def asks_page(question: str) -> bool:
    """Whether a question asks where something is (何ページ, "which page"): a table of contents answers it."""
    return bool(_ASKS_PAGE.search(unicodedata.normalize("NFKC", question)))


def behind(ranked: list[tuple[int, float]], nav: set[int]) -> list[tuple[int, float]]:
    """The ranking with the navigation chunks `nav` placed behind the others, each group in its own order
    (their scores unchanged)."""
    if not nav:
        return ranked
    return [p for p in ranked if p[0] not in nav] + [p for p in ranked if p[0] in nav]
