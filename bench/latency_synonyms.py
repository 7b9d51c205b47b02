"""Query latency with and without synonym expansion, side by side on one synthetic index.

    python bench/latency_synonyms.py [--size 100000] [--queries 60] [--workplace | --translations | --names]

The corpus of bench/latency.py (sample sentences, random unit vectors) at one size, its keyword text with
synonym group terms as a new index stores it. Each golden-set question (embedded once with the real
model beforehand) is searched in hybrid mode with synonyms off, then on, alternating, so a loaded machine
slows both alike. Reports the retrieval p50/p95 (everything but the query embedding) and the keyword
stage. With --workplace, a second index built with kotae's workplace groups joins (its questions read with the
same groups), the three variants alternating with the order swapped every other question. With --translations,
the index records that it holds Japanese and English chunks (as self-calibration does), the questions are spread
over golden-ja and golden-en (`latency.spread_questions`), and search.translations off and on (the default)
alternate. With --names, the same bilingual index and questions with search.absent_names off and on (the
default; the gate's lookup of the names a question mentions, through the lexicon both ways). Writes
bench/results/latency_synonyms{_workplace,_translations,_names}.{json,md}.
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import machine, write
from latency import build, sentences, spread_questions

from kotae.config import SearchSettings
from kotae.embed import DEFAULT_ENGINES, get_embedder
from kotae.eval import load_golden
from kotae.eval.metrics import percentile
from kotae.search import Searcher, synonyms
from kotae.search import searcher as searcher_module
from kotae.store import open_store

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def sudachi_table() -> synonyms.Synonyms:
    with gzip.open(synonyms.DATA, "rt", encoding="utf-8") as f:
        return synonyms.Synonyms.from_rows(synonyms.parse(f.readlines()))


def workplace_table() -> synonyms.Synonyms:
    with gzip.open(synonyms.DATA, "rt", encoding="utf-8") as f, open(synonyms.WORKPLACE_FILE, encoding="utf-8") as w:
        return synonyms.Synonyms.from_rows(synonyms.parse(f.readlines()) + synonyms.workplace_rows(w.readlines()))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=100000)
    ap.add_argument("--queries", type=int, default=60)
    ap.add_argument("--workplace", action="store_true",
                    help="also kotae's workplace groups (a second index built with them, as an index made with "
                         "synonyms.WORKPLACE set holds them)")
    ap.add_argument("--translations", action="store_true",
                    help="search.translations off and on over an index that records Japanese and English chunks")
    ap.add_argument("--names", action="store_true",
                    help="search.absent_names off and on over an index that records Japanese and English chunks")
    args = ap.parse_args()
    embedder = get_embedder(DEFAULT_ENGINES[0])
    questions = [it.question for g in ("golden-ja.jsonl", "golden-en.jsonl", "golden-users-ja.jsonl",
                                       "golden-users-en.jsonl")
                 for it in load_golden(os.path.join(ROOT, "samples", g))][: args.queries]
    if args.translations or args.names:
        questions = spread_questions(args.queries)
    vectors = [embedder.query(q) for q in questions]
    pool = sentences()
    with tempfile.TemporaryDirectory() as tmp:
        stores, build_s = {}, 0.0
        for name, table in (("sudachi", sudachi_table()),) + ((("workplace", workplace_table()),) if args.workplace else ()):
            store = stores[name] = (open_store(os.path.join(tmp, name)), table)
            store[0].bind_model(embedder.model_id)
            t0 = time.perf_counter()
            build(store[0], args.size, embedder.dim, pool, random.Random(args.size), table)
            build_s = time.perf_counter() - t0
        # (searcher, the synonym table its questions are read with)
        runs = {"synonyms off": (Searcher(stores["sudachi"][0], embedder, SearchSettings(synonyms=False)),
                                 stores["sudachi"][1]),
                "synonyms on": (Searcher(stores["sudachi"][0], embedder, SearchSettings()), stores["sudachi"][1])}
        if args.translations:
            stores["sudachi"][0].set_meta("corpus_langs", json.dumps({"ja": args.size // 2, "en": args.size // 2}))
            runs = {name: (Searcher(stores["sudachi"][0], embedder, SearchSettings(translations=t, translation_dense=d)),
                           stores["sudachi"][1])
                    for name, t, d in (("translations off", 0, 0.0), ("keyword translations", 3, 0.0),
                                       ("keyword + dense translations (default)", 3, 1.0))}
        if args.names:
            stores["sudachi"][0].set_meta("corpus_langs", json.dumps({"ja": args.size // 2, "en": args.size // 2}))
            runs = {name: (Searcher(stores["sudachi"][0], embedder, SearchSettings(absent_names=t)),
                           stores["sudachi"][1]) for name, t in (("names off", False), ("names on", True))}
        if args.workplace:
            runs["synonyms on + workplace groups"] = (Searcher(stores["workplace"][0], embedder, SearchSettings()),
                                                      stores["workplace"][1])
        for s, table in runs.values():
            searcher_module.on_demand = lambda t=table: t
            s.search("warm up", vector=vectors[0])
        stages: dict[str, dict[str, list[float]]] = {k: {"search": [], "keyword": [], "embed_translation": []}
                                                     for k in runs}
        for i, (q, v) in enumerate(zip(questions, vectors, strict=True)):
            for name in list(runs)[:: 1 if i % 2 == 0 else -1]:  # the order swapped every other question
                s, table = runs[name]
                searcher_module.on_demand = lambda t=table: t
                t = s.search(q, mode="hybrid", top_k=10, vector=v).timings_ms
                stages[name]["search"].append(t["search"])
                stages[name]["keyword"].append(t["keyword"])
                stages[name]["embed_translation"].append(t.get("embed_translation", 0.0))
        for store, _ in stores.values():
            store.close()
    res = {k: {f"{st}_{p}_ms": round(percentile(v, p), 2) for st, v in d.items() for p in (50, 95)}
           for k, d in stages.items()}
    m = machine()
    md = (f"Hybrid query latency in ms (query embedding excluded), {len(questions)} golden-set questions, "
          f"{args.size:,} synthetic chunks (bench/latency.py's corpus, keyword text with synonym group terms; built "
          f"in {build_s:.0f} s), the two settings alternating per question. Machine: {m['cpu']}, {m['cores']} "
          f"cores, load average at start {m['loadavg_1_5_15'][0]}. Command: `python bench/latency_synonyms.py "
          f"--size {args.size}{' --workplace' if args.workplace else ''}{' --translations' if args.translations else ''}{' --names' if args.names else ''}`.\n\n| setting | retrieval p50 | retrieval p95 | keyword p50 | keyword p95 |\n"
          "|---|---|---|---|---|\n" + "\n".join(
              f"| {k} | **{r['search_50_ms']}** | {r['search_95_ms']} | {r['keyword_50_ms']} | {r['keyword_95_ms']} |"
              for k, r in res.items())
          + "\n\nEmbedding the translated words (not in the retrieval columns), p50 / p95 ms: " + ", ".join(
              f"{k} {r['embed_translation_50_ms']} / {r['embed_translation_95_ms']}" for k, r in res.items()))
    suffix = "_workplace" if args.workplace else "_translations" if args.translations else "_names" if args.names else ""
    write("latency_synonyms" + suffix, {"settings": vars(args), "machine": m, "build_s": round(build_s, 1), "results": res}, md)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
