"""Fusion rules side by side: which way of combining dense and keyword ranks beats both retrievers on every set.

    python bench/fusion.py            # SciFact train, JSQuAD valid (cached indexes of bench/retrieval.py), golden sets

Each question is searched once per retriever (dense top 100 with cosines, keyword top 100 with BM25 scores,
and the keyword coverage of the best three keyword hits, as kotae's searcher computes it); the fusion rules
are then applied to the same lists, so the differences are the rules' alone:
- rrf: reciprocal rank fusion, k = 60, equal weights;
- rrf, keyword × coverage: the keyword weight scaled by coverage (kotae's rule until this benchmark);
- rrf, keyword × 2·coverage: the same scale, centred on 1 (keyword counts more than dense when the best
  keyword hits hold most of the question's rare words, less when they hold few);
- rrf, top 50: fusion over the top 50 of each list only (kotae's candidate depth);
Writes bench/results/fusion.{json,md}: nDCG@10 and MRR@10 per set and rule.
"""
from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import machine, write

from kotae.config import IndexSettings
from kotae.embed import DEFAULT_ENGINES, get_embedder
from kotae.eval import load_golden
from kotae.eval.beir import load_beir
from kotae.eval.beir_eval import default_index
from kotae.eval.metrics import Retrieved, graded_metrics, mean_metrics, retrieval_metrics
from kotae.pipeline import index_paths
from kotae.records import index_records
from kotae.search.analyze import analyze
from kotae.search.fusion import rrf
from kotae.search.searcher import Searcher
from kotae.store import open_store
from kotae.types import Record

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEPTH = 100

Lists = tuple[list[tuple[int, float]], list[tuple[int, float]], float]  # dense, keyword, coverage


def lists(searcher: Searcher, q: str) -> Lists:
    store = searcher.store
    qvec = searcher.embedder.query(q)
    dense, _ = searcher.dense_index().search_with_margin(qvec, DEPTH, None)
    tokens = analyze(q)
    keyword = store.keyword_search(tokens, DEPTH, None)
    terms = list(dict.fromkeys(tokens))
    df, n = store.document_frequencies(terms) if terms else ({}, 0)
    return dense, keyword, searcher.keyword_coverage(terms, keyword, df, n)


def _rrf(dense: list[tuple[int, float]], keyword: list[tuple[int, float]], wk: float, depth: int = DEPTH,
         wd: float = 1.0) -> list[int]:
    fused = rrf({"d": [r for r, _ in dense[:depth]], "k": [r for r, _ in keyword[:depth]]}, k=60,
                weights={"d": wd, "k": wk})
    return [r for r, _ in fused]


RULES: dict[str, Callable[[Lists], list[int]]] = {
    "dense": lambda x: [r for r, _ in x[0]],
    "keyword": lambda x: [r for r, _ in x[1]],
    "rrf": lambda x: _rrf(x[0], x[1], 1.0),
    "rrf, keyword × coverage": lambda x: _rrf(x[0], x[1], x[2]),
    "rrf, keyword × 2·coverage": lambda x: _rrf(x[0], x[1], 2 * x[2]),
    "rrf, keyword × 2·coverage, top 50": lambda x: _rrf(x[0], x[1], 2 * x[2], 50),
    "rrf, top 50": lambda x: _rrf(x[0], x[1], 1.0, 50),
}


def beir_set(path: str, split: str | None, embedder, model: str, index_root: str) -> tuple[str, list[dict]]:  # type: ignore[no-untyped-def]
    data = load_beir(path, split)
    store = open_store(default_index(data.name, model, index_root))
    index_records([Record(d.id, d.passage, d.title) for d in data.corpus], data.name, store, embedder)
    searcher = Searcher(store, embedder)
    rows: dict[str, list[dict]] = {r: [] for r in RULES}
    for qid, text in data.queries:
        x = lists(searcher, text)
        files = store.chunks(list({r for r, _ in x[0]} | {r for r, _ in x[1]}))
        for name, rule in RULES.items():
            ranked = [files[r].file for r in rule(x)[:DEPTH] if r in files]
            rows[name].append(graded_metrics(ranked, data.qrels[qid]))
    store.close()
    return f"{data.name} ({data.split}, {len(data.queries)} q)", [
        {"rule": n, **{k: round(v, 4) for k, v in mean_metrics(rs).items()}} for n, rs in rows.items()]


def golden_sets(embedder, tmp: str) -> list[tuple[str, list[dict]]]:  # type: ignore[no-untyped-def]
    store = open_store(tmp)
    index_paths([os.path.join(ROOT, "samples", "docs")], store, embedder, IndexSettings())
    searcher = Searcher(store, embedder)
    out = []
    for name in ("ja", "en"):
        items = [it for it in load_golden(os.path.join(ROOT, "samples", f"golden-{name}.jsonl")) if it.answerable]
        rows: dict[str, list[dict]] = {r: [] for r in RULES}
        for it in items:
            x = lists(searcher, it.question)
            chunks = store.chunks(list({r for r, _ in x[0]} | {r for r, _ in x[1]}))
            for rname, rule in RULES.items():
                found = [Retrieved(chunks[r].file, chunks[r].page, chunks[r].text) for r in rule(x)[:10] if r in chunks]
                rows[rname].append(retrieval_metrics(found, it.evidence, "either"))
        out.append((f"golden-{name} ({len(items)} q)", [
            {"rule": n, **{k: round(v, 4) for k, v in mean_metrics(rs).items()}} for n, rs in rows.items()]))
    store.close()
    return out


def table(results: Sequence[tuple[str, list[dict]]]) -> str:
    names = [n for n, _ in results]
    lines = ["| rule | " + " | ".join(f"{n} nDCG@10 / MRR@10" for n in names) + " |", "|---" * (len(names) + 1) + "|"]
    for i, rule in enumerate(RULES):
        cells = [f"{rs[i]['ndcg@10']:.3f} / {rs[i]['mrr@10']:.3f}" for _, rs in results]
        lines.append(f"| {rule} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data"))
    ap.add_argument("--index-root", default=os.path.join(ROOT, ".kotae-beir"))
    ap.add_argument("--model", default=DEFAULT_ENGINES[0])
    args = ap.parse_args()
    import tempfile

    embedder = get_embedder(args.model)
    results = []
    for folder, split in (("scifact", "train"), ("jsquad-valid", None)):
        path = os.path.join(args.data, folder)
        if os.path.isdir(path):
            results.append(beir_set(path, split, embedder, args.model, args.index_root))
            print(table(results), file=sys.stderr, flush=True)
        else:
            print(f"skipping {folder}: {path} not found", file=sys.stderr)
    with tempfile.TemporaryDirectory() as tmp:
        results += golden_sets(embedder, tmp)
    m = machine()
    md = (f"Fusion rules over the same dense and keyword lists (top {DEPTH} each), model {embedder.model_id}. "
          f"BEIR sets: one chunk per corpus entry, graded nDCG@10 / MRR@10; golden sets: answerable questions, "
          f"rule 'either'. Machine: {m['cpu']}, {m['cores']} cores. Command: `python bench/fusion.py`.\n\n"
          + table(results))
    write("fusion", {"machine": m, "model": embedder.model_id, "results": dict(results)}, md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
