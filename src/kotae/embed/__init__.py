"""Embedders: one base class, a registry, the bundled e5 model by default."""
from kotae.embed.base import (
    DEFAULT_ENGINES,
    EMBEDDERS,
    Embedder,
    choose_embedder,
    get_embedder,
    model_name,
    register,
)

__all__ = ["DEFAULT_ENGINES", "EMBEDDERS", "Embedder", "choose_embedder", "get_embedder", "model_name", "register"]
