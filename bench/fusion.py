"""Fusion rules side by side: which way of combining dense and keyword ranks beats both retrievers on every set.

    python bench/fusion.py [--sets jsquad-valid,squad2-dev-half,scifact] [--limit-queries N] [--golden A,B]
                           [--split fit] [--out fusion]

Each question is searched once per retriever (dense top 100 with cosines and the margin, keyword top 100
with BM25 scores, the keyword search of its synonym expansion, and the keyword coverage of the best
three keyword hits, as kotae's searcher computes it); the fusion rules are then applied to the same
lists, so the differences are the rules' alone: plain RRF (k = 60), kotae's keyword weight × 2·coverage
over the top 50, with synonyms at 0.3/0.5/1.0, and per-query trust rules (dense weight from the keyword
coverage, from the dense margin, or each arm from its top-5 score gap). BEIR sets are reported in two
halves: even-numbered queries (fit: where a rule may be chosen) and odd-numbered (held out).
Writes bench/results/<out>.{json,md}: nDCG@10 and MRR@10 per set and rule.
"""
from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import golden_splits, machine, write

from kotae.config import IndexSettings
from kotae.embed import DEFAULT_ENGINES, get_embedder
from kotae.eval import load_golden
from kotae.eval.beir import load_beir
from kotae.eval.beir_eval import default_index
from kotae.eval.metrics import Retrieved, graded_metrics, mean_metrics, retrieval_metrics
from kotae.pipeline import index_paths
from kotae.records import index_records
from kotae.search.analyze import analyze
from kotae.search.fusion import add_weighted, rrf
from kotae.search.searcher import Searcher
from kotae.store import open_store
from kotae.types import Record

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEPTH = 100

@dataclass
class Lists:
    dense: list[tuple[int, float]]
    keyword: list[tuple[int, float]]  # the question's own words
    coverage: float
    synonyms: list[tuple[int, float]]  # the keyword search of its synonym expansion
    margin: float  # top dense similarity over the mean


def lists(searcher: Searcher, q: str) -> Lists:
    store = searcher.store
    qvec = searcher.embedder.query(q)
    dense, margin = searcher.dense_index().search_with_margin(qvec, DEPTH, None)
    tokens = analyze(q)
    keyword = store.keyword_search(tokens, DEPTH, None)
    terms = list(dict.fromkeys(tokens))
    df, n = store.document_frequencies(terms) if terms else ({}, 0)
    extra = searcher.expansion(tokens)
    syn = store.keyword_search(extra, DEPTH, None) if extra else []
    return Lists(dense, keyword, searcher.keyword_coverage(terms, keyword, df, n), syn, margin)


def _kw(x: Lists, w: float) -> list[tuple[int, float]]:
    return add_weighted(x.keyword, x.synonyms, w, DEPTH) if w else x.keyword


def _gap(scores: list[tuple[int, float]]) -> float:
    """How far the top score stands above the fifth, relative to the top (0: flat)."""
    if len(scores) < 2 or scores[0][1] <= 0:
        return 0.0
    return (scores[0][1] - scores[min(4, len(scores) - 1)][1]) / scores[0][1]


def _rrf(dense: list[tuple[int, float]], keyword: list[tuple[int, float]], wk: float, depth: int = DEPTH,
         wd: float = 1.0) -> list[int]:
    fused = rrf({"d": [r for r, _ in dense[:depth]], "k": [r for r, _ in keyword[:depth]]}, k=60,
                weights={"d": wd, "k": wk})
    return [r for r, _ in fused]


RULES: dict[str, Callable[[Lists], list[int]]] = {
    "dense": lambda x: [r for r, _ in x.dense],
    "keyword": lambda x: [r for r, _ in x.keyword],
    "keyword + synonyms 0.5": lambda x: [r for r, _ in _kw(x, 0.5)],
    "rrf": lambda x: _rrf(x.dense, x.keyword, 1.0),
    "rrf, keyword × 2·coverage, top 50 (kotae before)": lambda x: _rrf(x.dense, x.keyword, 2 * x.coverage, 50),
    "rrf, keyword × 2·coverage, top 50, synonyms 0.5": lambda x: _rrf(x.dense, _kw(x, 0.5), 2 * x.coverage, 50),
    "rrf, keyword × 2·coverage, top 50, synonyms 0.3": lambda x: _rrf(x.dense, _kw(x, 0.3), 2 * x.coverage, 50),
    "rrf, keyword × 2·coverage, top 50, synonyms 1.0": lambda x: _rrf(x.dense, _kw(x, 1.0), 2 * x.coverage, 50),
    "rrf, synonyms 0.5, keyword × 2·cov, dense × 2·(1−cov)": lambda x: _rrf(
        x.dense, _kw(x, 0.5), 2 * x.coverage, 50, 2 * (1 - x.coverage)),
    "rrf, synonyms 0.5, keyword × 2·cov, dense × (0.5 + margin/0.08)": lambda x: _rrf(
        x.dense, _kw(x, 0.5), 2 * x.coverage, 50, 0.5 + x.margin / 0.08),
    "rrf, synonyms 0.5, each arm × (0.5 + its top-5 gap)": lambda x: _rrf(
        x.dense, _kw(x, 0.5), 0.5 + 4 * _gap(_kw(x, 0.5)), 50, 0.5 + 20 * _gap(x.dense)),
    "rrf, synonyms 0.5, keyword × 2·cov·(0.5 + gap), dense × (0.5 + gap)": lambda x: _rrf(
        x.dense, _kw(x, 0.5), 2 * x.coverage * (0.5 + 4 * _gap(_kw(x, 0.5))), 50, 0.5 + 20 * _gap(x.dense)),
}


