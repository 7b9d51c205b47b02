"""Questions that name something: retrieval with `search.names_first` off and on, on the public sets.

    python bench/names.py [--data ../shared/data] [--limit 1000]     # → bench/results/names.{json,md}

`search.names_first` places the candidates whose documents name more of the question's names (kotae.search.named:
"Intel", "Aozora Labs", 「徳川家康」) before the others. The 10-Q set, where twenty filings of five companies read
alike, is measured by `python bench/reading.py --set sec10q --option search.names_first=true`. This script asks the
other question: what does it do where every paragraph is its own document and most questions name something
(JSQuAD 「徳川家康が…」, SQuAD "What did Tesla…", SciFact claims)? The questions of JSQuAD valid, the SQuAD 2.0 dev
half and SciFact whose `named.asked` is not empty (the first --limit of each), hybrid search over the whole corpus
(the indexes of bench/retrieval.py, in .kotae-beir, embeddings kept), the two settings in one run on the same
index; nDCG@10, MRR@10 and recall@1/5, and the search time per question (p50, off and on).
"""
from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import machine, write

from kotae import Kotae
from kotae.config import Settings
from kotae.embed import DEFAULT_ENGINES, get_embedder
from kotae.eval.beir import load_beir
from kotae.eval.beir_eval import default_index, evaluate_beir
from kotae.search.named import asked
from kotae.store import open_store

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SETS = ("jsquad-valid", "squad2-dev-half", "scifact")
METRICS = ("ndcg@10", "mrr@10", "recall@1", "recall@5")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data"))
    ap.add_argument("--index-root", default=os.path.join(ROOT, ".kotae-beir"))
    ap.add_argument("--limit", type=int, default=1000, help="named questions per set (the first N)")
    args = ap.parse_args()
    embedder = get_embedder(DEFAULT_ENGINES[0])
    rows = []
    for name in SETS:
        data = load_beir(os.path.join(args.data, name))
        named = [(qid, text) for qid, text in data.queries if asked(text)]
        data = replace(data, queries=named[: args.limit])
        store = open_store(default_index(data.name, DEFAULT_ENGINES[0], args.index_root))
        base = Settings()
        for label, on in (("off", False), ("on", True)):
            settings = replace(base, search=replace(base.search, names_first=on))
            run = evaluate_beir(data, Kotae(store, embedder, settings), ("hybrid",))
            rows.append({"set": name, "queries": len(data.queries), "names_first": label, **run.modes["hybrid"],
                         "p50_ms": run.timings.get("hybrid", {}).get("p50_ms")})
            print(rows[-1], file=sys.stderr, flush=True)
        store.close()
    m = machine()
    lines = [(f"Questions naming something (`kotae.search.named.asked`; the first {args.limit} of each set), hybrid "
              f"search over the whole corpus, `search.names_first` off and on in one run. Machine: {m['cpu']}, "
              f"{m['cores']} cores. Command: `python bench/names.py --limit {args.limit}`."), "",
             "| set | named questions | names_first | " + " | ".join(METRICS) + " | search p50 ms |",
             "|---|---|---|" + "---|" * (len(METRICS) + 1)]
    lines += [f"| {r['set']} | {r['queries']} | {r['names_first']} | " + " | ".join(f"{r[k]:.4f}" for k in METRICS)
              + f" | {r['p50_ms']} |" for r in rows]
    write("names", {"machine": m, "rows": rows}, "\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
