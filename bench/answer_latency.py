"""Extractive answer latency with the sentence vectors kept across questions (kotae.embed.memo) against
embedding every question's sentences anew, in one process, interleaved per question.

    kotae --index /tmp/ans-idx index samples/docs                                   # an index, once
    python bench/answer_latency.py --index /tmp/ans-idx [--sets samples/golden-ja.jsonl,samples/golden-en.jsonl]

The questions are asked in their file order, as a session would: "kept" keeps one memo for the whole run,
"anew" gets an empty one for each question (what every answer cost before). Which of the two goes first
alternates per question. Reports the answer stage ("generate") and the whole ask, p50 / p95, and whether the
two answers were identical for every question.
"""
from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import machine, write

from kotae.embed.memo import PassageMemo
from kotae.eval import load_golden
from kotae.eval.metrics import percentile
from kotae.facade import Kotae

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--index", required=True)
    ap.add_argument("--sets", default="samples/golden-ja.jsonl,samples/golden-en.jsonl")
    ap.add_argument("--out", default="answer_latency")
    args = ap.parse_args()
    start = machine()
    questions = [it.question for path in args.sets.split(",")
                 for it in load_golden(path if os.path.isabs(path) else os.path.join(ROOT, path))]
    times: dict[str, dict[str, list[float]]] = {w: {"generate": [], "total": []} for w in ("anew", "kept")}
    same = answered = 0
    with Kotae.open(args.index) as k:
        searcher = k.searcher
        kept = PassageMemo(k.embedder)
        for q in questions[:3]:  # warm: model, analyser, page cache (with throwaway memos)
            searcher.sentences = PassageMemo(k.embedder)
            k.ask(q)
        for i, q in enumerate(questions):
            got = {}
            for way in (("anew", "kept") if i % 2 else ("kept", "anew")):
                searcher.sentences = kept if way == "kept" else PassageMemo(k.embedder)
                a = k.ask(q)
                got[way] = a.answer
                if a.found_in_docs:
                    times[way]["generate"].append(a.timings_ms.get("generate") or 0.0)
                times[way]["total"].append(a.timings_ms.get("total") or 0.0)
            same += got["anew"] == got["kept"]
            answered += bool(got["kept"])
    res = {w: {f"{s}_{p}_ms": round(percentile(v, p), 1) for s, v in t.items() for p in (50, 95)}
           for w, t in times.items()}
    payload = {"settings": vars(args), "machine": {**start, "load_average_at_end": [round(x, 2) for x in os.getloadavg()]},
               "questions": len(questions), "identical_answers": same, "answered": len(times["kept"]["generate"]),
               "results": res}
    m = payload["machine"]
    lines = [(f"Extractive answers over `{args.index}`, {len(questions)} questions ({args.sets}) in file order, "
              f"sentence vectors kept across questions vs embedded anew, interleaved. Machine: {m['cpu']}, "
              f"{m['cores']} cores, load {m['loadavg_1_5_15']} at start, {m['load_average_at_end']} at end. "
              f"Identical answers: {same}/{len(questions)}; answer stage timed on the {payload['answered']} answered "
              "questions (refusals skip it). Command: `python bench/answer_latency.py`."), "",
             "| sentence vectors | answer stage p50 / p95 ms | whole ask p50 / p95 ms |", "|---|---|---|"]
    for w, label in (("anew", "embedded anew (before)"), ("kept", "kept across questions")):
        r = res[w]
        lines.append(f"| {label} | {r['generate_50_ms']} / {r['generate_95_ms']} | {r['total_50_ms']} / {r['total_95_ms']} |")
    write(args.out, payload, "\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
