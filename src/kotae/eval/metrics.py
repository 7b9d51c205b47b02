"""Retrieval metrics over one question's ranked results. Pure: plain data in, numbers out.

A retrieved chunk is a *hit* when it lies on an evidence page of the evidence file (rule "page"), or
contains one of the acceptable phrases, compared without whitespace and after NFKC, in a table row also without
its column names (`holds`; rule "phrase"), or
either ("either"). Duplicates of one evidence unit (a page, or "the phrase") count once in nDCG.
"""
from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

RULES = ("page", "phrase", "either")
_WS = re.compile(r"\s+")


def squash(text: str) -> str:
    """Width- and whitespace-insensitive form for phrase matching."""
    return _WS.sub("", unicodedata.normalize("NFKC", text)).lower()


# A table row as kotae renders it, "column: value | column: value" (ingest.grid.render_row): the column names at
# the start of a line or after " | ", which a phrase copied from the printed table (values side by side) lacks.
_ROW_LABEL = re.compile(r"(?:^|(?<=\| ))[^|:\n]{1,60}?: ", re.MULTILINE)


def cell_values(text: str) -> str:
    """`text` with the column names of its rendered table rows taken out ("Ecorr (V): 0.9393 | Corrosion rate:
    2.8163" → "0.9393 | 2.8163"); text without rows unchanged."""
    return _ROW_LABEL.sub("", text) if " | " in text else text


def holds(text: str, phrase: str) -> bool:
    """Whether `text` contains `phrase` (see `squash`), in a table row also with the row's column names left
    out: a phrase written from a table's printed values ("24.0910 2.8163") is the same evidence as kotae's
    "Polarization resistance (Ω): 24.0910 | Corrosion rate (mm/year): 2.8163"."""
    p = squash(phrase)
    return bool(p) and (p in squash(text) or p in squash(cell_values(text).replace(" | ", " ")))


@dataclass(frozen=True)
class Evidence:
    file: str | None
    pages: tuple[int, ...] = ()
    phrases: tuple[str, ...] = ()


@dataclass(frozen=True)
class Retrieved:
    file: str
    page: int
    text: str


def unit(r: Retrieved, ev: Evidence, rule: str) -> str | None:
    """The evidence unit a retrieved chunk satisfies, or None when it is not a hit."""
    on_page = ev.file is not None and r.file == ev.file and r.page in ev.pages
    if rule in ("page", "either") and on_page:
        return f"page:{r.page}"
    if rule in ("phrase", "either") and any(holds(r.text, p) for p in ev.phrases if p):
        return "phrase"
    return None


def judge(results: Sequence[Retrieved], ev: Evidence, rule: str = "either") -> list[str | None]:
    if rule not in RULES:
        raise ValueError(f"unknown hit rule {rule!r}; choose one of {', '.join(RULES)}")
    return [unit(r, ev, rule) for r in results]


def hit_at(units: Sequence[str | None], k: int) -> float:
    return 1.0 if any(u is not None for u in units[:k]) else 0.0


def mrr_at(units: Sequence[str | None], k: int = 10) -> float:
    for i, u in enumerate(units[:k], 1):
        if u is not None:
            return 1.0 / i
    return 0.0


def ndcg_at(units: Sequence[str | None], ev: Evidence, rule: str, k: int = 10) -> float:
    """Binary gains; each evidence unit gains once; ideal = all units at the top (at most 1.0)."""
    seen: set[str] = set()
    dcg = 0.0
    for i, u in enumerate(units[:k], 1):
        if u is not None and u not in seen:
            seen.add(u)
            dcg += 1.0 / math.log2(i + 1)
    n_units = len(ev.pages) if rule != "phrase" and ev.pages else 1
    ideal = sum(1.0 / math.log2(i + 1) for i in range(1, min(n_units, k) + 1))
    return min(1.0, dcg / ideal) if ideal else 0.0


def all_found(units: Sequence[str | None], ev: Evidence, k: int = 10) -> float:
    """1.0 when every evidence page appears in the top k (for questions needing several pages)."""
    need = {f"page:{p}" for p in ev.pages}
    return 1.0 if need and need <= {u for u in units[:k] if u} else 0.0


def retrieval_metrics(results: Sequence[Retrieved], ev: Evidence, rule: str = "either") -> dict[str, float]:
    u = judge(results, ev, rule)
    out = {f"hit@{k}": hit_at(u, k) for k in (1, 3, 5, 10)}
    out["mrr@10"] = mrr_at(u, 10)
    out["ndcg@10"] = ndcg_at(u, ev, rule, 10)
    if len(ev.pages) > 1:
        out["all_evidence@10"] = all_found(u, ev, 10)
    return out


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100); 0.0 for no values."""
    if not values:
        return 0.0
    s = sorted(values)
    return s[max(0, math.ceil(q / 100 * len(s)) - 1)]


# --- graded relevance (BEIR/TREC qrels) --------------------------------------------------------------
# `qrels` maps a document id to its judged grade; a grade > 0 is relevant. Gains are the grades
# themselves (linear, as trec_eval's ndcg_cut and BEIR), discounts log2(rank + 1).

def ndcg_graded(ranked: Sequence[str], qrels: dict[str, int], k: int = 10) -> float:
    """nDCG@k with the qrel grade as gain; 0.0 when the query has no relevant document."""
    dcg = sum(qrels.get(d, 0) / math.log2(i + 1) for i, d in enumerate(ranked[:k], 1) if qrels.get(d, 0) > 0)
    gains = sorted((g for g in qrels.values() if g > 0), reverse=True)[:k]
    ideal = sum(g / math.log2(i + 1) for i, g in enumerate(gains, 1))
    return dcg / ideal if ideal else 0.0


def mrr_graded(ranked: Sequence[str], qrels: dict[str, int], k: int = 10) -> float:
    """1 / rank of the first relevant document in the top k, else 0.0."""
    for i, d in enumerate(ranked[:k], 1):
        if qrels.get(d, 0) > 0:
            return 1.0 / i
    return 0.0


def recall_graded(ranked: Sequence[str], qrels: dict[str, int], k: int) -> float:
    """Share of the relevant documents found in the top k; 0.0 when there are none."""
    relevant = {d for d, g in qrels.items() if g > 0}
    return len(relevant.intersection(ranked[:k])) / len(relevant) if relevant else 0.0


RECALL_KS = (1, 5, 10, 100)


def graded_metrics(ranked: Sequence[str], qrels: dict[str, int]) -> dict[str, float]:
    """nDCG@10, MRR@10 and recall@1/5/10/100 of one query's ranking."""
    out = {"ndcg@10": ndcg_graded(ranked, qrels, 10), "mrr@10": mrr_graded(ranked, qrels, 10)}
    out.update({f"recall@{k}": recall_graded(ranked, qrels, k) for k in RECALL_KS})
    return out


def mean_metrics(rows: Sequence[dict[str, float]]) -> dict[str, float]:
    """Per-metric means over rows (a metric missing from a row is left out of its mean)."""
    keys = list(dict.fromkeys(k for r in rows for k in r))
    return {k: sum(r[k] for r in rows if k in r) / sum(1 for r in rows if k in r) for k in keys}
