"""The SQLite store's vector file: built from one read snapshot of the database, beside it; after writes,
extended by a delta file (new and changed documents' rows, tombstones for the base's gone ones) instead of
rebuilt, until the delta outgrows DELTA_SHARE of the base."""
from __future__ import annotations

import os
import sqlite3
import tempfile
from collections.abc import Iterator

import numpy as np

from kotae.store import vectorfile
from kotae.store.vectorfile import VectorFile, VectorSet

VECTOR_FILE = "vectors.kvf"
DELTA_FILE = "vectors-delta.kvf"
DELTA_SHARE = 0.2  # a delta (rows added + rows tombstoned) past this share of the base's rows: full rebuild
_BLOCK = 50_000
_ROWS = "FROM chunks c JOIN embeddings e ON e.text_hash = c.text_hash"
_SIGS = "SELECT id, sha256 || ':' || indexed_at || ':' || chunks FROM documents"


def current(db_path: str, generation: int, model: str) -> VectorSet | None:
    """The vectors of this generation and model: the files on disk when current, else the base file
    extended by a new delta (or rebuilt when there is none, it is stale or the delta would be too large);
    None for an index without vectors."""
    folder = os.path.dirname(db_path)
    base = vectorfile.load(os.path.join(folder, VECTOR_FILE))
    if base is None or base.model != model:
        return build(db_path, os.path.join(folder, VECTOR_FILE))
    delta = vectorfile.load(os.path.join(folder, DELTA_FILE))
    if delta is not None and delta.base_id != base.file_id:
        delta = None
    if (delta or base).generation == generation:
        return VectorSet(base, delta)
    return update(db_path, base, delta)


def _snapshot(db_path: str) -> tuple[sqlite3.Connection, int, str]:
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, isolation_level=None)
    db.execute("BEGIN")  # one snapshot: the generation matches the rows
    generation = int(db.execute("SELECT value FROM meta WHERE key='generation'").fetchone()[0])
    model = (db.execute("SELECT value FROM meta WHERE key='model'").fetchone() or ("",))[0]
    return db, generation, model


def _write_and_load(path: str, *args, **kwargs) -> VectorFile | None:  # type: ignore[no-untyped-def]
    """Write the file and map it; where the index folder is read-only, into a temporary file that is
    unlinked once mapped."""
    try:
        vectorfile.write(path, *args, **kwargs)
    except PermissionError:
        fd, path = tempfile.mkstemp(prefix="kotae-vectors-")
        os.close(fd)
        vectorfile.write(path, *args, **kwargs)
        found = vectorfile.load(path)
        os.unlink(path)
        return found
    return vectorfile.load(path)


def _blocks(db: sqlite3.Connection, dim: int, where: str = "", args: tuple = ()  # type: ignore[type-arg]
            ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    cur = db.execute(f"SELECT c.rowid, e.vector {_ROWS} {where} ORDER BY c.doc_id, c.rowid", args)
    while rows := cur.fetchmany(_BLOCK):
        yield (np.fromiter((r[0] for r in rows), np.int64, len(rows)),
               np.frombuffer(b"".join(r[1] for r in rows), np.float32).reshape(len(rows), dim))


def build(db_path: str, path: str) -> VectorSet | None:
    """Write the base file from one snapshot (and drop a delta: it extended the old base)."""
    db, generation, model = _snapshot(db_path)
    try:
        sigs = dict(db.execute(_SIGS).fetchall())
        docs = [(d, int(n), sigs.get(d, "")) for d, n in db.execute(
            f"SELECT c.doc_id, count(*) {_ROWS} GROUP BY c.doc_id ORDER BY c.doc_id")]
        if not docs:
            return None
        dim = len(db.execute(f"SELECT e.vector {_ROWS} LIMIT 1").fetchone()[0]) // 4
        found = _write_and_load(path, generation, model, dim, docs, _blocks(db, dim))
    finally:
        db.close()
    delta = os.path.join(os.path.dirname(path), DELTA_FILE)
    if os.path.exists(delta):
        try:
            os.unlink(delta)
        except OSError:
            pass  # a read-only folder: the delta names another base and is ignored
    return VectorSet(found) if found is not None else None


def update(db_path: str, base: VectorFile, delta: VectorFile | None) -> VectorSet | None:
    """A new delta for `base`: every document whose signature differs from the base's (new, changed, or
    gone: tombstoned) read from one snapshot; a full rebuild when that is more than DELTA_SHARE of the base."""
    folder = os.path.dirname(db_path)
    db, generation, model = _snapshot(db_path)
    try:
        sigs = dict(db.execute(_SIGS).fetchall())
        counts = np.diff(base.doc_start)
        kept = {d for d, g in zip(base.doc_ids, base.doc_sigs, strict=True) if sigs.get(d) == g}
        dead = [d for d in base.doc_ids if d not in kept]
        fresh = sorted(d for d in sigs if d not in kept)
        code = {d: i for i, d in enumerate(base.doc_ids)}
        dead_rows = int(sum(counts[code[d]] for d in dead))
        docs: list[tuple[str, int, str]] = []
        for lo in range(0, len(fresh), 500):
            part = fresh[lo : lo + 500]
            marks = ",".join("?" * len(part))
            docs += [(d, int(n), sigs[d]) for d, n in db.execute(
                f"SELECT c.doc_id, count(*) {_ROWS} WHERE c.doc_id IN ({marks}) GROUP BY c.doc_id "
                "ORDER BY c.doc_id", part)]
            if sum(n for _, n, _ in docs) + dead_rows > DELTA_SHARE * len(base):
                break
        if sum(n for _, n, _ in docs) + dead_rows > DELTA_SHARE * len(base):
            db.close()
            return build(db_path, os.path.join(folder, VECTOR_FILE))

        def blocks() -> Iterator[tuple[np.ndarray, np.ndarray]]:
            ids = [d for d, _, _ in docs]
            for lo in range(0, len(ids), 500):
                part = ids[lo : lo + 500]
                yield from _blocks(db, base.dim, f"WHERE c.doc_id IN ({','.join('?' * len(part))})", tuple(part))

        found = _write_and_load(os.path.join(folder, DELTA_FILE), generation, model, base.dim, docs, blocks(),
                                base_id=base.file_id, dead=dead)
    finally:
        db.close()
    return VectorSet(base, found) if found is not None else None


def exact_vectors(db: sqlite3.Connection, rowids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(rowids found, their float32 vectors) for the exact rescoring of dense candidates."""
    ids = [int(r) for r in rowids]
    found: list[int] = []
    blobs: list[bytes] = []
    for lo in range(0, len(ids), 500):
        part = ids[lo : lo + 500]
        marks = ",".join("?" * len(part))
        for r, blob in db.execute(f"SELECT c.rowid, e.vector {_ROWS} WHERE c.rowid IN ({marks})", part):
            found.append(r)
            blobs.append(blob)
    if not found:
        return np.zeros(0, np.int64), np.zeros((0, 0), np.float32)
    return np.array(found, np.int64), np.frombuffer(b"".join(blobs), np.float32).reshape(len(found), -1)
