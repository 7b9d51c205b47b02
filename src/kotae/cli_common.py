"""Helpers shared by the CLI modules: open the index and build the searcher from parsed arguments."""
from __future__ import annotations

import argparse
import os
import sys

from kotae.embed.base import Embedder
from kotae.errors import KotaeError
from kotae.search import Searcher
from kotae.store import Store


def resolve_index(args: argparse.Namespace) -> None:
    """Settle `args.index`: --index DIR if given, else --database-url / $KOTAE_DATABASE_URL, else the default."""
    from kotae.config import DEFAULT_INDEX

    args.index = args.index or getattr(args, "database_url", None) or DEFAULT_INDEX


def store_for(args: argparse.Namespace, must_exist: bool = True) -> Store:
    from kotae.store import open_store

    if must_exist and "://" not in args.index and not os.path.isdir(args.index):
        raise KotaeError(f"no index at {args.index}; create one with: kotae index PATH")
    return open_store(args.index)


def embedder_for(args: argparse.Namespace, store: Store | None = None) -> Embedder:
    """--model when given; else the model `store`'s index was built with; else the default engine."""
    from kotae.embed import choose_embedder

    bound = store.meta("model") if store is not None else None
    return choose_embedder(args.model, bound, warn=lambda m: print(f"note: {m}", file=sys.stderr))


def searcher_for(args: argparse.Namespace) -> Searcher:
    from kotae.search import load_reranker

    store = store_for(args)
    embedder = embedder_for(args, store)
    store.bind_model(embedder.model_id)
    # Loaded when asked for (a spec, or the rerank mode), so plain searches log no "rerank skipped".
    spec = getattr(args, "reranker", None)
    reranker = load_reranker(spec) if spec or getattr(args, "mode", None) == "hybrid+rerank" else None
    return Searcher(store, embedder, reranker=reranker)


