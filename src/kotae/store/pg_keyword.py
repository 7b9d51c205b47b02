"""Keyword search on PostgreSQL with the SQLite store's ranking: FTS5's BM25 over the same analysed tokens.

The keyword text a store receives is already analysed (Sudachi for Japanese, stemmed English), one
space-separated token after another. SQLite's FTS5 (unicode61) splits it once more at anything that is
not a letter or digit ("wi-fi" → "wi", "fi"); `terms` does the same, so both stores index the same
terms. The tsvector is built from those terms directly (a 'simple' configuration without the parser's
re-splitting), with positions, so a term's frequency in a chunk is the number of its positions.
Scoring is FTS5's bm25() (k1 = 1.2, b = 0.75, idf = ln((N − n + 0.5)/(n + 0.5)), at least 1e-6),
with N, the total token count and each term's n kept in step by every write.
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


def bm25_sql(filtered: bool) -> str:
    return BM25_SQL.replace("{doc_filter}", "AND c.doc_id = ANY(%(docs)s)" if filtered else "")
