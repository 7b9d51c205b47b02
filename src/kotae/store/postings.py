"""Keyword search at a million chunks: a memory-mapped term → rows file beside the SQLite database
(`keywords.kpf`), scored with numpy in FTS5's own bm25, so the results are the plain FTS5 query's.

FTS5 walks every row holding a query term and calls bm25() per row (~1.3 µs a row: 50–900 ms for a question
with common words at 1M chunks). This file holds, per FTS5 token, the rows holding it and how often, and per
row its token count (FTS5's docsize) and document; a search adds each term's bm25 share over its rows in
numpy, in the query's order of terms, with FTS5's IDF, k1, b and average row length (its averages record), so
every score is the double FTS5 computes, bit for bit, and ties go by rowid as in the SQL. A query term that the
tokenizer makes several tokens of (a phrase: needs positions) is not served here: the store runs FTS5.

The file is written for one index generation (at the end of `kotae index` when the index holds at least
MIN_ROWS chunks and has no usable file). After later writes a search reads the change since it from the
database once per generation (`delta`: the file's documents gone or changed, the rows added, FTS5's current
totals) and scores the file's live rows and the new rows together, still FTS5's exact list; past DELTA_SHARE
of the file's rows the store searches FTS5 until the next index run rewrites the file, so results never
depend on the file being current.

A `sections` file (KOTAEKP2): the header holds the generation, FTS5's row and token totals and the document
ids; terms are sorted by their UTF-8 bytes (binary search).
"""
from __future__ import annotations

import sqlite3
from array import array
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import chain, count

import numpy as np

from kotae.store import sections
from kotae.store.sqlite_keyword import K1, B, idf, varint

MAGIC = b"KOTAEKP2"
SIGS = "SELECT id, sha256 || ':' || indexed_at || ':' || chunks FROM documents"
DELTA_SHARE = 0.2  # rows added + rows gone past this share of the file's: FTS5 until the file is rebuilt
# ... and past this share an index run rewrites the file: reading the change costs ~0.1 ms a new row at each
# new generation's first search (0.10 s for 1,000 rows, bench/keyword_postings.py --after-write)
REBUILD_SHARE = 0.02
MIN_ROWS = 20_000  # below this FTS5 answers in a few ms (bench/keyword_pruning.py): no file


@dataclass(frozen=True)
class PostingsFile:
    generation: int
    n_rows: int  # FTS5's averages record: rows and tokens (its N and average row length)
    n_tokens: int
    doc_ids: list[str]  # document code = position
    doc_sigs: list[str]  # per document: what it was built from (sha256:indexed_at:chunks)
    rowids: np.ndarray  # int64 (n,), ascending: row i is rowid rowids[i]
    sizes: np.ndarray  # int32 (n,): FTS5's docsize (tokens in the row)
    doc_code: np.ndarray  # int32 (n,)
    term_blob: np.ndarray  # uint8: the terms' UTF-8 bytes, sorted, back to back
    term_ends: np.ndarray  # int64 (terms,): end of each term in term_blob
    starts: np.ndarray  # int64 (terms + 1,): term t's postings are rows/freqs[starts[t]:starts[t + 1]]
    rows: np.ndarray  # int32 (postings,): row indices, ascending within a term
    freqs: np.ndarray  # uint16 (postings,): occurrences of the term in the row

    @cached_property
    def doc_code_of(self) -> dict[str, int]:
        return {d: i for i, d in enumerate(self.doc_ids)}

    def find(self, term: str) -> int | None:
        """The term's position (binary search over the sorted UTF-8 bytes), None when absent."""
        key = term.encode("utf-8")
        ends, blob = self.term_ends, self.term_blob
        lo, hi = 0, len(ends)
        while lo < hi:
            mid = (lo + hi) // 2
            start = int(ends[mid - 1]) if mid else 0
            got = blob[start : int(ends[mid])].tobytes()
            if got == key:
                return mid
            if got < key:
                lo = mid + 1
            else:
                hi = mid
        return None

    def postings(self, term: str) -> tuple[np.ndarray, np.ndarray]:
        t = self.find(term)
        if t is None:
            return np.zeros(0, np.int32), np.zeros(0, np.uint16)
        a, b = int(self.starts[t]), int(self.starts[t + 1])
        return self.rows[a:b], self.freqs[a:b]