def _means(rows: dict[str, list[dict]], keep: Callable[[int], bool]) -> list[dict]:
    return [{"rule": n, **{k: round(v, 4) for k, v in mean_metrics([r for i, r in enumerate(rs) if keep(i)]).items()}}
            for n, rs in rows.items()]


def beir_set(path: str, split: str | None, embedder, model: str, index_root: str,  # type: ignore[no-untyped-def]
             limit: int | None) -> list[tuple[str, list[dict]]]:
    """Even-numbered queries (fit: where rules are chosen) and odd-numbered (held out), reported apart."""
    data = load_beir(path, split, limit)
    store = open_store(default_index(data.name, model, index_root))
    index_records([Record(d.id, d.passage, d.title) for d in data.corpus], data.name, store, embedder)
    searcher = Searcher(store, embedder)
    rows: dict[str, list[dict]] = {r: [] for r in RULES}
    for qid, text in data.queries:
        x = lists(searcher, text)
        files = store.chunks(list({r for r, _ in x.dense} | {r for r, _ in x.keyword} | {r for r, _ in x.synonyms}))
        for name, rule in RULES.items():
            ranked = [files[r].file for r in rule(x)[:DEPTH] if r in files]
            rows[name].append(graded_metrics(ranked, data.qrels[qid]))
    store.close()
    n = len(data.queries)
    return [(f"{data.name} fit ({(n + 1) // 2} q)", _means(rows, lambda i: i % 2 == 0)),
            (f"{data.name} held-out ({n // 2} q)", _means(rows, lambda i: i % 2 == 1))]


def golden_sets(embedder, tmp: str, files: Sequence[str], split: str | None) -> list[tuple[str, list[dict]]]:  # type: ignore[no-untyped-def]
    store = open_store(tmp)
    index_paths([os.path.join(ROOT, "samples", "docs")], store, embedder, IndexSettings())
    searcher = Searcher(store, embedder)
    out = []
    for path in files:
        splits = golden_splits(path)
        items = [it for it in load_golden(path) if it.answerable
                 and (split is None or splits.get(it.id, split) == split)]
        rows: dict[str, list[dict]] = {r: [] for r in RULES}
        for it in items:
            x = lists(searcher, it.question)
            chunks = store.chunks(list({r for r, _ in x.dense} | {r for r, _ in x.keyword} | {r for r, _ in x.synonyms}))
            for rname, rule in RULES.items():
                found = [Retrieved(chunks[r].file, chunks[r].page, chunks[r].text) for r in rule(x)[:10] if r in chunks]
                rows[rname].append(retrieval_metrics(found, it.evidence, "either"))
        name = os.path.basename(path).removesuffix(".jsonl")
        out.append((f"{name}{' ' + split if split else ''} ({len(items)} q)", _means(rows, lambda i: True)))
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
    ap.add_argument("--out", default="fusion")
    ap.add_argument("--limit-queries", type=int, default=None, help="the first N queries of each BEIR set")
    ap.add_argument("--golden", default="samples/golden-ja.jsonl,samples/golden-en.jsonl")
    ap.add_argument("--split", default=None, help="golden sets: only this split (fit, held-out)")
    ap.add_argument("--sets", default="jsquad-valid,squad2-dev-half,scifact")
    args = ap.parse_args()
    import tempfile

    embedder = get_embedder(args.model)
    results = []
    splits = {"scifact": "train"}
    for folder in filter(None, args.sets.split(",")):
        path = os.path.join(args.data, folder)
        if os.path.isdir(path):
            results += beir_set(path, splits.get(folder), embedder, args.model, args.index_root, args.limit_queries)
            print(table(results), file=sys.stderr, flush=True)
        else:
            print(f"skipping {folder}: {path} not found", file=sys.stderr)
    with tempfile.TemporaryDirectory() as tmp:
        results += golden_sets(embedder, tmp, [os.path.join(ROOT, p) for p in args.golden.split(",") if p],
                               args.split)
    m = machine()
    md = (f"Fusion rules over the same dense and keyword lists (top {DEPTH} each), model {embedder.model_id}. "
          f"BEIR sets: one chunk per corpus entry, graded nDCG@10 / MRR@10; golden sets: answerable questions, "
          f"rule 'either'. Machine: {m['cpu']}, {m['cores']} cores. Command: `python bench/fusion.py {' '.join(sys.argv[1:])}`.\n\n"
          + table(results))
    write(args.out, {"machine": m, "model": embedder.model_id, "results": dict(results)}, md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
