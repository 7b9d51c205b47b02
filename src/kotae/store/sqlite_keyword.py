"""Exact top-k pruning for the SQLite store's BM25 keyword search (max-score bounds on the query's terms).

FTS5 scores every row that holds any of the query's terms, so a question holding a common word (従業, 日, 1)
pays bm25 for tens of thousands of rows. A term's share of a row's bm25 is below idf × (k1 + 1), so with a
lower bound θ on the k-th score, rows holding only terms whose bounds sum below θ cannot enter the top k.
θ comes from the full scores of the best rows by the query's rarest terms alone, computed here in FTS5's own
order of operations (same IDF, row length from FTS5's docsize table, term frequencies from the row's stored
keyword text read by the same tokenizer: a scratch in-memory FTS5 table). FTS5 then ranks by its own bm25
over all the terms only the rows holding one of the other ("essential") terms, so the results are the list
the unpruned query gives, scores bit for bit (ties by rowid in both). Where pruning would not pay (few rows,
no few rare terms, little left out) `search` returns None and the store runs the plain query.

Document frequencies and phrase row counts are kept per index generation, shared with `document_frequencies`.
"""
from __future__ import annotations

import math
import sqlite3
from collections import Counter
from collections.abc import Sequence

K1, B = 1.2, 0.75  # FTS5's bm25() constants
_EPS = 1e-9  # slack on every bound: a float sum in another order may differ in its last bits
_SMALL = 20  # fewer rows than this many times `limit`, or than _MIN_ROWS, hold a query term: no pruning
_MIN_ROWS = 20000  # (the plain query takes ~1.3 µs a row: below ~25 ms pruning does not pay, bench/keyword_pruning.py)
_BUDGET = 20  # the rarest terms that give the first bound hold at most this many times `limit` rows
_FIRST_SHARE = 0.2  # ... and at most this share of all the query's rows
_THETA_ROWS = 2  # rows (times `limit`) scored in full for that bound
_WORTH = 0.5  # prune only when the essential terms hold at most this share of the query's rows


def idf(n_rows: int, n_hit: int) -> float:
    """FTS5's IDF: log((N - n + 0.5) / (n + 0.5)), 1e-6 where that is not positive."""
    v = math.log((n_rows - n_hit + 0.5) / (n_hit + 0.5))
    return v if v > 0.0 else 1e-6


def bm25(freqs: Sequence[float], idfs: Sequence[float], size: int, avgdl: float) -> float:
    """FTS5's bm25 of one row (as a positive score), term by term in the query's order like fts5Bm25Function."""
    score = 0.0
    for f, w in zip(freqs, idfs, strict=True):
        score += w * ((f * (K1 + 1.0)) / (f + K1 * (1 - B + B * size / avgdl)))
    return score


def varint(blob: bytes, i: int = 0) -> tuple[int, int]:
    """An SQLite varint (FTS5's record format) at `i`: (value, next offset)."""
    v = 0
    for _ in range(8):
        c = blob[i]
        i += 1
        v = (v << 7) | (c & 0x7F)
        if c < 0x80:
            return v, i
    return (v << 8) | blob[i], i + 1


def required(bounds: Sequence[float], theta: float) -> set[int]:
    """The terms a top-k row must hold some of: all but the longest run of the smallest bounds whose sum stays
    below `theta` (a row holding only those scores less than any of the k found)."""
    order = sorted(range(len(bounds)), key=lambda i: bounds[i])
    total, skip = 0.0, 0
    for i in order:
        if (total + bounds[i]) * (1 + _EPS) + _EPS >= theta:
            break
        total += bounds[i]
        skip += 1
    return set(order[skip:])


