"""Hubness: some chunks sit near questions of every kind (a FAQ's introduction that lists every department, a
clause of exceptions), so a dense similarity to one of them says less than the same similarity to a chunk
nothing else comes near. As in cross-domain similarity local scaling (CSLS, Conneau et al. 2018), each dense
candidate's similarity is lowered by `weight` × its hubness: the mean of the `K` highest similarities the bundled
off-topic questions (kotae/data/negatives, in the question's language) have with it, less the mean of that over
the chunks of its language (`centers`). Those questions' vectors are kept with the index when its gate calibrates
itself (`NullVectors`), so a search scores only its candidates against them (~0.1 ms for 50). Pure functions.
"""
from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

__all__ = ["META", "STAMP", "K", "NullVectors", "centers", "corrected", "penalties"]

K = 10  # the null questions nearest a chunk that measure its hubness (not tuned: bench/hubness.py varies the weight)
META = "null_vectors"
STAMP = "null_vectors_stamp"  # changes whenever META is written: a search reads META again only then


def penalties(null: np.ndarray, vectors: np.ndarray, k: int = K) -> np.ndarray:
    """Per row of `vectors` (unit chunk vectors): the mean of the `k` highest cosines the rows of `null` (unit
    question vectors) have with it."""
    if not len(null) or not len(vectors):
        return np.zeros(len(vectors))
    sims = np.asarray(null, np.float32) @ np.asarray(vectors, np.float32).T
    k = min(k, len(null))
    return np.partition(sims, len(null) - k, axis=0)[-k:].mean(axis=0, dtype=np.float64)


def corrected(dense: Sequence[tuple[int, float]], hubness: Mapping[int, float],
              weight: float) -> list[tuple[int, float]]:
    """The dense ranking with each similarity lowered by `weight` × its chunk's hubness (none where unknown),
    best first, ties by rowid."""
    return sorted(((r, s - weight * hubness.get(r, 0.0)) for r, s in dense), key=lambda p: (-p[1], p[0]))


def centers(null: Mapping[str, np.ndarray], vectors: np.ndarray, langs: Sequence[str],
            sample: int = 2048) -> dict[str, dict[str, float]]:
    """Per question language, the mean hubness of the chunks of each chunk language (from at most `sample`
    evenly spaced chunks of each). e5 rates a question's own language higher, so English questions come near
    every English chunk of a mostly Japanese corpus: hubness is taken relative to the chunk's language, or an
    English question would be pushed to Japanese chunks as a whole."""
    lang = np.asarray(langs)
    out: dict[str, dict[str, float]] = {}
    for q, vecs in null.items():
        out[q] = {}
        for g in sorted(set(lang.tolist())):
            rows = np.flatnonzero(lang == g)
            rows = rows[:: max(1, len(rows) // sample)][:sample]
            out[q][g] = float(penalties(vecs, vectors[rows]).mean())
    return out


@dataclass(frozen=True)
class NullVectors:
    """The bundled off-topic questions' vectors per question language, for the embedding model that made them,
    and the mean hubness per question language and chunk language (`centers`)."""

    model: str
    by_lang: Mapping[str, np.ndarray]
    center: Mapping[str, Mapping[str, float]] = field(default_factory=dict)

    def relative(self, lang: str, values: np.ndarray, chunk_langs: Sequence[str]) -> np.ndarray:
        """`penalties` for questions in `lang`, less the mean of their chunk's language (where known)."""
        mean = self.center.get(lang, {})
        return np.asarray(values) - np.array([mean.get(g, 0.0) for g in chunk_langs])

    def stamp(self) -> str:
        """A short digest of all of it, centers included (`STAMP`)."""
        return hashlib.sha1(self.to_json().encode()).hexdigest()[:16]

    def to_json(self) -> str:
        """float16, base64: ~0.5 MB for 650 questions of 384 dimensions."""
        return json.dumps({"model": self.model, "center": self.center, "langs": {
            la: {"n": int(v.shape[0]), "dim": int(v.shape[1]),
                 "data": base64.b64encode(np.asarray(v, np.float16).tobytes()).decode("ascii")}
            for la, v in self.by_lang.items()}})

    @classmethod
    def from_json(cls, text: str) -> NullVectors:
        d = json.loads(text)
        by_lang = {la: np.frombuffer(base64.b64decode(x["data"]), np.float16).astype(np.float32)
                   .reshape(x["n"], x["dim"]) for la, x in d["langs"].items()}
        return cls(d["model"], by_lang, d.get("center", {}))
