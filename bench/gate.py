"""The abstention gate's sanity floor: questions from another corpus must be refused, the corpus' own answered.

    python bench/gate.py [--n 500]

Index: JSQuAD valid's 1,145 Wikipedia paragraphs (the cached index of bench/retrieval.py). Answerable: the
first N JSQuAD questions. Unanswerable: the first N SciFact claims (English biomedical claims, out of
corpus) and, because those are not even Japanese, the Japanese golden set's questions (about a company's
work rules, absent from Wikipedia paragraphs) asked of this corpus. The gate runs with kotae's default
thresholds, and with thresholds calibrated (as `kotae calibrate` does) on half of the questions and scored
on the other half.
Out-of-corpus questions are a floor, not the hard case: the in-domain unanswerable questions of the
golden sets are (bench/golden.py).
Writes bench/results/gate.{json,md}: abstention (recall), false refusals, precision.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import machine, write

from kotae.embed import DEFAULT_ENGINES, get_embedder
from kotae.eval import load_golden
from kotae.eval.beir import load_beir
from kotae.eval.beir_eval import default_index
from kotae.records import index_records
from kotae.search.gate import GateSettings, calibrate, evaluate
from kotae.search.searcher import Searcher
from kotae.store import open_store
from kotae.types import Record

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data"))
    ap.add_argument("--index-root", default=os.path.join(ROOT, ".kotae-beir"))
    ap.add_argument("--model", default=DEFAULT_ENGINES[0])
    ap.add_argument("--n", type=int, default=500)
    args = ap.parse_args()
    jsq, sci = os.path.join(args.data, "jsquad-valid"), os.path.join(args.data, "scifact")
    if not (os.path.isdir(jsq) and os.path.isdir(sci)):
        print(f"needs {jsq} and {sci}", file=sys.stderr)
        return 1
    embedder = get_embedder(args.model)
    data = load_beir(jsq, None, args.n)
    store = open_store(default_index(data.name, args.model, args.index_root))
    index_records([Record(d.id, d.passage, d.title) for d in data.corpus], data.name, store, embedder)
    searcher = Searcher(store, embedder)
    with open(os.path.join(sci, "queries-train.jsonl"), encoding="utf-8") as f:
        claims = [json.loads(line)["text"] for _, line in zip(range(args.n), f, strict=False)]
    off_topic_ja = [it.question for it in load_golden(os.path.join(ROOT, "samples", "golden-ja.jsonl"))]

    def samples(questions: list[str], answerable: bool) -> list[tuple[bool, float, float]]:
        out = []
        for q in questions:
            g = searcher.search(q).gate
            out.append((answerable, g.margin, g.coverage))
        return out

    answerable = samples([q for _, q in data.queries], True)
    sets = {"SciFact claims (English, out of corpus)": samples(claims, False),
            "golden-ja questions (Japanese HR rules, out of corpus)": samples(off_topic_ja, False)}
    store.close()
    default = GateSettings()
    rows, results = [], {}
    for name, unanswerable in sets.items():
        st = evaluate(answerable + unanswerable, default)
        # calibrated (kotae calibrate's rule) on the even-numbered questions, scored on the odd-numbered ones
        fit, _ = calibrate(answerable[::2] + unanswerable[::2])
        held = evaluate(answerable[1::2] + unanswerable[1::2], fit)
        results[name] = {"default": {**st.__dict__, "precision": st.precision, "recall": st.recall},
                         "calibrated": {"thresholds": fit.to_dict(), **held.__dict__, "precision": held.precision,
                                        "recall": held.recall}}
        for label, x in ((f"default (margin {default.min_margin}, coverage {default.min_coverage})", st),
                         ((f"calibrated on half (margin {fit.min_margin:.3f}, coverage {fit.min_coverage:.2f}), "
                          "scored on the other half"), held)):
            rows.append(f"| {name} | {label} | {x.abstained}/{x.unanswerable} ({x.recall:.3f}) | "
                        f"{x.false_refusals}/{x.answerable} ({x.false_refusal_rate:.3f}) | {x.precision:.3f} |")
    m = machine()
    md = (f"Gate sanity floor on the JSQuAD valid corpus (1,145 paragraphs); answerable: the first {len(answerable)} "
          f"JSQuAD questions. Model "
          f"{embedder.model_id}. Machine: {m['cpu']}, {m['cores']} cores. Command: `python bench/gate.py --n {args.n}`."
          "\n\n| unanswerable set | thresholds | abstained | false refusals (JSQuAD questions) | precision |\n"
          "|---|---|---|---|---|\n"
          + "\n".join(rows))
    write("gate", {"machine": m, "settings": vars(args), "results": results}, md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
