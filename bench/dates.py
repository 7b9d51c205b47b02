"""Questions that name a date: retrieval with `search.dates_first` off and on, on the public sets' dated questions.

    python bench/dates.py [--data ../shared/data]        # → bench/results/dates.{json,md}

`search.dates_first` places the candidates that name a question's date (kotae.search.dates) before the others.
The 10-Q set, where every question names its quarter's end, is measured by `python bench/reading.py --set sec10q
--option search.dates_first=true` (page hits and answers). This script asks the other question: what does it do
to questions about Wikipedia paragraphs that happen to name a date (JSQuAD 「1992年4月1日 - 2010年5月30日に…」,
SQuAD "What happened on October 6, 1973…")? The questions of JSQuAD valid and the SQuAD 2.0 dev half whose
`dates.asked` is not empty, hybrid search over the whole corpus (the indexes of bench/retrieval.py, in
.kotae-beir, embeddings kept), the two settings in one run on the same index; nDCG@10, MRR@10 and recall@1/5.
Cost: the time to read a chunk's dates (`mentions(..., in_context=True)`, what the searcher does once per chunk
and index generation for questions that name a date) over the JSQuAD paragraphs, and over 180,000 characters of
yearless dates (a hostile chunk).
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import sys
import time
from dataclasses import replace

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import machine, write

from kotae import Kotae
from kotae.config import Settings
from kotae.embed import DEFAULT_ENGINES, get_embedder
from kotae.eval.beir import load_beir
from kotae.eval.beir_eval import default_index, evaluate_beir
from kotae.search.dates import asked, mentions
from kotae.store import open_store

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SETS = ("jsquad-valid", "squad2-dev-half")
METRICS = ("ndcg@10", "mrr@10", "recall@1", "recall@5")


def all_questions(data: str) -> dict[str, list[str]]:
    """Every question on hand, by file: the golden sets, the bundled negatives and the public sets' queries."""
    out: dict[str, list[str]] = {}
    files = glob.glob(os.path.join(ROOT, "samples", "*.jsonl")) + glob.glob(os.path.join(ROOT, "bench", "golden", "*.jsonl"))
    files += glob.glob(os.path.join(ROOT, "src", "kotae", "data", "negatives", "*.jsonl"))
    for f in files:
        with open(f, encoding="utf-8") as fh:
            rows = [json.loads(line) for line in fh if line.strip()]
        out[os.path.relpath(f, ROOT)] = [r.get("question") or r.get("q") or "" for r in rows]
    for name in (*SETS, "scifact"):
        out[name] = [text for _, text in load_beir(os.path.join(data, name)).queries]
    return out


def quarter_questions(data: str) -> dict[str, list[str]]:
    """The questions of each source that ask a quarter alone."""
    return {k: [q for q in qs if any("Q" in d for d in asked(q))] for k, qs in all_questions(data).items()}


def quarters_total(data: str) -> int:
    return sum(len(qs) for qs in all_questions(data).values())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data"))
    ap.add_argument("--index-root", default=os.path.join(ROOT, ".kotae-beir"))
    args = ap.parse_args()
    embedder = get_embedder(DEFAULT_ENGINES[0])
    rows = []
    for name in SETS:
        data = load_beir(os.path.join(args.data, name))
        data = replace(data, queries=[(qid, text) for qid, text in data.queries if asked(text)])
        store = open_store(default_index(data.name, DEFAULT_ENGINES[0], args.index_root))
        base = Settings()
        for label, on in (("off", False), ("on", True)):
            settings = replace(base, search=replace(base.search, dates_first=on))
            run = evaluate_beir(data, Kotae(store, embedder, settings), ("hybrid",))
            rows.append({"set": name, "queries": len(data.queries), "dates_first": label, **run.modes["hybrid"]})
            print(rows[-1], file=sys.stderr, flush=True)
        store.close()
    texts = [d.passage for d in load_beir(os.path.join(args.data, SETS[0])).corpus]
    t0 = time.perf_counter()
    for text in texts:
        mentions(text, in_context=True)
    per_chunk = (time.perf_counter() - t0) / len(texts) * 1000
    hostile = "2023年 5月 " * 20000
    t0 = time.perf_counter()
    mentions(hostile, in_context=True)
    hostile_s = time.perf_counter() - t0
    quarters = quarter_questions(args.data)
    m = machine()
    lines = [(f"Questions naming a date (`kotae.search.dates.asked`), hybrid search over the whole corpus, "
             f"`search.dates_first` off and on in one run. Machine: {m['cpu']}, {m['cores']} cores. "
             f"Command: `python bench/dates.py`."), "",
             "| set | dated questions | dates_first | " + " | ".join(METRICS) + " |",
             "|---|---|---|" + "---|" * len(METRICS)]
    lines += [f"| {r['set']} | {r['queries']} | {r['dates_first']} | " + " | ".join(f"{r[k]:.4f}" for k in METRICS) + " |"
              for r in rows]
    lines += ["", (f"Reading a chunk's dates: {per_chunk:.3f} ms per JSQuAD paragraph ({len(texts)} paragraphs); "
              f"{len(hostile):,} characters of yearless dates: {hostile_s:.3f} s.")]
    lines += ["", (f"Questions that ask a quarter alone (`asked` holds a quarter: \"Q3 2023\", 「2023年第3四半期」): "
                   f"{sum(len(v) for v in quarters.values())} of {quarters_total(args.data)} questions of every set on hand"
                   f" (samples' and bench's golden sets, the bundled negatives, JSQuAD, SQuAD, SciFact): "
                   + "; ".join(f"{k}: {', '.join(v)}" for k, v in quarters.items() if v) + ".")]
    write("dates", {"machine": m, "rows": rows, "ms_per_chunk": round(per_chunk, 4), "hostile_s": round(hostile_s, 4),
                    "quarter_questions": quarters},
          "\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
