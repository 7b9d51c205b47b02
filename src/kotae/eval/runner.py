"""`kotae eval run`: ask every golden question, score retrieval, abstention and answers."""
from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from kotae.eval.golden import GoldenItem
from kotae.eval.judge import Judge
from kotae.eval.metrics import Retrieved, holds, percentile, retrieval_metrics
from kotae.facade import LLM, Kotae


@dataclass
class EvalRun:
    settings: dict[str, Any]
    per_question: list[dict[str, Any]] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        return summarise(self.per_question)


def run_golden(items: Sequence[GoldenItem], kotae: Kotae, *, mode: str = "hybrid", top_k: int = 10,
               rule: str = "either", answer_k: int = 5, answers: bool = True, llm: LLM | None = None,
               judge: Judge | None = None) -> EvalRun:
    """Retrieval metrics from the top `top_k`; the answer (gate + extractive or `llm`) from the top `answer_k`.

    With `answers=False` only retrieval is scored (no answer is built: much faster). With a `judge`,
    correctness is the judge's verdict against the reference answer (phrase matching stays reported).
    """
    settings: dict[str, Any] = {"mode": mode, "top_k": top_k, "rule": rule}
    if answers:
        settings["answer_k"] = answer_k
        settings["llm"] = llm.settings.spec if llm else None
        settings["judge"] = judge.spec if judge else None
    run = EvalRun(settings)
    for it in items:
        row = retrieval_row(it, kotae, mode=mode, top_k=top_k, rule=rule)
        if answers:
            row.update(answer_fields(it, kotae, mode=mode, answer_k=answer_k, rule=rule, llm=llm,
                                     judge=judge))
        run.per_question.append(row)
    return run


def retrieval_row(it: GoldenItem, kotae: Kotae, *, mode: str, top_k: int, rule: str) -> dict[str, Any]:
    """One question's retrieval: what was found, the gate's signals and (answerable) the hit metrics."""
    t0 = time.perf_counter()
    res = kotae.search(it.question, mode=mode, top_k=top_k)
    t_search = (time.perf_counter() - t0) * 1000
    row: dict[str, Any] = {"id": it.id, "question": it.question, "category": it.category,
                           "answerable": it.answerable,
                           "retrieved": [f"{h.chunk.file} p.{h.chunk.page}" for h in res.hits],
                           "gate_similarity": round(res.gate.similarity, 4),
                           "gate_margin": round(res.gate.margin, 4),
                           "gate_coverage": round(res.gate.coverage, 4), "latency_search_ms": t_search}
    if it.answerable:
        found = [Retrieved(h.chunk.file, h.chunk.page, h.chunk.text) for h in res.hits]
        row.update(retrieval_metrics(found, it.evidence, rule))
    return row


def answer_fields(it: GoldenItem, kotae: Kotae, *, mode: str, answer_k: int, rule: str,
                  llm: LLM | None = None, judge: Judge | None = None) -> dict[str, Any]:
    """One question's answer from the top `answer_k`: found or abstained, correct, citations valid."""
    a = kotae.ask(it.question, mode=mode, top_k=answer_k, llm=llm)
    row: dict[str, Any] = {"found_in_docs": a.found_in_docs, "answer": a.answer,
                           "latency_answer_ms": a.timings_ms.get("total"), "answer_mode": a.mode,
                           "timings_ms": a.timings_ms, "citations": a.citations, "notices": list(a.notices)}
    if it.answerable:
        row["false_refusal"] = float(not a.found_in_docs)
        row["correct_phrase"] = float(a.found_in_docs and bool(it.evidence.phrases)
                                      and any(holds(a.answer, p) for p in it.evidence.phrases))
        row["correct"] = row["correct_phrase"]
        if judge is not None and it.answer and a.found_in_docs:
            t0 = time.perf_counter()
            verdict = judge.grade(it.question, it.answer, a.answer)
            row["latency_judge_ms"] = (time.perf_counter() - t0) * 1000
            row["judge_reply"] = verdict.reply
            if verdict.correct is None:
                row["judge_failed"] = 1.0
            else:
                row["correct"] = row["correct_judge"] = float(verdict.correct)
        cited = [s for s in a.sources if f"[{s.n}]" in a.answer]
        if cited:
            row["citation_valid"] = sum(
                1.0 for s in cited
                if retrieval_metrics([Retrieved(s.hit.chunk.file, s.hit.chunk.page, s.hit.chunk.text)],
                                     it.evidence, rule)["hit@1"]) / len(cited)
    else:
        row["abstained"] = float(not a.found_in_docs)
    return row


def gate_samples(items: Sequence[GoldenItem], kotae: Kotae) -> list[tuple[bool, float, float]]:
    """(answerable, margin, coverage) of each question, as `kotae.search.gate.calibrate` takes them."""
    out = []
    for it in items:
        g = kotae.search(it.question).gate
        out.append((it.answerable, g.margin, g.coverage))
    return out


_METRICS = ("hit@1", "hit@3", "hit@5", "hit@10", "mrr@10", "ndcg@10", "all_evidence@10", "correct",
            "correct_phrase", "correct_judge", "false_refusal", "citation_valid", "abstained")


def summarise(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Means per metric, overall and per category, with counts and latency percentiles."""
    def agg(rs: Sequence[dict[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {"n": len(rs)}
        for m in _METRICS:
            vals = [r[m] for r in rs if m in r]
            if vals:
                out[m] = round(sum(vals) / len(vals), 4)
        failed = sum(1 for r in rs if r.get("judge_failed"))
        if failed:
            out["judge_failed"] = failed  # answers the judge gave no verdict on (graded by phrase)
        for key in ("latency_search_ms", "latency_answer_ms", "latency_judge_ms"):
            vals = [r[key] for r in rs if r.get(key) is not None]
            if vals:
                out[key.replace("_ms", "_p50_ms")] = round(percentile(vals, 50), 1)
                out[key.replace("_ms", "_p95_ms")] = round(percentile(vals, 95), 1)
        return out

    by_cat: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by_cat[r["category"]].append(r)
    return {"overall": agg(rows), "categories": {c: agg(rs) for c, rs in sorted(by_cat.items())}}


def markdown_table(summary: dict[str, Any]) -> str:
    cols = ["n", "hit@1", "hit@3", "hit@5", "mrr@10", "ndcg@10", "correct", "false_refusal", "abstained",
            "citation_valid"]
    if "correct_judge" in summary["overall"]:
        cols[cols.index("correct"):cols.index("correct") + 1] = ["correct", "correct_phrase", "correct_judge"]
    lines = ["| set | " + " | ".join(cols) + " |", "|---" * (len(cols) + 1) + "|"]
    rows = [("overall", summary["overall"])] + list(summary["categories"].items())
    for name, m in rows:
        lines.append(f"| {name} | " + " | ".join(_fmt(m.get(c)) for c in cols) + " |")
    return "\n".join(lines)


def _fmt(v: Any) -> str:
    if v is None:
        return "–"
    return str(v) if isinstance(v, int) else f"{v:.3f}"
