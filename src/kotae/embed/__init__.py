"""Embedders: one base class, a registry, the bundled e5 model by default."""
from kotae.embed.base import EMBEDDERS, Embedder, get_embedder, register

__all__ = ["EMBEDDERS", "Embedder", "get_embedder", "register"]
