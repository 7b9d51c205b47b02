"""Calendar dates a text mentions, normalised, so a question about one period finds the passages of that period.

A question that names a date ("total assets at March 31, 2023", 「2023年3月31日現在の…」) is about the passages
that name the same date: a quarterly report, a monthly bulletin or a revised rule reads the same every period
except for its dates, and neither e5 nor BM25 weighs a date's digits. `mentions` finds days ("March 31, 2023",
"31 March 2023", "2023-03-31", 「2023年3月31日」, 「令和5年3月31日」) as "2023-03-31", months ("March 2023",
「2023年3月」) as "2023-03" and calendar quarters ("Q3 2023", "third quarter of 2023", 「2023年第3四半期」, a file
named 2023_Q3_…) as "2023-Q3" (a month also counts as its quarter); `holds` tells whether a passage's dates cover a
question's. A fiscal quarter ("first quarter of fiscal 2024", 「2023年度第1四半期」) is read as none: its months
depend on the company. Pure functions.
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


QUARTERS = True  # a question naming a quarter alone asks for it (bench/reading.py --set sec10q --constant …QUARTERS=false)
_ORDINALS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4}
# a calendar quarter; "fiscal"/"FY" between the quarter and its year makes none of these match
_QUARTERS = (
    re.compile(rf"\bQ(?P<q>[1-4])\s*(?:of\s+)?{_YEAR}", re.IGNORECASE),  # Q3 2023, Q3 of 2023
    re.compile(r"(?<![\dA-Za-z])(?P<y>(?:19|20)\d{2})[\s_-]?Q(?P<q>[1-4])(?!\d)", re.IGNORECASE),  # 2023 Q3, 2023_Q3
    re.compile(r"(?<![\dA-Za-z])(?P<q>[1-4])Q\s?(?:'|20)?(?P<yy>\d{2})(?!\d)"),  # 3Q23, 3Q 2023
    re.compile(rf"\b(?P<ord>{'|'.join(_ORDINALS)})\s+quarter\s+(?:of\s+)?(?:calendar\s+(?:year\s+)?)?{_YEAR}",
               re.IGNORECASE),  # third quarter of 2023
    re.compile(r"(?:(?P<y>(?:19|20)\d{2})|(?P<era>令和|平成|昭和)\s*(?P<ey>元|\d{1,2}))\s*年\s*第?\s*(?P<q>[1-4])\s*四半期"),
)
_FISCAL = re.compile(r"(?:fiscal|\bFY)\s*(?:year\s*)?$", re.IGNORECASE)  # "fiscal 2023 Q3", "FY2023 Q3": no calendar quarter


def _quarters(t: str) -> set[str]:
    """The calendar quarters `t` names ("2023-Q3")."""
    found: set[str] = set()
    for pattern in _QUARTERS:
        for m in pattern.finditer(t):
            if _FISCAL.search(t[max(0, m.start() - 12):m.start()]):
                continue
            g = m.groupdict()
            year = (2000 + int(g["yy"]) if int(g["yy"]) < 70 else 1900 + int(g["yy"])) if g.get("yy") else _year(m)
            q = _ORDINALS[g["ord"].lower()] if g.get("ord") else int(g["q"])
            found.add(f"{year:04d}-Q{q}")
    return found


def _quarter(month: str) -> str:
    """The calendar quarter of a month ("2023-08" → "2023-Q3")."""
    return f"{month[:4]}-Q{(int(month[5:7]) - 1) // 3 + 1}"


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
    found |= {_quarter(m) for m in found if len(m) == 7} | _quarters(t)
    return frozenset(found)


def asked(question: str) -> frozenset[str]:
    """The dates a question names, each at its finest: a day, else a month (the month of a named day is implied),
    else a quarter ("Q3 2023" alone; the quarter of a named month is implied)."""
    found = mentions(question)
    days = {d for d in found if len(d) == 10}
    months = {m for m in found if len(m) == 7 and "Q" not in m and not any(d.startswith(m) for d in days)}
    if days or months or not QUARTERS:
        return frozenset(days | months)
    return frozenset(q for q in found if "Q" in q)


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