@dataclass(frozen=True)
class Delta:
    """What changed since the file was written, read from the database (in memory, per generation): the
    file's documents gone or changed (their rows are skipped), the rows of documents added or changed (their
    tokens), and FTS5's current totals. With it the file still gives FTS5's exact scores."""

    generation: int
    n_rows: int
    n_tokens: int
    dead: np.ndarray  # bool per file row: its document is gone or changed
    doc_ids: list[str]  # the new rows' documents, code = position
    rowids: np.ndarray  # int64 (m,)
    sizes: np.ndarray  # int64 (m,)
    doc_code: np.ndarray  # int64 (m,)
    terms: dict[str, tuple[np.ndarray, np.ndarray]]  # token → (new row indices, counts)

    @cached_property
    def doc_code_of(self) -> dict[str, int]:
        return {d: i for i, d in enumerate(self.doc_ids)}

    @property
    def rows_changed(self) -> int:
        """Rows added plus the file's rows gone."""
        return len(self.rowids) + int(self.dead.sum())


def delta(pf: PostingsFile, db: sqlite3.Connection, split: Callable[[list[str]], list[list[str]]]) -> Delta | None:
    """The change since `pf` was written, from one read snapshot `db` (in a transaction); None when it is
    past DELTA_SHARE of the file's rows (FTS5 answers until the file is rebuilt) or FTS5 disagrees."""
    generation = int(db.execute("SELECT value FROM meta WHERE key='generation'").fetchone()[0])
    record = db.execute("SELECT block FROM chunk_fts_data WHERE id=1").fetchone()
    n_rows, n_tokens = _totals(record[0]) if record is not None and record[0] else (0, 0)
    sigs = dict(db.execute(SIGS).fetchall())
    kept = {d for d, g in zip(pf.doc_ids, pf.doc_sigs, strict=True) if sigs.get(d) == g}
    dead_codes = [i for i, d in enumerate(pf.doc_ids) if d not in kept]
    dead = np.isin(pf.doc_code, dead_codes) if dead_codes else np.zeros(len(pf.rowids), bool)
    fresh = sorted(d for d in sigs if d not in kept)
    rows: list[tuple[int, str, bytes, str]] = []
    for lo in range(0, len(fresh), 500):
        part = fresh[lo : lo + 500]
        rows += db.execute(
            "SELECT f.id, f.c0, s.sz, c.doc_id FROM chunk_fts_content f JOIN chunk_fts_docsize s ON s.id = f.id "
            f"JOIN chunks c ON c.rowid = f.id WHERE c.doc_id IN ({','.join('?' * len(part))}) ORDER BY f.id",
            part).fetchall()
        if len(rows) + int(dead.sum()) > DELTA_SHARE * len(pf.rowids):
            return None
    if len(rows) + int(dead.sum()) > DELTA_SHARE * len(pf.rowids):
        return None
    toks = split([r[1] or "" for r in rows])
    if any(varint(r[2])[0] != len(t) for r, t in zip(rows, toks, strict=True)):
        return None
    if n_rows != len(pf.rowids) - int(dead.sum()) + len(rows):
        return None  # FTS5's row count disagrees with what the delta says: keep FTS5
    code = {d: i for i, d in enumerate(fresh)}
    found: dict[str, tuple[list[int], list[int]]] = {}
    for i, t in enumerate(toks):
        for tok, n in Counter(t).items():
            at, counts = found.setdefault(tok, ([], []))
            at.append(i)
            counts.append(n)
    return Delta(generation, n_rows, n_tokens, dead, fresh,
                 np.array([r[0] for r in rows], np.int64), np.array([len(t) for t in toks], np.int64),
                 np.array([code[r[3]] for r in rows], np.int64),
                 {tok: (np.array(a, np.int64), np.array(c, np.int64)) for tok, (a, c) in found.items()})


