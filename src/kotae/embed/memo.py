"""Passage vectors of short texts kept in memory, most recently used first: the sentences an extractive answer
compares with the question recur across questions about the same passages (a conversation, the server), and
embedding them is most of an answer's time (bench/answer_latency.py). A text's vector does not depend on the
batch it was embedded in (tests/test_e5_onnx.py) beyond float rounding (≤ 2e-8 seen), so a kept vector is
the one a new call would give."""
from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from kotae.embed.base import Embedder

KEEP = 4096  # vectors (384 floats: ~6 MB)


class PassageMemo:
    def __init__(self, embedder: Embedder, keep: int = KEEP) -> None:
        self.embedder, self.keep = embedder, keep
        self._kept: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def passages(self, texts: Sequence[str]) -> np.ndarray:
        """`embedder.passages(texts)`, embedding only the texts not kept (once each)."""
        with self._lock:
            missing = list(dict.fromkeys(t for t in texts if t not in self._kept))
        fresh = dict(zip(missing, self.embedder.passages(missing), strict=True)) if missing else {}
        out = np.zeros((len(texts), self.embedder.dim), np.float32)
        with self._lock:
            for i, t in enumerate(texts):
                v = fresh.get(t)
                if v is None:
                    v = self._kept.get(t)
                    if v is None:  # dropped by another thread meanwhile
                        v = self.embedder.passages([t])[0]
                self._kept[t] = v
                self._kept.move_to_end(t)
                out[i] = v
            while len(self._kept) > self.keep:
                self._kept.popitem(last=False)
        return out
