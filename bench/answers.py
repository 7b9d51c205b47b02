"""Extractive answer quality, per split, with a per-question diagnosis of every miss.

    python bench/answers.py                    # writes bench/results/answers.{json,md}
    python bench/answers.py --index /tmp/idx   # keep the samples/docs index between runs (faster reruns)
    python bench/answers.py --split fit        # only the fit half (what a tuner may look at)
    python bench/answers.py --compare sentence-translation   # plus a column with that choice switched off
    python bench/answers.py --reranker kotae --rerank-sentences 0.3,1   # plus a column per sentence-rerank weight
    python bench/answers.py --real ../shared/data   # users-real(2) over samples/docs + the real sample files
    python bench/answers.py --option search.translation_weight=0.5,0   # plus a column per value of a setting
    python bench/answers.py --constant kotae.answer.extractive.KEEP_RATIO=0.95,0.96   # a column per value of a constant

Sets: samples/golden-ja/en.jsonl (split by id hash, bench/common.hash_split) and samples/golden-users-ja/en.jsonl
(their own `split` field; choices are made on the fit halves only), all over one index of samples/docs, hybrid search,
default settings, answers from the top 5 as bench/golden.py. "correct" is phrase-correct (the answer holds a
must_contain phrase). A miss is diagnosed as: refused; "not retrieved" (no top-5 passage holds a phrase);
"not chosen" (a passage holds it, the answer does not). `--real`: bench/golden/users-real.jsonl (questions about
the real PDFs, DOCX and CSVs of ../shared/data/samples, Japanese and English, some across languages; its own
split) and bench/golden/users-real2.jsonl (50 more, about other real files, written 2026-12-04 after every choice
so far and never used for one: a test set) over one index of samples/docs and those files; writes
bench/results/answers_real.{json,md}.
"""
from __future__ import annotations

import argparse
import importlib
import os
import re
import sys
import tempfile
from collections import defaultdict
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import golden_splits, hash_split, machine, write

from kotae import Kotae
from kotae.answer.extractive import noise
from kotae.config import SearchSettings, Settings, overlay
from kotae.embed import DEFAULT_ENGINES, get_embedder
from kotae.eval import load_golden
from kotae.eval.metrics import holds
from kotae.search.rerank import get_reranker

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SETS = {"ja": "samples/golden-ja.jsonl", "en": "samples/golden-en.jsonl",
        "users-ja": "samples/golden-users-ja.jsonl", "users-en": "samples/golden-users-en.jsonl",
        "users2-ja": "samples/golden-users2-ja.jsonl", "users2-en": "samples/golden-users2-en.jsonl",
        "users3-ja": "samples/golden-users3-ja.jsonl", "users3-en": "samples/golden-users3-en.jsonl",
        "users4-en": "samples/golden-users4-en.jsonl", "users5-ja": "samples/golden-users5-ja.jsonl",
        "users-real": "bench/golden/users-real.jsonl",
        "users-real2": "bench/golden/users-real2.jsonl"}
REAL = ("docling", "unstructured", "pdfminer")  # --real: the folders of ../shared/data/samples indexed beside
ANSWER_K = 5
# --compare: a choice of the sentence scorer switched off for a second pass over the same index (module, constant)
CHOICES = {"sentence-translation": ("kotae.answer.ask", "SENTENCE_TRANSLATED"),
           "noise-lines": ("kotae.answer.ask", "NOISE_LINES")}


def diagnose(it: Any, k: Kotae) -> dict[str, Any]:
    a = k.ask(it.question, mode="hybrid", top_k=ANSWER_K)
    phrases = [p for p in it.evidence.phrases if p]
    ranks = [n for n, s in enumerate(a.sources, 1) if any(holds(s.hit.chunk.text, p) for p in phrases)]
    correct = a.found_in_docs and any(holds(a.answer, p) for p in phrases)
    why = ("ok" if correct else "refused" if not a.found_in_docs else "not chosen" if ranks else "not retrieved")
    return {"id": it.id, "category": it.category, "question": it.question, "must_contain": list(it.evidence.phrases),
            "correct": float(correct), "why": why, "phrase_in_sources": ranks, "answer": a.answer,
            "completeness": a.completeness, "noise": any(noise(part) for part in re.split(r"\[\d+\]", a.answer))}