def search(pf: PostingsFile, tokens: Sequence[tuple[str, ...]], limit: int,
           doc_ids: set[str] | None, change: Delta | None = None) -> list[tuple[int, float]] | None:
    """The top `limit` (rowid, score) by FTS5's bm25 for the query terms (each given as the tokens FTS5 makes
    of it, in query order), ties by rowid; with `change`, over the index as it is now (the file's rows less
    the dead ones, plus the new rows, FTS5's current totals). None when a term is a phrase of several tokens
    (FTS5 must run)."""
    if any(len(t) > 1 for t in tokens):
        return None
    n_rows, n_tokens = (pf.n_rows, pf.n_tokens) if change is None else (change.n_rows, change.n_tokens)
    if limit <= 0 or n_rows == 0:
        return []
    avgdl = n_tokens / n_rows
    acc = np.zeros(len(pf.rowids), np.float64)
    new = np.zeros(0 if change is None else len(change.rowids), np.float64)
    for toks in tokens:
        if not toks:
            continue  # a term with no token: FTS5 adds 0.0 for it
        rows, freqs = pf.postings(toks[0])
        if change is not None and len(rows):
            live = ~change.dead[rows]
            rows, freqs = rows[live], freqs[live]
        at, counts = (change.terms.get(toks[0], (None, None)) if change is not None else (None, None))
        hits = len(rows) + (0 if at is None else len(at))
        if not hits:
            continue
        w = idf(n_rows, hits)
        _add(acc, rows, freqs, pf.sizes, w, avgdl)
        if change is not None and at is not None and counts is not None:
            _add(new, at, counts, change.sizes, w, avgdl)
    cand = np.flatnonzero(acc > 0.0)
    fresh = np.flatnonzero(new > 0.0)
    if doc_ids is not None:
        code = pf.doc_code_of
        ok = np.zeros(len(pf.doc_ids), bool)
        ok[[code[d] for d in doc_ids if d in code]] = True
        cand = cand[ok[pf.doc_code[cand]]]
        if change is not None and len(fresh):
            code = change.doc_code_of
            ok = np.zeros(len(change.doc_ids), bool)
            ok[[code[d] for d in doc_ids if d in code]] = True
            fresh = fresh[ok[change.doc_code[fresh]]]
    rowids = pf.rowids[cand] if change is None else np.concatenate([pf.rowids[cand], change.rowids[fresh]])
    scores = acc[cand] if change is None else np.concatenate([acc[cand], new[fresh]])
    if len(scores) > limit:
        kth = np.partition(scores, len(scores) - limit)[len(scores) - limit]
        keep = scores >= kth
        rowids, scores = rowids[keep], scores[keep]
    order = np.lexsort((rowids, -scores))[:limit]
    return [(int(rowids[i]), float(scores[i])) for i in order]


def _add(acc: np.ndarray, rows: np.ndarray, freqs: np.ndarray, sizes: np.ndarray, w: float, avgdl: float) -> None:
    """A term's bm25 share added to its rows, in fts5Bm25Function's order of operations."""
    f = freqs.astype(np.float64)
    d = sizes[rows].astype(np.float64)
    acc[rows] += w * ((f * (K1 + 1.0)) / (f + K1 * (1 - B + B * d / avgdl)))


