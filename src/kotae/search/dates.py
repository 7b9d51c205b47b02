"""Calendar dates a text mentions, normalised, so a question about one period finds the passages of that period.

A question that names a date ("total assets at March 31, 2023", 「2023年3月31日現在の…」) is about the passages
that name the same date: a quarterly report, a monthly bulletin or a revised rule reads the same every period
except for its dates, and neither e5 nor BM25 weighs a date's digits. `mentions` finds days ("March 31, 2023",
"31 March 2023", "2023-03-31", 「2023年3月31日」, 「令和5年3月31日」) as "2023-03-31" and months ("March 2023",
「2023年3月」) as "2023-03"; `holds` tells whether a passage's dates cover a question's. Pure functions.
"""
from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Iterable

__all__ = ["asked", "first", "holds", "mentions"]

_MONTHS = {name: i for i, names in enumerate((
    ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",), ("june", "jun"),
    ("july", "jul"), ("august", "aug"), ("september", "sept", "sep"), ("october", "oct"), ("november", "nov"),
    ("december", "dec")), 1) for name in names}
_MONTH = r"(?P<mon>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_YEAR = r"(?P<y>(?:19|20)\d{2})(?!\d)"
_ERAS = {"令和": 2018, "平成": 1988, "昭和": 1925}  # year 1 of each era is base + 1

# each names a month, and a day where it has one ("March 2023" is a month, "March 31, 2023" a day)
_PATTERNS = (
    re.compile(rf"\b{_MONTH}\s+(?:(?P<d>\d{{1,2}})(?:st|nd|rd|th)?,?\s+|of\s+)?{_YEAR}", re.IGNORECASE),
    re.compile(rf"\b(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s+{_MONTH},?\s+{_YEAR}", re.IGNORECASE),
    re.compile(r"(?<!\d)(?P<y>(?:19|20)\d{2})[-/.](?P<m>\d{1,2})[-/.](?P<d>\d{1,2})(?!\d)"),
    re.compile(r"(?<!\d)(?P<y>(?:19|20)\d{2})\s*年\s*(?P<m>\d{1,2})\s*月(?:\s*(?P<d>\d{1,2})\s*日)?"),
    re.compile(r"(?P<era>令和|平成|昭和)\s*(?P<ey>元|\d{1,2})\s*年\s*(?P<m>\d{1,2})\s*月(?:\s*(?P<d>\d{1,2})\s*日)?"),
)


def _year(m: re.Match[str]) -> int:
    if m.groupdict().get("era"):
        n = m.group("ey")
        return _ERAS[m.group("era")] + (1 if n == "元" else int(n))
    return int(m.group("y"))


def _month(m: re.Match[str]) -> int:
    return _MONTHS[m.group("mon").lower()] if m.groupdict().get("mon") else int(m.group("m"))


# a day or month named without its year (「6月28日」, 「4月と10月」, "on June 28"), read in the year named last before it
_YEAR_ANCHOR = re.compile(r"(?<!\d)(?P<y>(?:19|20)\d{2})(?!\d)")
_PARTIAL = (
    re.compile(r"(?<![\d年])(?<!\d[/.-])(?P<m>\d{1,2})\s*月\s*(?:(?P<d>\d{1,2})\s*日)?"),
    re.compile(rf"\b(?-i:(?=[A-Z])){_MONTH}\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\b(?!,?\s*(?:19|20)\d{{2}})",
               re.IGNORECASE),  # capitalised: "you may 3 times" names no day
)


def _in_context(t: str) -> set[str]:
    """The days and months `t` names without a year, each in the year named last before it."""
    anchors = [(m.start(), int(m.group("y"))) for m in _YEAR_ANCHOR.finditer(t)]
    starts = [at for at, _ in anchors]
    found: set[str] = set()
    for pattern in _PARTIAL:
        for m in pattern.finditer(t):
            last = bisect.bisect_left(starts, m.start()) - 1  # the last year named before it
            year = anchors[last][1] if last >= 0 else None
            month = _month(m)
            if year is None or not 1 <= month <= 12:
                continue
            found.add(f"{year:04d}-{month:02d}")
            if m.group("d") and 1 <= int(m.group("d")) <= 31:
                found.add(f"{year:04d}-{month:02d}-{int(m.group('d')):02d}")
    return found


def mentions(text: str, in_context: bool = False) -> frozenset[str]:
    """The days ("2023-03-31") and months ("2023-03") `text` names; a day also counts as its month. With
    `in_context` (a passage, not a question), also those named without a year, in the year named last before."""
    t = unicodedata.normalize("NFKC", text)
    found: set[str] = _in_context(t) if in_context else set()
    for pattern in _PATTERNS:
        for m in pattern.finditer(t):
            month = _month(m)
            if not 1 <= month <= 12:
                continue
            day = int(m.group("d")) if m.groupdict().get("d") else None
            if day is not None and not 1 <= day <= 31:
                continue
            found.add(f"{_year(m):04d}-{month:02d}")
            if day is not None:
                found.add(f"{_year(m):04d}-{month:02d}-{day:02d}")
    return frozenset(found)


def asked(question: str) -> frozenset[str]:
    """The dates a question names, each at its finest: a day, else a month (the month of a named day is implied)."""
    found = mentions(question)
    days = {d for d in found if len(d) == 10}
    return frozenset(days | {m for m in found if len(m) == 7 and not any(d.startswith(m) for d in days)})


def holds(passage_dates: Iterable[str], question_dates: Iterable[str]) -> bool:
    """Whether a passage naming `passage_dates` (from `mentions`) names every date of the question (`asked`)."""
    have = set(passage_dates)
    return all(d in have for d in question_dates)


def first(ranked: list[tuple[int, float]], dated: set[int]) -> list[tuple[int, float]]:
    """The ranking with the chunks `dated` (those of the candidates that name the question's dates) first, each
    group in its own order (scores unchanged)."""
    if not dated:
        return ranked
    return [p for p in ranked if p[0] in dated] + [p for p in ranked if p[0] not in dated]
