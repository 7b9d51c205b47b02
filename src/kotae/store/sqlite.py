"""The embedded store: one SQLite file (WAL) per index directory, FTS5 for keyword search."""
from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import numpy as np

from kotae.embed.base import model_name
from kotae.errors import IndexMismatch
from kotae.store import conversations, postings, sqlite_vectors
from kotae.store.base import SCHEMA_VERSION, DenseMatrix, Filter, Store, register
from kotae.store.conversations import History
from kotae.store.sqlite_keyword import KeywordPruner
from kotae.store.vectorfile import VectorSet
from kotae.types import Chunk, DocumentInfo, PageWords

log = logging.getLogger(__name__)
_TOKENIZE = '"unicode61 remove_diacritics 0"'
KEYWORD_FILE = "keywords.kpf"
_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS documents(
  id TEXT PRIMARY KEY, path TEXT NOT NULL UNIQUE, file TEXT NOT NULL, kind TEXT NOT NULL,
  sha256 TEXT NOT NULL, pages INTEGER NOT NULL, chunks INTEGER NOT NULL, lang TEXT NOT NULL,
  tags TEXT NOT NULL DEFAULT '[]', warnings TEXT NOT NULL DEFAULT '[]', indexed_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS pages(
  doc_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE, number INTEGER NOT NULL,
  text TEXT NOT NULL, PRIMARY KEY(doc_id, number));
CREATE TABLE IF NOT EXISTS chunks(
  rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE,
  doc_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  ordinal INTEGER NOT NULL, file TEXT NOT NULL, page INTEGER NOT NULL, heading TEXT NOT NULL,
  text TEXT NOT NULL, start INTEGER NOT NULL, "end" INTEGER NOT NULL, lang TEXT NOT NULL,
  row_first INTEGER, row_last INTEGER, tokens INTEGER NOT NULL, text_hash TEXT NOT NULL,
  ocr INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS chunks_doc ON chunks(doc_id);
CREATE TABLE IF NOT EXISTS page_words(
  doc_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE, page INTEGER NOT NULL,
  words_json TEXT NOT NULL, PRIMARY KEY(doc_id, page));
CREATE TABLE IF NOT EXISTS embeddings(text_hash TEXT PRIMARY KEY, vector BLOB NOT NULL);
CREATE VIRTUAL TABLE IF NOT EXISTS chunk_fts USING fts5(tokens, tokenize={_TOKENIZE});
CREATE VIRTUAL TABLE IF NOT EXISTS chunk_vocab USING fts5vocab(chunk_fts, 'row');
"""
DB_NAME = "index.sqlite3"
SYNCHRONOUS = "FULL"


class SQLiteStore(Store):
    def __init__(self, directory: str) -> None:
        os.makedirs(directory, exist_ok=True)
        self.location = directory
        self.path = os.path.join(directory, DB_NAME)
        self._lock = threading.RLock()  # one connection shared by the server's threads
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=60)
        self._db.execute("PRAGMA journal_mode=WAL")
        # FULL: a document's commit is on disk when write_document returns, so a power cut cannot lose a
        # document the CLI or the server reported as indexed (NORMAL only survives a crash of the process);
        # one fsync per document, measured in bench/hostile.py.
        self._db.execute(f"PRAGMA synchronous={SYNCHRONOUS}")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.executescript(_SCHEMA)  # idempotent; executescript commits by itself
        self._add_ocr_column()
        self._history: History | None = None
        # exact top-k pruning of the keyword search (sqlite_keyword); off: FTS5 scores every matching row
        self.keyword_pruning = True
        self._pruner = KeywordPruner(_TOKENIZE) if self._fts_tokenizer_is(_TOKENIZE) else None
        # the memory-mapped term → rows file of a large index (postings); off: FTS5 alone
        self.keyword_file_search = True
        self._postings: tuple[int | None, postings.PostingsFile | None] | None = None  # (file mtime, mapped)
        self._keyword_state: tuple[int, tuple[postings.PostingsFile, postings.Delta | None] | None] | None = None
        with self._tx():
            found = self.meta("schema_version")
            if found is None:
                self._db.execute("INSERT INTO meta VALUES('schema_version', ?)", (str(SCHEMA_VERSION),))
                self._db.execute("INSERT INTO meta VALUES('generation', '0')")
            elif int(found) != SCHEMA_VERSION:
                raise IndexMismatch(
                    f"{self.path} has schema {found}, this kotae uses {SCHEMA_VERSION}; "
                    f"delete {directory} and run kotae index again"
                )

    def _fts_tokenizer_is(self, tokenize: str) -> bool:
        rows = self._db.execute("SELECT sql FROM sqlite_master WHERE name='chunk_fts'").fetchall()
        return bool(rows) and f"tokenize={tokenize}" in rows[0][0]

    def _add_ocr_column(self) -> None:
        """Indexes made before OCR have no chunks.ocr column: add it (their chunks were not OCR'd)."""
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(chunks)")}
        if "ocr" not in columns:
            self._db.execute("ALTER TABLE chunks ADD COLUMN ocr INTEGER NOT NULL DEFAULT 0")

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _q(self, sql: str, args: Sequence[object] = ()) -> list[tuple]:  # type: ignore[type-arg]
        with self._lock:
            return self._db.execute(sql, args).fetchall()

    # --- metadata -------------------------------------------------------------------------------
    def meta(self, key: str) -> str | None:
        rows = self._q("SELECT value FROM meta WHERE key=?", (key,))
        return rows[0][0] if rows else None

    def set_meta(self, key: str, value: str) -> None:
        with self._tx() as db:
            db.execute("INSERT OR REPLACE INTO meta VALUES(?, ?)", (key, value))

    def bind_model(self, model_id: str) -> None:
        found = self.meta("model")
        if found is None:
            self.set_meta("model", model_id)
        elif found != model_id:
            raise IndexMismatch(
                f"the index in {self.location} was built with {found}, not {model_id}; "
                f"re-embed it with: kotae --index {self.location} --model {model_name(model_id)} reembed "
                f"(or pass --model {model_name(found)})"
            )

    def generation(self) -> int:
        return int(self.meta("generation") or 0)

    def chunk_texts(self) -> list[tuple[int, str]]:
        return [(int(r), t) for r, t in self._q("SELECT rowid, text FROM chunks ORDER BY rowid")]

    def replace_embeddings(self, model_id, rowids, text_hashes, vectors) -> None:  # type: ignore[no-untyped-def]
        vecs = np.ascontiguousarray(vectors, dtype=np.float32)
        with self._tx() as db:
            db.execute("DELETE FROM embeddings")
            db.executemany("INSERT OR IGNORE INTO embeddings VALUES(?, ?)",
                           [(h, vecs[i].tobytes()) for i, h in enumerate(text_hashes)])
            db.executemany("UPDATE chunks SET text_hash=? WHERE rowid=?", list(zip(text_hashes, rowids)))
            db.execute("INSERT OR REPLACE INTO meta VALUES('model', ?)", (model_id,))
            db.execute("DELETE FROM meta WHERE key='gate'")  # thresholds belong to the old model
            self._bump(db)

    # --- documents ------------------------------------------------------------------------------
    _DOC_COLS = "id, path, file, kind, sha256, pages, chunks, lang, indexed_at, tags, warnings"

    def _doc(self, row: tuple) -> DocumentInfo:  # type: ignore[type-arg]
        id_, path, file, kind, sha, pages, chunks, lang, at, tags, warnings = row
        return DocumentInfo(id_, path, file, kind, sha, pages, chunks, lang, at, tags=tuple(json.loads(tags)),
                            warnings=tuple(json.loads(warnings)))

    def document(self, path: str) -> DocumentInfo | None:
        rows = self._q(f"SELECT {self._DOC_COLS} FROM documents WHERE path=? OR id=?", (path, path))
        return self._doc(rows[0]) if rows else None

    def documents(self) -> list[DocumentInfo]:
        return [self._doc(r) for r in self._q(f"SELECT {self._DOC_COLS} FROM documents ORDER BY path")]

    def write_document(self, info, pages, chunks, text_hashes, vectors, keyword_text,  # type: ignore[no-untyped-def]
                       page_words=()) -> None:
        vecs = np.ascontiguousarray(vectors, dtype=np.float32)
        with self._tx() as db:
            self._delete(db, info.path)
            db.execute(
                f"INSERT INTO documents({self._DOC_COLS}) VALUES(?,?,?,?,?,?,?,?,?,?,?)",
                (info.id, info.path, info.file, info.kind, info.sha256, info.pages, info.chunks, info.lang,
                 info.indexed_at, json.dumps(list(info.tags)), json.dumps(list(info.warnings))),
            )
            db.executemany("INSERT INTO pages VALUES(?,?,?)",
                           [(info.id, i + 1, t) for i, t in enumerate(pages)])
            db.executemany("INSERT OR IGNORE INTO embeddings VALUES(?, ?)",
                           [(h, vecs[i].tobytes()) for i, h in enumerate(text_hashes)])
            for c, h, kw in zip(chunks, text_hashes, keyword_text, strict=True):
                cur = db.execute(
                    'INSERT INTO chunks(id, doc_id, ordinal, file, page, heading, text, start, "end", lang, '
                    "row_first, row_last, tokens, text_hash, ocr) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    (c.id, c.doc_id, c.ordinal, c.file, c.page, json.dumps(list(c.heading), ensure_ascii=False),
                     c.text, c.start, c.end, c.lang, c.rows[0] if c.rows else None,
                     c.rows[1] if c.rows else None, c.tokens, h, int(c.ocr)),
                )
                db.execute("INSERT INTO chunk_fts(rowid, tokens) VALUES(?, ?)", (cur.lastrowid, kw))
            db.executemany("INSERT INTO page_words VALUES(?,?,?)",
                           [(info.id, pw.page, json.dumps(pw.to_dict(), ensure_ascii=False)) for pw in page_words])
            self._bump(db)

    def remove_document(self, path_or_id: str) -> DocumentInfo | None:
        info = self.document(path_or_id)
        if info is None:
            return None
        with self._tx() as db:
            self._delete(db, info.path)
            self._bump(db)
        return info

    @staticmethod
    def _delete(db: sqlite3.Connection, path: str) -> None:
        db.execute("DELETE FROM chunk_fts WHERE rowid IN "
                   "(SELECT c.rowid FROM chunks c JOIN documents d ON d.id=c.doc_id WHERE d.path=?)", (path,))
        db.execute("DELETE FROM documents WHERE path=?", (path,))  # pages and chunks cascade

    @staticmethod
    def _bump(db: sqlite3.Connection) -> None:
        db.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key='generation'")

    # --- search support -------------------------------------------------------------------------
    def cached_vectors(self, text_hashes: Sequence[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        hashes = list(dict.fromkeys(text_hashes))
        for lo in range(0, len(hashes), 500):
            part = hashes[lo : lo + 500]
            marks = ",".join("?" * len(part))
            for h, blob in self._q(f"SELECT text_hash, vector FROM embeddings WHERE text_hash IN ({marks})", part):
                out[h] = np.frombuffer(blob, dtype=np.float32)
        return out

    def dense_matrix(self) -> DenseMatrix:
        rows = self._q("SELECT c.rowid, c.doc_id, e.vector FROM chunks c "
                       "JOIN embeddings e ON e.text_hash = c.text_hash ORDER BY c.rowid")
        if not rows:
            return DenseMatrix(np.zeros(0, np.int64), np.zeros((0, 0), np.float32), np.zeros(0, object))
        rowids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        flat = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.float32)
        return DenseMatrix(rowids, flat.reshape(len(rows), -1), np.array([r[1] for r in rows], dtype=object))

    def chunk_languages(self) -> dict[int, str]:
        return {int(r): str(la) for r, la in self._q("SELECT rowid, lang FROM chunks")}

    def vector_file(self) -> VectorSet | None:
        return sqlite_vectors.current(self.path, self.generation(), self.meta("model") or "")

    def exact_vectors(self, rowids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        with self._lock:
            return sqlite_vectors.exact_vectors(self._db, rowids)

    def keyword_file(self, build: bool = False) -> postings.PostingsFile | None:
        """The term → rows file searches use now (`postings`: written for this generation, or an older one
        with the change since it under postings.DELTA_SHARE), mapped; with `build`, written anew when there is
        none such or the change passed postings.REBUILD_SHARE, and the index holds at least postings.MIN_ROWS
        chunks. None: FTS5 alone."""
        if self._pruner is None:
            return None
        state = self._keyword_index()
        if state is not None and (not build or state[1] is None
                                  or state[1].rows_changed <= postings.REBUILD_SHARE * len(state[0].rowids)):
            return state[0]
        if not build or int(self._q("SELECT count(*) FROM chunks")[0][0]) < postings.MIN_ROWS:
            return None
        path = os.path.join(self.location, KEYWORD_FILE)
        splitter = KeywordPruner(_TOKENIZE)  # its own scratch tokenizer: searches go on meanwhile
        try:
            postings.build(self.path, path, splitter.split_all)
        except OSError as e:  # a read-only index folder, a full disk: FTS5 alone, as before
            log.warning("%s not written (%s); keyword search uses FTS5", path, e)
            return None
        finally:
            splitter.close()
        self._keyword_state = None
        state = self._keyword_index()
        return state[0] if state is not None else None

    def _mapped_keyword_file(self) -> postings.PostingsFile | None:
        path = os.path.join(self.location, KEYWORD_FILE)
        try:
            stamp = os.stat(path).st_mtime_ns
        except OSError:
            stamp = None
        if self._postings is None or self._postings[0] != stamp:
            self._postings = (stamp, postings.load(path) if stamp is not None else None)
        return self._postings[1]

    def _keyword_index(self) -> tuple[postings.PostingsFile, postings.Delta | None] | None:
        """The keyword file and what changed since it was written (read once per generation); None: FTS5
        (no file, or a change past postings.DELTA_SHARE of it)."""
        generation = self.generation()
        known = self._keyword_state
        if known is not None and known[0] == generation:
            return known[1]
        pf = self._mapped_keyword_file()
        state: tuple[postings.PostingsFile, postings.Delta | None] | None = None
        if pf is not None and pf.generation == generation:
            state = (pf, None)
        elif pf is not None and self._pruner is not None:
            db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, isolation_level=None)
            try:
                db.execute("BEGIN")  # one snapshot
                with self._lock:
                    change = postings.delta(pf, db, self._pruner.split_all)
            finally:
                db.close()
            if change is not None and change.generation == generation:
                state = (pf, change)
        self._keyword_state = (generation, state)
        return state

    def keyword_search(self, tokens, limit, doc_ids) -> list[tuple[int, float]]:  # type: ignore[no-untyped-def]
        """FTS5 bm25 over the terms (ties by rowid): from the term → rows file and the change since it (the
        same list, see postings), else pruned to the rows that can reach the top `limit` (the same list, see
        sqlite_keyword) unless `keyword_pruning` is off."""
        terms = list(dict.fromkeys(t for t in tokens if t))
        if not terms or (doc_ids is not None and not doc_ids):
            return []
        if self.keyword_file_search and self._pruner is not None:
            state = self._keyword_index()
            if state is not None:
                with self._lock:
                    toks = [self._pruner.tokens(t) for t in terms]
                found = postings.search(state[0], toks, limit, doc_ids, state[1])
                if found is not None:
                    return found
        if self.keyword_pruning and self._pruner is not None:
            with self._lock:
                self._pruner.refresh(self._db, self.generation())
                found = self._pruner.search(self._db, terms, limit, doc_ids)
            if found is not None:
                return found
        match = " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
        if doc_ids is None:
            sql, args = ("SELECT rowid, -bm25(chunk_fts) FROM chunk_fts WHERE chunk_fts MATCH ? "
                         "ORDER BY bm25(chunk_fts), rowid LIMIT ?"), [match, limit]
        else:
            sql = ("SELECT f.rowid, -bm25(chunk_fts) FROM chunk_fts f JOIN chunks c ON c.rowid = f.rowid "
                   "WHERE chunk_fts MATCH ? AND c.doc_id IN (SELECT value FROM json_each(?)) "
                   "ORDER BY bm25(chunk_fts), f.rowid LIMIT ?")
            args = [match, json.dumps(sorted(doc_ids)), limit]
        return [(int(r), float(s)) for r, s in self._q(sql, args)]

    def document_frequencies(self, tokens: Sequence[str]) -> tuple[dict[str, int], int]:
        if self._pruner is None:
            df = {t: 0 for t in tokens}
            for t in df:
                rows = self._q("SELECT doc FROM chunk_vocab WHERE term = ?", (t,))
                df[t] = int(rows[0][0]) if rows else 0
            return df, int(self._q("SELECT count(*) FROM chunks")[0][0])
        with self._lock:  # kept per index generation, with the keyword search's
            self._pruner.refresh(self._db, self.generation())
            df = {t: self._pruner.doc_frequency(self._db, t) for t in dict.fromkeys(tokens)}
            return df, self._pruner.chunk_count(self._db)

    def chunks(self, rowids: Sequence[int]) -> dict[int, Chunk]:
        out: dict[int, Chunk] = {}
        ids = [int(r) for r in rowids]
        for lo in range(0, len(ids), 500):
            part = ids[lo : lo + 500]
            marks = ",".join("?" * len(part))
            for r in self._q(
                'SELECT rowid, id, doc_id, file, page, heading, text, start, "end", lang, ordinal, '
                f"row_first, row_last, tokens, ocr FROM chunks WHERE rowid IN ({marks})", part
            ):
                rows = (r[11], r[12]) if r[11] is not None else None
                out[r[0]] = Chunk(id=r[1], doc_id=r[2], file=r[3], page=r[4], heading=tuple(json.loads(r[5])),
                                  text=r[6], start=r[7], end=r[8], lang=r[9], ordinal=r[10], rows=rows,
                                  tokens=r[13], ocr=bool(r[14]))
        return out

    def rowids_of(self, chunk_ids: Sequence[str]) -> dict[str, int]:
        marks = ",".join("?" * len(chunk_ids))
        return {cid: r for r, cid in self._q(f"SELECT rowid, id FROM chunks WHERE id IN ({marks})", chunk_ids)}

    def page_text(self, doc_id: str, page: int) -> str | None:
        rows = self._q("SELECT text FROM pages WHERE doc_id=? AND number=?", (doc_id, page))
        return rows[0][0] if rows else None

    def page_words(self, doc_id: str, page: int) -> PageWords | None:
        rows = self._q("SELECT words_json FROM page_words WHERE doc_id=? AND page=?", (doc_id, page))
        return PageWords.from_dict(json.loads(rows[0][0])) if rows else None

    def matching_documents(self, flt: Filter) -> set[str]:
        where, args = ["1=1"], []  # type: ignore[var-annotated]
        if flt.file:
            where.append("(file GLOB ? OR path GLOB ? OR path GLOB ?)")
            args += [flt.file, flt.file, "*/" + flt.file]
        if flt.kind:
            where.append("kind = ?")
            args.append(flt.kind)
        if flt.lang:
            where.append("lang = ?")
            args.append(flt.lang)
        for tag in flt.tags:
            where.append("EXISTS (SELECT 1 FROM json_each(documents.tags) WHERE value = ?)")
            args.append(tag)
        if flt.since:
            where.append("indexed_at >= ?")
            args.append(flt.since)
        if flt.until:
            where.append("indexed_at < ?")
            args.append(flt.until)
        return {r[0] for r in self._q(f"SELECT id FROM documents WHERE {' AND '.join(where)}", args)}

    def history(self) -> History:
        with self._lock:
            if self._history is None:
                self._db.executescript(conversations.SCHEMA)  # idempotent; indexes made before it gain the tables
                self._history = History(self._read, self._tx)
            return self._history

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            yield self._db

    def close(self) -> None:
        with self._lock:
            self._db.close()
            if self._pruner is not None:
                self._pruner.close()

    def drop(self) -> None:
        """Close the index and delete its folder with everything in it (its uploads too)."""
        import shutil

        self.close()
        shutil.rmtree(self.location)


@register("sqlite")
def _open(location: str) -> Store:
    return SQLiteStore(location.removeprefix("sqlite://"))
