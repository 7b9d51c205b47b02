"""kotae's own reranker: the bundled e5-small read as a cross-encoder, its top layers fine-tuned by this project.

The question and a passage go through the encoder together (`<s> query: Q </s></s> passage: P </s>`), so
every word of one can attend to every word of the other, which two separate vectors cannot. A weights file
holds only the fine-tuned top layers (int8 per output row, the form the graph computes with anyway) and the
head; the lower layers are the bundled e5 weights the embedder already loads. The ONNX graph is built once and
cached beside the embedder's. Train one with `scripts/reranker/` (JaQuAD train, CC BY-SA 3.0) and pass
`kotae:FILE.npz`. No weights ship yet: the first trained file lowered golden hit@1 (bench/results/rerank.md);
`kotae` alone names the path a shipped file would take (`BUNDLED`) and says so while it is absent.
"""
from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from kotae.errors import ConfigError
from kotae.search.rerank import Reranker, register

MAX_TOKENS = 256  # a question and a passage together: kotae's chunks are ~100-250 e5 tokens
MAX_QUERY = 64
BUNDLED = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "reranker", "e5-rerank.npz")


def pair_ids(tok: Any, query: str, passage: str, bos: int, eos: int,
             max_tokens: int = MAX_TOKENS) -> list[int]:
    """`<s> query: Q </s></s> passage: P </s>`, the passage cut to fit `max_tokens` (the question first to
    `MAX_QUERY`)."""
    q = tok.encode("query: " + query)[:MAX_QUERY]
    p = tok.encode("passage: " + passage)[: max(1, max_tokens - len(q) - 4)]
    return [bos, *q, eos, eos, *p, eos]


def pack_weights(arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Trained float tensors → the shipped form: each (out, in) matrix as int8 `NAME.q` with one scale per
    output row `NAME.s`; the rest float32. The graph quantises weights per output row anyway
    (`e5_convert.to_int8`), so this keeps exactly what inference uses, in a quarter of the bytes."""
    out: dict[str, np.ndarray] = {}
    for name, a in arrays.items():
        if a.ndim == 2:
            scale = np.maximum(np.abs(a).max(axis=1), 1e-12) / 127.0
            out[name + ".q"] = np.clip(np.rint(a / scale[:, None]), -127, 127).astype(np.int8)
            out[name + ".s"] = scale.astype(np.float32)
        else:
            out[name] = np.asarray(a, np.float32)
    return out


def query_len(tok: Any, query: str) -> int:
    """Tokens of the question segment of `pair_ids` (after `<s>`, before `</s>`)."""
    return len(tok.encode("query: " + query)[:MAX_QUERY])


def load_weights(path: str) -> tuple[dict[str, np.ndarray], np.ndarray, float, float, dict[str, Any]]:
    """(tensors that replace the bundled ones, head weights, head bias, cosine scale, metadata) from a trained
    `.npz`.

    Matrices are stored as int8 (`NAME.q`, out x in) with one scale per output row (`NAME.s`), or as floats."""
    try:
        z = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as e:
        raise ConfigError(f"reranker weights {path} could not be read ({e}); retrain with "
                          "scripts/reranker/train.py or use the bundled one (--reranker kotae)") from e
    with z:
        meta = json.loads(str(z["meta"]))
        tensors: dict[str, np.ndarray] = {}
        for name in z.files:
            if name.startswith("head.") or name == "meta" or name.endswith(".s"):
                continue
            if name.endswith(".q"):
                tensors[name[:-2]] = z[name].astype(np.float32) * z[name[:-2] + ".s"][:, None]
            else:
                tensors[name] = z[name].astype(np.float32)
        scale = float(z["head.scale"].reshape(-1)[0]) if "head.scale" in z.files else 0.0
        return tensors, z["head.w"].astype(np.float32), float(z["head.b"].reshape(-1)[0]), scale, meta


class E5Reranker(Reranker):
    """The fine-tuned e5 cross-encoder on onnxruntime (int8 matmuls, like the embedder)."""

    def __init__(self, path: str = BUNDLED, threads: int | None = None, batch_tokens: int = 4096) -> None:
        from kotae.embed.e5_onnx import E5SmallOnnx

        if not os.path.isfile(path):
            raise ConfigError(f"no reranker weights at {path}: kotae ships none yet (the first trained one lowered "
                              "hit@1, bench/results/rerank.md); train them with scripts/reranker/train.py")
        tensors, self._w, self._b, self._scale, self.meta = load_weights(path)
        with open(path, "rb") as fh:
            tag = "rerank-" + hashlib.sha256(fh.read()).hexdigest()[:10]
        self._enc = E5SmallOnnx(threads=threads, overrides=(tag, tensors))
        if self.meta.get("digest") not in (None, self._enc.digest):
            raise ConfigError(f"reranker weights {path} were trained over e5 weights {self.meta['digest']}, "
                              f"not the installed {self._enc.digest}; retrain them with scripts/reranker/")
        self.max_tokens = int(self.meta.get("max_tokens", MAX_TOKENS))
        self.batch_tokens = batch_tokens
        self.name = "kotae" if os.path.abspath(path) == os.path.abspath(BUNDLED) else f"kotae:{path}"

    def score(self, query: str, passages: Sequence[str]) -> np.ndarray:
        f = self._enc._file
        tok = self._enc._tok
        seqs = [pair_ids(tok, query, p, f.bos, f.eos, self.max_tokens) for p in passages]
        qlen = query_len(tok, query)
        out = np.zeros(len(seqs), dtype=np.float32)
        order = sorted(range(len(seqs)), key=lambda i: len(seqs[i]))
        lo = 0
        while lo < len(order):
            hi = lo + 1
            while hi < len(order) and (hi - lo + 1) * len(seqs[order[hi]]) <= self.batch_tokens:
                hi += 1
            idx = order[lo:hi]
            hidden, mask = self._enc.states([seqs[i] for i in idx])
            out[idx] = head(hidden, mask.astype(np.float32), qlen, self._w, self._b, self._scale)
            lo = hi
        return out


def head(hidden: np.ndarray, mask: np.ndarray, qlen: int, w: np.ndarray, b: float, scale: float) -> np.ndarray:
    """The score of each pair from its final states: `scale` × cosine(mean of the question's tokens, mean of the
    passage's) + w · (mean of all tokens) + b. The cosine term is e5's own similarity read inside the pair (the
    score training starts from); the linear term is learnt."""
    qm = np.zeros_like(mask)
    qm[:, 1 : 1 + qlen] = 1.0
    pm = mask - qm
    pm[:, 0] = 0.0
    allm = (np.einsum("bs,bsh->bh", mask, hidden) / mask.sum(axis=1, keepdims=True))
    pq = np.einsum("bs,bsh->bh", qm, hidden) / np.maximum(qm.sum(axis=1, keepdims=True), 1)
    pp = np.einsum("bs,bsh->bh", pm, hidden) / np.maximum(pm.sum(axis=1, keepdims=True), 1)
    cos = (pq * pp).sum(axis=1) / np.maximum(np.linalg.norm(pq, axis=1) * np.linalg.norm(pp, axis=1), 1e-8)
    return scale * cos + allm @ w + b


@register("kotae")
def _kotae(arg: str) -> Reranker:
    """`kotae`: the bundled reranker; `kotae:FILE.npz`: weights trained with scripts/reranker/train.py."""
    return E5Reranker(arg or BUNDLED)
