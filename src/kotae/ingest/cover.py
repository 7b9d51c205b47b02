"""Whose document and which period: the cover page of a securities filing (10-Q, 10-K, 20-F …) names the
registrant, the form and the period it reports on. Table rows carry that in their heading path, so a row
of "Operating income" is Apple's for the quarter ended June 25, 2022 and not any of the other filings'.

Pure functions over the cleaned page texts; documents without such a cover get "".
"""

from __future__ import annotations

import re
from collections.abc import Sequence

COVER_PAGES = 2  # the cover is the first page; some filings put a blank or a notice page in front
_NAME_NOTE = re.compile(r"^\(?\s*exact name of (the )?registrant", re.IGNORECASE)
_FILE_NUMBER = re.compile(r"^commission file number", re.IGNORECASE)
_FORM = re.compile(r"^form\s+(10-q|10-k|20-f|40-f|6-k|8-k)\b", re.IGNORECASE)
_PERIOD = re.compile(r"for the (quarterly period|fiscal year|period|year) ended:?\s+([a-z]+\.? \d{1,2}, ?\d{4})",
                     re.IGNORECASE)
_NAME = re.compile(r"^[^\W\d_][\w.,&'’\- ]{1,80}$")


def _name_case(name: str) -> str:
    """An all-capitals name as a person writes it (AMAZON.COM, INC. → Amazon.com, Inc.); others as printed."""
    if any(c.islower() for c in name):
        return name
    return " ".join(w[:1] + w[1:].lower() for w in name.split())


def _registrant(lines: list[str]) -> str:
    for i, line in enumerate(lines):
        if _NAME_NOTE.match(line) and i > 0 and _NAME.match(lines[i - 1]):
            return lines[i - 1]
    for i, line in enumerate(lines[:-1]):  # covers without the note: the name follows the file number
        if _FILE_NUMBER.match(line) and _NAME.match(lines[i + 1]):
            return lines[i + 1]
    return ""


def filing_context(pages: Sequence[str]) -> str:
    """"Apple Inc. Form 10-Q, quarterly period ended June 25, 2022" from a filing's cover page: the
    registrant, the form and the period; "" when the first pages hold no form with a registrant."""
    for page in pages[:COVER_PAGES]:
        lines = [line.strip() for line in page.split("\n") if line.strip()]
        form = next((m.group(1).upper() for line in lines if (m := _FORM.match(line))), "")
        name = _registrant(lines)
        if not form or not name:
            continue
        period = _PERIOD.search(page)
        out = f"{_name_case(name)} Form {form}"
        if period:
            out += f", {period.group(1).lower()} ended {period.group(2)}"
        return out
    return ""