# --- writing --------------------------------------------------------------------------------------
def build(db_path: str, path: str, split: Callable[[list[str]], list[list[str]]]) -> PostingsFile | None:
    """Write the file for the database's current generation from one read snapshot and map it. `split`
    gives each row text's FTS5 tokens (the store's tokenizer). None (no file) when the index is empty or a
    row's tokens disagree with FTS5's docsize (the store then keeps FTS5).

    Two passes: the rows are read block by block into (term, row, count) runs, sorted by term within the block
    (terms numbered as first seen); then each block's runs are placed in the file's term order by counting
    (no global sort), straight into the mapped file. Memory: ~10 bytes a posting besides the file."""
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, isolation_level=None)
    try:
        db.execute("BEGIN")
        generation = int(db.execute("SELECT value FROM meta WHERE key='generation'").fetchone()[0])
        record = db.execute("SELECT block FROM chunk_fts_data WHERE id=1").fetchone()
        if record is None or not record[0]:
            return None
        n_rows, n_tokens = _totals(record[0])
        doc_ids = [d for (d,) in db.execute("SELECT DISTINCT doc_id FROM chunks ORDER BY doc_id")]
        sigs = dict(db.execute(SIGS).fetchall())
        code = {d: i for i, d in enumerate(doc_ids)}
        vocab: defaultdict[str, int] = defaultdict(count().__next__)  # token → number, as first seen
        blocks: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        rowids, sizes, docs = array("q"), array("i"), array("i")
        cur = db.execute("SELECT f.id, f.c0, s.sz, c.doc_id FROM chunk_fts_content f "
                         "JOIN chunk_fts_docsize s ON s.id = f.id JOIN chunks c ON c.rowid = f.id ORDER BY f.id")
        while block := cur.fetchmany(5000):
            toks = split([r[1] or "" for r in block])
            lengths = np.fromiter(map(len, toks), np.int64, len(toks))
            if any(varint(r[2])[0] != n for r, n in zip(block, lengths.tolist(), strict=True)):
                return None
            first = len(rowids)
            rowids.extend(int(r[0]) for r in block)
            sizes.extend(lengths.tolist())
            docs.extend(code[r[3]] for r in block)
            ids = np.fromiter(map(vocab.__getitem__, chain.from_iterable(toks)), np.int64, int(lengths.sum()))
            key, n = np.unique(ids * len(block) + np.repeat(np.arange(len(block)), lengths), return_counts=True)
            if len(n) and int(n.max()) > 0xFFFF:
                return None  # a token more often in one row than the counts hold
            blocks.append(((key // len(block)).astype(np.int32), (key % len(block) + first).astype(np.int32),
                           n.astype(np.uint16)))
        if len(rowids) != n_rows:
            return None
    finally:
        db.close()
    words = sorted(vocab, key=lambda w: w.encode("utf-8"))
    rank = np.empty(len(vocab), np.int32)
    rank[[vocab[w] for w in words]] = np.arange(len(words), dtype=np.int32)
    per_term = np.zeros(len(words), np.int64)
    for t, _, _ in blocks:
        per_term += np.bincount(rank[t], minlength=len(words))
    starts = np.concatenate([[0], np.cumsum(per_term)]).astype(np.int64)
    encoded = [w.encode("utf-8") for w in words]
    fixed: dict[str, np.ndarray] = {
        "rowids": np.frombuffer(rowids, np.int64), "sizes": np.frombuffer(sizes, np.int32),
        "doc_code": np.frombuffer(docs, np.int32), "term_blob": np.frombuffer(b"".join(encoded), np.uint8),
        "term_ends": np.cumsum([len(w) for w in encoded], dtype=np.int64), "starts": starts,
    }
    specs = {name: (a.dtype.str, a.shape) for name, a in fixed.items()}
    specs |= {"rows": ("<i4", (int(starts[-1]),)), "freqs": ("<u2", (int(starts[-1]),))}

    def fill(out: dict[str, np.ndarray]) -> None:
        for name, a in fixed.items():
            out[name][...] = a
        free = starts[:-1].copy()  # the next slot of each term
        for t, r, n in blocks:  # a block's runs: one term each, rows ascending, blocks in row order
            new = rank[t]
            run = np.flatnonzero(np.r_[True, t[1:] != t[:-1]])
            length = np.diff(np.r_[run, len(t)])
            pos = free[np.repeat(new[run], length)] + (np.arange(len(t)) - np.repeat(run, length))
            out["rows"][pos] = r
            out["freqs"][pos] = n
            free[new[run]] += length

    meta = {"generation": generation, "n_rows": n_rows, "n_tokens": n_tokens, "doc_ids": doc_ids,
            "doc_sigs": [sigs.get(d, "") for d in doc_ids]}
    sections.write(path, MAGIC, meta, specs, fill, prefix=".keywords-")
    return load(path)


def _totals(record: bytes) -> tuple[int, int]:
    n_rows, i = varint(record)
    return n_rows, varint(record, i)[0]


def load(path: str) -> PostingsFile | None:
    """Map the file read-only; None when it is missing or not of this version."""
    found = sections.read(path, MAGIC)
    if found is None:
        return None
    header, arr = found
    try:
        return PostingsFile(generation=int(header["generation"]), n_rows=int(header["n_rows"]),
                            n_tokens=int(header["n_tokens"]), doc_ids=header["doc_ids"],
                            doc_sigs=header["doc_sigs"], **arr)
    except (KeyError, TypeError):
        return None