def sentences(rows: list[dict[str, Any]]) -> float:
    """Mean cited sentences per answer, over the answered questions (the cost of quoting runners-up)."""
    said = [len(re.findall(r"\[\d+\]", r["answer"])) for r in rows if r["why"] != "refused"]
    return sum(said) / len(said) if said else 0.0


def characters(rows: list[dict[str, Any]]) -> float:
    """Mean characters per answer, citations left out, over the answered questions (what a reader wades through)."""
    said = [len(re.sub(r"\[\d+\]", "", r["answer"])) for r in rows if r["why"] != "refused"]
    return sum(said) / len(said) if said else 0.0


def score_sets(k: Kotae, names: list[str], only: str | None) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for name in names:
        path = os.path.join(ROOT, SETS[name])
        given = golden_splits(path)
        for it in load_golden(path):
            split = given.get(it.id) or hash_split(it.id)
            if it.answerable and (only is None or split == only):
                rows.append({"set": name, "split": split, **diagnose(it, k)})
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--index", help="index folder to reuse (default: a temporary one)")
    ap.add_argument("--out", help="results name under bench/results (default answers, or answers_real with --real)")
    ap.add_argument("--split", choices=("fit", "held-out"), help="score only this split (no results written)")
    ap.add_argument("--sets", help="comma-separated subset of " + ",".join(SETS) + " (default: all but users-real*; "
                                   "users-real and users-real2 with --real)")
    ap.add_argument("--option", action="append", default=[], metavar="KEY=V1,V2",
                    help="also answer with this setting at each value (a column each)")
    ap.add_argument("--real", metavar="SHARED", help="index samples/docs plus the real files of SHARED/samples "
                                                     "(e.g. ../shared/data) and score users-real(2) over them")
    ap.add_argument("--constant", action="append", default=[], metavar="MODULE.NAME=V1,V2",
                    help="also answer with this module constant at each value (a column each)")
    ap.add_argument("--compare", choices=sorted(CHOICES), help="also score with this choice switched off")
    ap.add_argument("--reranker", help="load this reranker (search.reranker); the answers use it only through "
                                       "--rerank-sentences")
    ap.add_argument("--rerank-sentences", default="", help="comma-separated search.rerank_sentences weights: a "
                                                           "column each, beside the default (0)")
    args = ap.parse_args()
    args.sets = args.sets or ("users-real,users-real2" if args.real
                              else ",".join(n for n in SETS if not n.startswith("users-real")))
    off: dict[str, float] = {}
    off_noise = 0
    weights = [float(w) for w in args.rerank_sentences.split(",") if w]
    columns: dict[str, dict[str, float]] = {}
    lengths: dict[str, float] = {}  # sentences per answer (its citations), per column
    sizes: dict[str, float] = {}  # characters per answer, per column
    with tempfile.TemporaryDirectory() as tmp:
        k = Kotae.open(args.index or tmp, settings=Settings(), embedder=get_embedder(DEFAULT_ENGINES[0]),
                       reranker=get_reranker(args.reranker) if args.reranker else None)
        real = [os.path.join(args.real, "samples", f) for f in REAL] if args.real else []
        k.index([os.path.join(ROOT, "samples", "docs"), *real])
        rows = score_sets(k, args.sets.split(","), args.split)
        doors = [(f"sentences {w:g}", k.using(settings=Settings(search=SearchSettings(rerank_sentences=w))))
                 for w in weights]
        doors += [(f"{key}={v}", k.using(settings=overlay(Settings(), {key: v}, "--option")))
                  for o in args.option for key, values in [o.split("=", 1)] for v in values.split(",")]
        for label, door in doors:
            done = score_sets(door, args.sets.split(","), args.split)
            columns[label] = {f"{r['set']}/{r['id']}": r["correct"] for r in done}
            lengths[label] = sentences(done)
            sizes[label] = characters(done)
        for c in args.constant:
            name, values = c.split("=", 1)
            mod = importlib.import_module(name.rsplit(".", 1)[0])
            saved = getattr(mod, name.rsplit(".", 1)[1])
            for v in values.split(","):
                setattr(mod, name.rsplit(".", 1)[1], v.lower() in ("1", "true", "on") if isinstance(saved, bool)
                        else type(saved)(v))
                try:
                    done = score_sets(k, args.sets.split(","), args.split)
                finally:
                    setattr(mod, name.rsplit(".", 1)[1], saved)
                label = f"{name.rsplit('.', 1)[1]}={v}"
                columns[label] = {f"{r['set']}/{r['id']}": r["correct"] for r in done}
                lengths[label] = sentences(done)
                sizes[label] = characters(done)
        if args.compare:
            module, name = CHOICES[args.compare]
            mod = importlib.import_module(module)
            saved = getattr(mod, name)
            setattr(mod, name, False)
            try:
                off_rows = score_sets(k, args.sets.split(","), args.split)
                off = {f"{r['set']}/{r['id']}": r["correct"] for r in off_rows}
                off_noise = sum(r["noise"] for r in off_rows)
            finally:
                setattr(mod, name, saved)
        k.close()
    groups: dict[tuple[str, str], list[float]] = defaultdict(list)
    without: dict[tuple[str, str], list[float]] = defaultdict(list)
    for r in rows:
        for g in ((r["set"], r["split"]), (r["set"], "all")):
            groups[g].append(r["correct"])
            if off:
                without[g].append(off[f"{r['set']}/{r['id']}"])
    extra = f" without {args.compare} |" if off else ""
    extra += "".join(f" {c} |" for c in columns)
    lines = ["| set | split | n | correct |" + extra, "|---|---|---|---|" + ("---|" if off else "") + "---|" * len(columns)]

    def share(col: dict[str, float], s: str, sp: str) -> float:
        vals = [col[f"{r['set']}/{r['id']}"] for r in rows if r["set"] == s and sp in (r["split"], "all")]
        return sum(vals) / len(vals)

    lines += [f"| {s} | {sp} | {len(v)} | {sum(v) / len(v):.3f} |"
              + (f" {sum(without[s, sp]) / len(v):.3f} |" if off else "")
              + "".join(f" {share(col, s, sp):.3f} |" for col in columns.values())
              for (s, sp), v in sorted(groups.items())]
    noisy = [f"{r['id']} ({r['split']})" for r in rows if r["noise"]]
    quoted = (f"Answers quoting a line that is no sentence (chart ticks, contents leaders: `extractive.noise`): "
              f"{len(noisy)} of {len(rows)}{f' (without {args.compare}: {off_noise})' if off else ''}"
              f"{': ' + ', '.join(noisy) if noisy else ''}.")
    lines += ["", quoted, "", "Sentences per answer (its citations; answered questions): "
              + "; ".join(f"{label} {n:.2f}" for label, n in {"default": sentences(rows), **lengths}.items()) + ".",
              "", "Characters per answer (citations left out; answered questions): "
              + "; ".join(f"{label} {n:.0f}" for label, n in {"default": characters(rows), **sizes}.items()) + "."]
    lines += ["", "Misses:", "", "| set | split | id | why | phrase in source # | question |", "|---|---|---|---|---|---|"]
    lines += [f"| {r['set']} | {r['split']} | {r['id']} | {r['why']} | {r['phrase_in_sources']} | {r['question']} |"
              for r in rows if not r["correct"]]
    if args.split:
        print("\n".join(lines))
        for r in rows:
            if not r["correct"]:
                print(f"\n## {r['id']} {r['why']} {r['phrase_in_sources']} {r['question']}\n  must: {r['must_contain']}"
                      f"\n  answer: {r['answer']}")
        return 0
    m = machine()
    header = (f"Extractive answers over samples/docs{' and the real files of ../shared/data/samples' if args.real else ''} (hybrid, default settings, answers from the top {ANSWER_K}), "
              f"phrase-correct per split (golden-ja/en: split by id hash; users sets: their own split; choices are "
              f"made on the fit halves, the held-out halves are only reported). Machine: {m['cpu']}, {m['cores']} cores. Command: `python bench/answers.py"
              f"{' --real ../shared/data' if args.real else ''}"
              f"{' --compare ' + args.compare if off else ''}"
              f"{f' --reranker {args.reranker}' if args.reranker else ''}"
              f"{f' --rerank-sentences {args.rerank_sentences}' if weights else ''}"
              f"{''.join(f' --option {o}' for o in args.option)}"
              f"{''.join(f' --constant {c}' for c in args.constant)}`.\n\n")
    write(args.out or ("answers_real" if args.real else "answers"), {"machine": m, "rows": rows, "without": {"choice": args.compare, "correct": off},
                      "rerank_sentences": columns,
                      "summary": {f"{s}/{sp}": sum(v) / len(v) for (s, sp), v in groups.items()}},
          header + "\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
