"""sentence-transformers models by name or local path, for users who have them (`st:<model>`)."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kotae.embed.base import Embedder, Kind, register
from kotae.errors import ConfigError


class SentenceTransformerEmbedder(Embedder):
    def __init__(self, model: str, query_prefix: str = "", passage_prefix: str = "") -> None:
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as e:  # optional extra
            raise ConfigError("sentence-transformers is not installed; pip install 'kotae[st]'") from e
        self._model = SentenceTransformer(model)
        self.name = f"st:{model}"
        self.version = "st"
        self.dim = int(self._model.get_sentence_embedding_dimension() or 0)
        # e5-family models want their prefixes; others take none.
        e5 = "e5" in model.lower()
        self._prefix = {"query": query_prefix or ("query: " if e5 else ""),
                        "passage": passage_prefix or ("passage: " if e5 else "")}

    def embed_batch(self, texts: Sequence[str], kind: Kind) -> np.ndarray:
        p = self._prefix[kind]
        return np.asarray(self._model.encode([p + t for t in texts], normalize_embeddings=True))

    def count_tokens(self, text: str) -> int:
        return len(self._model.tokenizer(text)["input_ids"])


@register("st")
def _make(arg: str) -> Embedder:
    if not arg:
        raise ConfigError("give the sentence-transformers model as st:<name or path>")
    return SentenceTransformerEmbedder(arg)
