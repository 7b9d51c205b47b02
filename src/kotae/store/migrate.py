"""Copy an embedded (SQLite) index into another store — PostgreSQL, usually — without re-embedding.

Documents, pages, chunks (with their ids), embeddings and the analysed keyword text (read back from the
FTS table) are copied one document per transaction, then the conversations and feedback, so an interrupted copy can simply be run again:
a document already copied unchanged is written again as the same thing.
"""
from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass

import numpy as np

from kotae.errors import IndexMismatch, KotaeError
from kotae.store.base import Store
from kotae.store.conversations import History
from kotae.store.sqlite import DB_NAME
from kotae.types import Chunk, DocumentInfo, PageWords

COPIED_META = ("chunking", "contextual_prefix", "gate", "heading", "synonym_terms")


@dataclass
class MigrateReport:
    documents: int = 0
    chunks: int = 0
    embeddings: int = 0  # distinct vectors copied
    conversations: int = 0
    feedback: int = 0


def migrate_index(source_dir: str, target: Store,
                  progress: Callable[[int], None] | None = None) -> MigrateReport:
    """Copy the SQLite index in `source_dir` into `target` (bound to the same embedding model)."""
    path = os.path.join(source_dir, DB_NAME)
    if not os.path.exists(path):
        raise KotaeError(f"no index at {source_dir}; pass the folder kotae index wrote (--index)")
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        db.execute("BEGIN")  # one snapshot, even while an indexer writes to the source
        return _copy(db, source_dir, target, progress)
    finally:
        db.close()


def _copy(db: sqlite3.Connection, source_dir: str, target: Store,
          progress: Callable[[int], None] | None) -> MigrateReport:
    meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
    model = meta.get("model")
    if model is None:
        raise KotaeError(f"the index in {source_dir} records no embedding model; nothing was indexed there")
    found = target.meta("model")
    if found is not None and found != model:
        raise IndexMismatch(f"{target.location} holds an index built with {found}, not {model} like {source_dir}; "
                            "migrate into an empty database, or re-embed one of them with kotae reembed")
    target.bind_model(model)
    for key in COPIED_META:
        ours, theirs = meta.get(key), target.meta(key)
        if key == "chunking" and ours is not None and theirs not in (None, ours):
            raise KotaeError(f"{target.location} was chunked with other settings than {source_dir}; "
                             "migrate into an empty database")
        if ours is not None:
            target.set_meta(key, ours)
    report = MigrateReport()
    hashes: set[str] = set()
    docs = db.execute("SELECT id, path, file, kind, sha256, pages, chunks, lang, indexed_at, tags, warnings "
                      "FROM documents ORDER BY path").fetchall()
    with getattr(target, "bulk_load", nullcontext)():  # PostgreSQL builds its HNSW index once, at the end
        for row in docs:
            _copy_document(db, source_dir, target, row, report, hashes)
            if progress:
                progress(report.documents)
    report.embeddings = len(hashes)
    _copy_history(db, target, report)
    return report


def _copy_history(db: sqlite3.Connection, target: Store, report: MigrateReport) -> None:
    """Conversations (replaced whole, ids kept) and feedback (what the target lacks); indexes made before
    conversations existed have none."""
    if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'conversations'").fetchone() is None:
        return
    source = History(lambda: nullcontext(db), lambda: nullcontext(db))  # read only: the copy never writes there
    into = target.history()
    for conv in source.conversations():
        into.restore(conv, source.messages(conv.id))
        report.conversations += 1
    present = {fb.id for fb in into.feedback()}
    for fb in source.feedback():
        if fb.id not in present:
            into.add_feedback(fb)
            report.feedback += 1


def _copy_document(db: sqlite3.Connection, source_dir: str, target: Store, row: tuple,  # type: ignore[type-arg]
                   report: MigrateReport, hashes: set[str]) -> None:
    """One document, its pages, chunks, vectors and keyword text, in one write."""
    id_, path, file, kind, sha, n_pages, n_chunks, lang, at, tags, warnings = row
    info = DocumentInfo(id_, path, file, kind, sha, n_pages, n_chunks, lang, at, tags=tuple(json.loads(tags)),
                        warnings=tuple(json.loads(warnings)))
    pages = [t for (t,) in db.execute("SELECT text FROM pages WHERE doc_id = ? ORDER BY number", (info.id,))]
    # indexes made before OCR support have neither chunks.ocr nor page_words
    ocr = "c.ocr" if "ocr" in {c[1] for c in db.execute("PRAGMA table_info(chunks)")} else "0"
    has_words = db.execute("SELECT 1 FROM sqlite_master WHERE name = 'page_words'").fetchone() is not None
    rows = db.execute(
        'SELECT c.id, c.doc_id, c.file, c.page, c.heading, c.text, c.start, c."end", c.lang, c.ordinal, '
        f"c.row_first, c.row_last, c.tokens, c.text_hash, e.vector, f.tokens, {ocr} FROM chunks c "
        "LEFT JOIN embeddings e ON e.text_hash = c.text_hash LEFT JOIN chunk_fts f ON f.rowid = c.rowid "
        "WHERE c.doc_id = ? ORDER BY c.rowid", (info.id,)).fetchall()
    if any(r[14] is None for r in rows):
        raise KotaeError(f"{info.path}: a chunk has no embedding in {source_dir}; "
                         f"run kotae --index {source_dir} index --force on it first")
    chunks = [Chunk(id=r[0], doc_id=r[1], file=r[2], page=r[3], heading=tuple(json.loads(r[4])), text=r[5],
                    start=r[6], end=r[7], lang=r[8], ordinal=r[9],
                    rows=(r[10], r[11]) if r[10] is not None else None, tokens=r[12], ocr=bool(r[16]))
              for r in rows]
    vectors = (np.stack([np.frombuffer(r[14], dtype=np.float32) for r in rows]) if rows
               else np.zeros((0, 0), np.float32))
    words = [PageWords.from_dict(json.loads(w)) for (w,) in db.execute(
        "SELECT words_json FROM page_words WHERE doc_id = ? ORDER BY page", (info.id,))] if has_words else []
    target.write_document(info, pages, chunks, [r[13] for r in rows], vectors, [r[15] or "" for r in rows], words)
    report.documents += 1
    report.chunks += len(chunks)
    hashes.update(r[13] for r in rows)
