"""The golden-set format (JSONL): one question per line.

Fields: `question` (required), `answerable` (bool, default true), `category`, evidence as `file` + `pages`
and/or `must_contain` (acceptable phrases, any one counts), a reference `answer`, optional `id`, `note`.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

from kotae.errors import KotaeError
from kotae.eval.metrics import Evidence


@dataclass(frozen=True)
class GoldenItem:
    id: str
    question: str
    answerable: bool
    category: str
    evidence: Evidence
    answer: str = ""
    note: str = ""


def parse_golden(lines: list[str], source: str = "golden set") -> list[GoldenItem]:
    items: list[GoldenItem] = []
    for n, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("//"):
            continue
        try:
            d = json.loads(line)
            q = d["question"]
        except (json.JSONDecodeError, KeyError, TypeError) as e:
            raise KotaeError(f"{source} line {n}: not a golden item ({e}); see README, 'Golden sets'") from e
        answerable = bool(d.get("answerable", True))
        ev = Evidence(d.get("file"), tuple(int(p) for p in d.get("pages") or ()),
                      tuple(d.get("must_contain") or ()))
        if answerable and not (ev.phrases or (ev.file and ev.pages)):
            raise KotaeError(f"{source} line {n}: an answerable item needs file + pages or must_contain")
        items.append(GoldenItem(str(d.get("id") or n), q, answerable,
                                d.get("category") or ("answerable" if answerable else "unanswerable"),
                                ev, d.get("answer") or "", d.get("note") or ""))
    return items


def load_golden(path: str) -> list[GoldenItem]:
    try:
        with open(path, encoding="utf-8") as f:
            return parse_golden(f.readlines(), path)
    except OSError as e:
        raise KotaeError(f"{path}: cannot read the golden set ({e.strerror})") from e