def quote(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


class KeywordPruner:
    """Holds the scratch tokenizer table and the per-generation statistics of one SQLite store. Every method
    runs under the store's lock with its connection."""

    def __init__(self, tokenize: str) -> None:
        self._probe = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        self._tokenize = tokenize
        self._phrases: dict[str, tuple[str, ...]] = {}
        self.plain: set[str] = set()  # pieces of stored text that are one token as they stand
        self.mixed: dict[str, tuple[str, ...]] = {}  # the other pieces → their tokens
        self._gen = -1
        self.hits: dict[str, int] = {}  # phrase → rows matching it (FTS5's n(q) of the IDF)
        self.df: dict[str, int] = {}  # raw term → chunk_vocab doc count (document_frequencies)
        self._totals: tuple[int, int] = (0, 0)
        self._chunks: int | None = None
        self.last_essential: tuple[int, int] | None = None  # (essential terms, terms) of the last pruned search

    def close(self) -> None:
        self._probe.close()

    # --- statistics -------------------------------------------------------------------------------
    def refresh(self, db: sqlite3.Connection, generation: int) -> None:
        """Forget the statistics when the index has changed."""
        if generation != self._gen:
            self.hits, self.df, self._gen, self._chunks = {}, {}, generation, None
            row = db.execute("SELECT block FROM chunk_fts_data WHERE id=1").fetchone()  # the averages record
            if row is None or not row[0]:
                self._totals = (0, 0)
            else:
                n_rows, i = varint(row[0])
                self._totals = (n_rows, varint(row[0], i)[0])

    def tokens(self, term: str) -> tuple[str, ...]:
        """The tokens FTS5 makes of `term` as a phrase (the same tokenizer as the index)."""
        got = self._phrases.get(term)
        if got is None:
            got = self._tokens_of([term])[0]
            self._phrases[term] = got
        return got

    def _tokens_of(self, texts: list[str]) -> list[tuple[str, ...]]:
        """Each text's tokens by the index's tokenizer: a scratch FTS5 table in memory, made anew each time."""
        db = self._probe
        db.execute("DROP TABLE IF EXISTS p")
        db.execute(f"CREATE VIRTUAL TABLE p USING fts5(tokens, tokenize={self._tokenize})")
        db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.pv USING fts5vocab(main, p, 'instance')")
        db.execute("BEGIN")
        db.executemany("INSERT INTO p(rowid, tokens) VALUES(?, ?)", enumerate(texts, 1))
        db.execute("COMMIT")
        got: dict[int, list[str]] = {}
        for doc, term in db.execute("SELECT doc, term FROM pv ORDER BY doc, offset"):
            got.setdefault(doc, []).append(term)
        return [tuple(got.get(i, ())) for i in range(1, len(texts) + 1)]

    def learn(self, pieces: set[str]) -> None:
        """Tokenize the whitespace-separated pieces not seen yet (once per process): a piece that is its own
        single token joins `plain`, any other keeps its tokens in `mixed` (unicode61 never joins characters
        across whitespace, so a row's tokens are its pieces' tokens in order)."""
        new = [p for p in pieces - self.plain if p not in self.mixed]
        if not new:
            return
        if len(self.plain) + len(self.mixed) > 1_000_000:
            self.plain, self.mixed = set(), {}
        for piece, toks in zip(new, self._tokens_of(new), strict=True):
            if toks == (piece,):
                self.plain.add(piece)
            else:
                self.mixed[piece] = toks

    def split_all(self, texts: list[str]) -> list[list[str]]:
        """Each row text's FTS5 tokens (its new pieces learnt first); a row of plain pieces as it stands."""
        pieces = [t.split() for t in texts]
        self.learn(set().union(*pieces) if pieces else set())
        mixed = self.mixed.keys()
        return [p if mixed.isdisjoint(p) else [x for q in p for x in self.mixed.get(q, (q,))] for p in pieces]

    def split(self, text: str) -> list[str]:
        """The tokens FTS5 makes of a row's text (its pieces learnt already)."""
        out: list[str] = []
        for p in text.split():
            got = self.mixed.get(p)
            if got is None:
                out.append(p)
            else:
                out.extend(got)
        return out

    def phrase_hits(self, db: sqlite3.Connection, term: str) -> int:
        n = self.hits.get(term)
        if n is None:
            toks = self.tokens(term)
            if not toks:
                n = 0
            elif len(toks) == 1:
                n = self.doc_frequency(db, toks[0])
            else:
                n = int(db.execute("SELECT count(*) FROM chunk_fts WHERE chunk_fts MATCH ?", (quote(term),)).fetchone()[0])
            self.hits[term] = n
        return n

    def chunk_count(self, db: sqlite3.Connection) -> int:
        if self._chunks is None:
            self._chunks = int(db.execute("SELECT count(*) FROM chunks").fetchone()[0])
        return self._chunks

    def doc_frequency(self, db: sqlite3.Connection, term: str) -> int:
        n = self.df.get(term)
        if n is None:
            row = db.execute("SELECT doc FROM chunk_vocab WHERE term = ?", (term,)).fetchone()
            n = self.df[term] = int(row[0]) if row else 0
        return n

    # --- search -----------------------------------------------------------------------------------
    def search(self, db: sqlite3.Connection, terms: list[str], limit: int,
               doc_ids: set[str] | None) -> list[tuple[int, float]] | None:
        """The top `limit` (rowid, score) by FTS5's bm25 over `terms` (deduplicated, in query order), ties by
        rowid; None where pruning cannot help (the caller runs the plain query)."""
        n_rows, n_tokens = self._totals
        if len(terms) < 2 or n_rows == 0 or limit <= 0:
            return None
        hits = [self.phrase_hits(db, t) for t in terms]
        if sum(hits) < max(_MIN_ROWS, _SMALL * limit):
            return None  # few rows to score: the plain query is as fast
        idfs = [idf(n_rows, h) for h in hits]
        bounds = [w * (K1 + 1.0) if h else 0.0 for w, h in zip(idfs, hits, strict=True)]
        ctx = _Scoring(self, db, terms, idfs, n_tokens / n_rows)
        # a lower bound on the k-th score: the full scores of the best rows by the rarest terms alone
        budget = max(_BUDGET * limit, n_rows // 50)
        first: list[int] = []
        total = 0
        for i in sorted(range(len(terms)), key=lambda i: -bounds[i]):
            if hits[i] and (not first or total + hits[i] <= budget):
                first.append(i)
                total += hits[i]
        if not first:
            return []
        if total > _FIRST_SHARE * sum(hits):
            return None  # no few rare terms to bound the k-th score cheaply
        ctx.score([int(r) for r, _ in ctx.partial(" OR ".join(quote(terms[i]) for i in sorted(first)), _THETA_ROWS * limit, doc_ids).fetchall()])
        theta = ctx.theta(limit)
        if theta is None:
            return None  # fewer than `limit` rows hold the rarest terms: most rows may count
        essential = required(bounds, theta * (1 - _EPS))
        if sum(hits[i] for i in essential) > _WORTH * sum(hits):
            return None  # the rows left out are too few to pay for the extra work
        self.last_essential = (len(essential), len(terms))
        return ctx.within(sorted(essential), limit, doc_ids)


class _Scoring:
    """One query's terms, IDFs and the full scores computed so far."""

    def __init__(self, pruner: KeywordPruner, db: sqlite3.Connection, terms: list[str], idfs: list[float],
                 avgdl: float) -> None:
        self.pruner, self.db, self.terms, self.idfs, self.avgdl = pruner, db, terms, idfs, avgdl
        self.phrases = [pruner.tokens(t) for t in terms]
        self.scores: dict[int, float] = {}

    def theta(self, limit: int) -> float | None:
        if len(self.scores) < limit:
            return None
        return sorted(self.scores.values(), reverse=True)[limit - 1]

    def within(self, essential: list[int], limit: int, doc_ids: set[str] | None) -> list[tuple[int, float]]:
        """FTS5's own top `limit` by bm25 over all the terms, among the rows holding an essential term."""
        full = " OR ".join(quote(t) for t in self.terms)
        some = " OR ".join(quote(self.terms[i]) for i in essential)
        inner, args = "SELECT rowid FROM chunk_fts WHERE chunk_fts MATCH ?", [full, some]
        if doc_ids is not None:
            import json

            inner = ("SELECT f.rowid FROM chunk_fts f JOIN chunks c ON c.rowid = f.rowid WHERE chunk_fts MATCH ? "
                     "AND c.doc_id IN (SELECT value FROM json_each(?))")
            args.append(json.dumps(sorted(doc_ids)))
        sql = ("SELECT rowid, -bm25(chunk_fts) FROM chunk_fts WHERE chunk_fts MATCH ? "
               f"AND +rowid IN ({inner}) ORDER BY bm25(chunk_fts), rowid LIMIT {int(limit)}")
        return [(int(r), float(x)) for r, x in self.db.execute(sql, args).fetchall()]

    def partial(self, match: str, want: int | None, doc_ids: set[str] | None) -> sqlite3.Cursor:
        """(rowid, bm25 over `match`) best first, the first `want` (all: None), ties by rowid."""
        cap = "" if want is None else f" LIMIT {int(want)}"
        if doc_ids is None:
            sql, args = ("SELECT rowid, -bm25(chunk_fts) FROM chunk_fts WHERE chunk_fts MATCH ? "
                         "ORDER BY bm25(chunk_fts), rowid" + cap), [match]
        else:
            import json

            sql = ("SELECT f.rowid, -bm25(chunk_fts) FROM chunk_fts f JOIN chunks c ON c.rowid = f.rowid "
                   "WHERE chunk_fts MATCH ? AND c.doc_id IN (SELECT value FROM json_each(?)) "
                   "ORDER BY bm25(chunk_fts), f.rowid" + cap)
            args = [match, json.dumps(sorted(doc_ids))]
        return self.db.execute(sql, args)

    def score(self, rowids: list[int]) -> None:
        """FTS5's bm25 over all the query's terms for these rows: term frequencies from their stored keyword
        text read by the same tokenizer (`KeywordPruner.learn`), lengths from FTS5's docsize table."""
        if not rowids:
            return
        pruner = self.pruner
        single = all(len(p) <= 1 for p in self.phrases)
        for lo in range(0, len(rowids), 500):
            part = rowids[lo : lo + 500]
            marks = ",".join("?" * len(part))
            texts = self.db.execute(f"SELECT id, c0 FROM chunk_fts_content WHERE id IN ({marks})", part).fetchall()
            sizes = {int(r): varint(sz)[0] for r, sz in
                     self.db.execute(f"SELECT id, sz FROM chunk_fts_docsize WHERE id IN ({marks})", part)}
            counts = [(int(r), Counter(text.split()), text) for r, text in texts]
            pruner.learn(set().union(*(c.keys() for _, c, _ in counts)))
            mixed = pruner.mixed
            for r, cnt, text in counts:
                if single:
                    odd = cnt.keys() & mixed.keys()
                    freqs = []
                    for p in self.phrases:
                        if not p:
                            freqs.append(0.0)
                            continue
                        t = p[0]
                        f = cnt.get(t, 0) if t not in mixed else 0
                        for piece in odd:
                            f += cnt[piece] * mixed[piece].count(t)
                        freqs.append(float(f))
                else:  # a phrase of several tokens: its positions
                    at: dict[str, list[int]] = {}
                    for o, t in enumerate(pruner.split(text)):
                        at.setdefault(t, []).append(o)
                    freqs = [float(_count(p, at)) for p in self.phrases]
                self.scores[r] = bm25(freqs, self.idfs, sizes[r], self.avgdl)


def _count(phrase: tuple[str, ...], at: dict[str, list[int]]) -> int:
    """Occurrences of the token run `phrase` in a row (`at`: token → its offsets; FTS5 counts each start)."""
    if not phrase:
        return 0
    first = at.get(phrase[0], ())
    if len(phrase) == 1:
        return len(first)
    rest = [set(at.get(t, ())) for t in phrase[1:]]
    return sum(1 for o in first if all(o + k in s for k, s in enumerate(rest, 1)))
