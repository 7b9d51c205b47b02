"""Keyword search on PostgreSQL with the SQLite store's ranking: FTS5's BM25 over the same analysed tokens.

The keyword text a store receives is already analysed (Sudachi for Japanese, stemmed English), one
space-separated token after another. SQLite's FTS5 (unicode61) splits it once more at anything that is
not a letter or digit ("wi-fi" → "wi", "fi"); `terms` does the same, so both stores index the same
terms. The tsvector is built from those terms directly (a 'simple' configuration without the parser's
re-splitting), with positions, so a term's frequency in a chunk is the number of its positions.
Scoring is FTS5's bm25() (k1 = 1.2, b = 0.75, idf = ln((N − n + 0.5)/(n + 0.5)), at least 1e-6),
with N, the total token count and each term's n kept in step by every write.

Exact top-k pruning (`rare_terms`, then `sqlite_keyword.required`), as the SQLite store does it: a term adds
less than idf × (k1 + 1) to a chunk's score, so once the full scores of the chunks holding the query's rarest
terms give a k-th score θ, a chunk holding only terms whose bounds sum below θ cannot be in the top k, and
the full scoring runs over the chunks holding one of the other terms only.
"""
from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence

_TERM = re.compile(r"[^\W_]+")
K1, B = 1.2, 0.75
MAX_POSITION = 16383  # PostgreSQL caps tsvector positions here …
MAX_POSITIONS = 256  # … and keeps at most this many per lexeme


def terms(keyword_text: str) -> list[str]:
    """The terms FTS5's unicode61 tokenizer finds in analysed text, in order."""
    return _TERM.findall(keyword_text.lower())


def quote(term: str) -> str:
    """A lexeme as tsvector/tsquery input reads it verbatim."""
    return "'" + term.replace("\\", "\\\\").replace("'", "''") + "'"


def positions(found: Sequence[str]) -> dict[str, list[int]]:
    """Each term's positions (1-based, strictly increasing, within PostgreSQL's caps), in first-seen order."""
    out: dict[str, list[int]] = {}
    for i, t in enumerate(found, start=1):
        p = out.setdefault(t, [])
        if len(p) < MAX_POSITIONS and (not p or p[-1] < MAX_POSITION):
            p.append(min(i, MAX_POSITION))
    return out


def tsvector_literal(found: Sequence[str]) -> str:
    """tsvector input for these terms with their positions (1-based), e.g. `'a':1,3 'b':2`."""
    return " ".join(f"{quote(t)}:{','.join(map(str, p))}" for t, p in positions(found).items())


def tsquery_literal(query_terms: Iterable[str]) -> str:
    """tsquery input matching any of the terms."""
    return " | ".join(quote(t) for t in query_terms)


def query_terms(tokens: Sequence[str]) -> list[str]:
    """Distinct terms of analysed query tokens (a token the tokenizer splits counts as its parts)."""
    return list(dict.fromkeys(t for tok in tokens if tok for t in terms(tok)))


def idf(n_chunks: int, df: Mapping[str, int], query: Sequence[str]) -> list[float]:
    """FTS5's idf of each query term."""
    out = []
    for t in query:
        n = df.get(t, 0)
        x = math.log((n_chunks - n + 0.5) / (n + 0.5)) if n_chunks else 0.0
        out.append(x if x > 0 else 1e-6)
    return out


# FTS5's bm25() per matching chunk. The query's lexemes are marked with weight A so ts_filter keeps
# only them, and unnest gives their positions: the term frequency without expanding whole tsvectors.
BM25_SQL = """
SELECT c.rowid,
  sum(q.idf * (cardinality(u.positions) * (%(k1)s + 1.0))
      / (cardinality(u.positions) + %(k1)s * (1.0 - %(b)s + %(b)s * c.keyword_len / %(avgdl)s))) AS score
FROM chunks c
CROSS JOIN LATERAL unnest(ts_filter(setweight(c.keywords, 'A', %(terms)s::text[]), '{a}')) u
JOIN unnest(%(terms)s::text[], %(idf)s::float8[]) AS q(term, idf) ON q.term = u.lexeme
WHERE c.keywords @@ %(tsquery)s::tsquery {doc_filter}
GROUP BY c.rowid
ORDER BY score DESC, c.rowid
LIMIT %(limit)s
"""


# Pruning pays where the query's terms hold many chunks (a common word scores tens of thousands of tsvectors)
# and a few rare terms give the first bound; constants as the SQLite store's (sqlite_keyword) but MIN_ROWS:
# bench/keyword_pruning.py --postgres at 100k, 5,000 and 20,000 within noise (p50 68.5 / 65.4 ms, mean 70.7 /
# 75.2 ms; unpruned 97.7 ms). Once the first bound is paid for, any term left out makes the scoring cheaper, so
# there is no "worth it" share as in SQLite (where FTS5's own query is the alternative): on/off p50 0.70 → 0.60.
MIN_ROWS = 5000  # fewer chunks than this hold the query's terms (counted with repeats): the plain query
BUDGET = 20  # the rarest terms that give the first bound hold at most this many times `limit` chunks
FIRST_SHARE = 0.2  # ... and at most this share of all the query's chunks


def rare_terms(query: Sequence[str], df: Mapping[str, int], limit: int) -> list[str] | None:
    """The rarest terms whose chunks' full scores give the first bound, or None where pruning cannot pay
    (few chunks hold the terms, or the rarest ones alone hold too many or fewer than `limit`)."""
    rows = sum(df.get(t, 0) for t in query)
    if limit < 1 or rows < max(MIN_ROWS, limit) or len(query) < 2:
        return None
    out: list[str] = []
    held = 0
    for t in sorted(query, key=lambda t: (df.get(t, 0), t)):
        n = df.get(t, 0)
        if out and (held + n > BUDGET * limit or held + n > FIRST_SHARE * rows):
            break
        out.append(t)
        held += n
    if held < limit or held > FIRST_SHARE * rows or len(out) == len(query):
        return None
    return out


def bound(idf_value: float) -> float:
    """The most one term can add to a chunk's bm25."""
    return idf_value * (K1 + 1.0)


def bm25_sql(filtered: bool) -> str:
    return BM25_SQL.replace("{doc_filter}", "AND c.doc_id = ANY(%(docs)s)" if filtered else "")
