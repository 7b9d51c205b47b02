"""Realistic test vectors for dense search at up to a million chunks, without embedding a million texts.

Real e5-small passage vectors of the shared corpora's paragraphs (SciFact abstracts, SQuAD 2.0 and JSQuAD
paragraphs, split to sentence windows so there are more of them) and real query vectors of their questions
are embedded once and cached (`.kotae-bench/dense_vectors_*.npz`). A corpus of any size is then made of
mixtures of real vectors around the real mean μ:

    v = normalise(μ + w1 (e_a − μ) + w2 (e_b − μ) + w3 (e_c − μ)),  w1 ~ U(0.7, 1), w2 ~ U(0, 0.5),
                                                                     w3 ~ N(0, 0.15)

so every synthetic chunk lies in the span the real vectors occupy (e5's anisotropy and its principal
directions are kept: isotropic noise would spread energy over directions real vectors never use), each real
passage has a family of graded near-duplicates (like overlapping chunks of one document), and no two
synthetic chunks are identical.
"""
from __future__ import annotations

import json
import os
import random

import numpy as np

CACHE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), ".kotae-bench")


def _passages(data: str, limit: int) -> list[str]:
    from kotae.chunking import split_sentences

    out = []
    for name in ("scifact", "squad2-dev-half", "jsquad-valid"):
        with open(os.path.join(data, name, "corpus.jsonl"), encoding="utf-8") as f:
            for line in f:
                text = json.loads(line)["text"]
                spans = [(a, b) for a, b in split_sentences(text)]
                for i in range(0, len(spans), 3):  # windows of three sentences, like short chunks
                    a, b = spans[i][0], spans[min(i + 2, len(spans) - 1)][1]
                    if b - a > 40:
                        out.append(text[a:b])
    random.Random(0).shuffle(out)
    return out[:limit]


def _questions(data: str, limit: int) -> list[str]:
    out = []
    for name, fname in (("scifact", "queries-train.jsonl"), ("squad2-dev-half", "queries.jsonl"),
                        ("jsquad-valid", "queries.jsonl")):
        with open(os.path.join(data, name, fname), encoding="utf-8") as f:
            out += [json.loads(line)["text"] for line in f]
    random.Random(1).shuffle(out)
    return out[:limit]


def real_vectors(data: str, passages: int = 6000, queries: int = 600) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """(passage vectors, query vectors, query texts), e5-small-onnx, cached after the first call."""
    path = os.path.join(CACHE, f"dense_vectors_{passages}_{queries}.npz")
    if os.path.exists(path):
        z = np.load(path)
        return z["passages"], z["queries"], json.loads(str(z["texts"]))
    from kotae.embed import get_embedder

    e5 = get_embedder("e5-small-onnx:1")  # the default engine (int8 onnxruntime), one thread
    texts = _questions(data, queries)
    p = e5.passages(_passages(data, passages)).astype(np.float32)
    q = np.stack([e5.query(t) for t in texts]).astype(np.float32)
    os.makedirs(CACHE, exist_ok=True)
    np.savez(path, passages=p, queries=q, texts=json.dumps(texts, ensure_ascii=False))
    return p, q, texts


def mixtures(real: np.ndarray, n: int, seed: int = 0, block: int = 100_000):  # type: ignore[no-untyped-def]
    """`n` synthetic unit vectors (float32), yielded in blocks, from mixtures of rows of `real`."""
    rng = np.random.default_rng(seed)
    mu = real.mean(axis=0)
    centred = real - mu
    for lo in range(0, n, block):
        m = min(block, n - lo)
        idx = rng.integers(0, len(real), (m, 3))
        w = np.stack([rng.uniform(0.7, 1.0, m), rng.uniform(0.0, 0.5, m), rng.normal(0.0, 0.15, m)], axis=1)
        v = mu + np.einsum("mk,mkd->md", w, centred[idx])
        yield (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)
