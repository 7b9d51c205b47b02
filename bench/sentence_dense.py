"""Dense search that also reads a chunk sentence by sentence: retrieval on the golden sets, per split, per variant.

    python bench/sentence_dense.py [--real ../shared/data] [--index DIR] [--variants chunk,max,mix0.5]

A chunk's e5 vector averages its sentences; a paraphrased question about one clause of a long article is near
that clause, less near the whole. Each variant rescores the dense arm's candidates (the chunk-level top
`search.candidates`) by the similarity of the chunk's best sentence `s` beside the chunk's own `c`, before
hubness, fusion and the gate, as a product feature would:

- `chunk`: today (c);  `max`: max(c, s);  `mixW`: (1 − W)·c + W·s;  `headmax`, `headmixW`: the same with each
  sentence embedded after the heading levels its chunk's text lacks (as `search.heading=embed` would).

Sentences are the extractive answer's candidates (kotae.answer.extractive.candidates) of each chunk's text,
embedded once as passages. Sets, splits and the hit rule are bench/hubness.py's (golden-ja/en by id hash,
golden-users* and users-real by their own split, users-real2 a test set never used for a choice). Writes
bench/results/sentence_dense{,_real}.{json,md}.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import answers
from common import machine, write
from hubness import MODES, golden_sets, items, scores, tables

from kotae import Kotae
from kotae.answer.extractive import candidates
from kotae.config import Settings
from kotae.embed import DEFAULT_ENGINES, get_embedder
from kotae.pipeline import missing_heading
from kotae.search.searcher import Searcher

ROOT = answers.ROOT
_STATE: dict[str, Any] = {"variant": "chunk", "plain": {}, "head": {}}


def combine(variant: str, c: float, s: float) -> float:
    name = variant.removeprefix("head")
    if name == "chunk":
        return c
    if name == "max":
        return max(c, s)
    if name.startswith("mix"):
        w = float(name[3:])
        return (1 - w) * c + w * s
    raise SystemExit(f"unknown variant {variant!r}")


_ORIGINAL = Searcher._dense_search


def _rescored(self: Searcher, vec: np.ndarray, n: int, doc_ids: set[str] | None) -> tuple[list[tuple[int, float]], float]:
    dense, margin = _ORIGINAL(self, vec, n, doc_ids)
    variant = _STATE["variant"]
    if variant == "chunk":
        return dense, margin
    sents = _STATE["head" if variant.startswith("head") else "plain"]
    out = []
    for r, c in dense:
        m = sents.get(r)
        s = float((m @ vec).max()) if m is not None and len(m) else c
        out.append((r, combine(variant, c, s)))
    out.sort(key=lambda x: -x[1])
    return out, margin


def sentence_vectors(k: Kotae) -> tuple[dict[int, np.ndarray], dict[int, np.ndarray], int]:
    """Each chunk's sentence vectors, plain and after the heading levels its text lacks."""
    rowids = [r for r, _ in k.store.chunk_texts()]
    chunks = k.store.chunks(rowids)
    plain: list[tuple[int, str]] = []
    head: list[tuple[int, str]] = []
    for r in rowids:
        ch = chunks[r]
        lead = " › ".join(missing_heading(ch))
        for c in candidates([ch.text], [ch.heading]):
            plain.append((r, c.text))
            head.append((r, f"{lead}\n{c.text}" if lead else c.text))
    out = []
    for pairs in (plain, head):
        vecs = k.embedder.passages([t for _, t in pairs])
        per: dict[int, list[np.ndarray]] = {}
        for (r, _), v in zip(pairs, vecs, strict=True):
            per.setdefault(r, []).append(v)
        out.append({r: np.vstack(vs).astype(np.float32) for r, vs in per.items()})
    return out[0], out[1], len(plain)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variants", default="chunk,max,mix0.3,mix0.5,headmax,headmix0.5")
    ap.add_argument("--real", metavar="SHARED", help="also the real files of SHARED/samples and users-real(2)")
    ap.add_argument("--index", help="index folder to reuse (default: a temporary one)")
    args = ap.parse_args()
    variants = args.variants.split(",")
    names = golden_sets(bool(args.real))
    questions = items(names)
    results: dict[str, Any] = {}
    Searcher._dense_search = _rescored  # type: ignore[method-assign]
    with tempfile.TemporaryDirectory() as tmp:
        k = Kotae.open(args.index or tmp, settings=Settings(), embedder=get_embedder(DEFAULT_ENGINES[0]))
        real = [os.path.join(args.real, "samples", f) for f in answers.REAL] if args.real else []
        k.index([os.path.join(ROOT, "samples", "docs"), *real])
        k.self_calibrate()
        chunks = k.store.document_frequencies([])[1]
        t0 = time.perf_counter()
        _STATE["plain"], _STATE["head"], n_sent = sentence_vectors(k)
        embed_s = time.perf_counter() - t0
        print(f"{n_sent} sentences of {chunks} chunks embedded (twice) in {embed_s:.1f} s", flush=True)
        for v in variants:
            _STATE["variant"] = v
            results[v] = {mode: scores(k, questions, mode) for mode in MODES}
            print(v, {m: results[v][m].get("samples/fit") for m in MODES}, flush=True)
    m = machine()
    lines = [(f"Dense search with sentence vectors, hit@1 / nDCG@10 (rule either, top 10, answerable questions), one "
              f"index of samples/docs{' and the real files of ' + args.real + '/samples' if args.real else ''} "
              f"({chunks} chunks, {n_sent} sentences), each variant over the same index in one run (bench/"
              f"sentence_dense.py's docstring names them). Choices on samples/fit; users-real2 is a test set. "
              f"Machine: {m['cpu']}, {m['cores']} cores. Command: `python bench/sentence_dense.py "
              f"{' '.join(sys.argv[1:])}`."), ""]
    lines += tables({v: results[v] for v in variants})
    write("sentence_dense_real" if args.real else "sentence_dense",
          {"machine": m, "chunks": chunks, "sentences": n_sent, "variants": variants, "results": results},
          "\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
