"""SQL for PostgreSQL searches: exact vector search under a filter, and filters as WHERE clauses."""
from __future__ import annotations

import re
from typing import Any

from kotae.store.base import Filter


def filter_sql(flt: Filter) -> tuple[str, list[object]]:
    """A WHERE clause on `documents` admitting what the filter admits (as the SQLite store reads it)."""
    where: list[str] = ["true"]
    args: list[object] = []
    if flt.file:
        pattern = glob_regex(flt.file)
        where.append("(file ~ %s OR path ~ %s OR path ~ %s)")
        args += [pattern, pattern, glob_regex("*/" + flt.file)]
    for column, value in (("kind", flt.kind), ("lang", flt.lang)):
        if value:
            where.append(f"{column} = %s")
            args.append(value)
    if flt.tags:
        where.append("tags @> %s")
        args.append(list(flt.tags))
    if flt.since:
        where.append('indexed_at >= %s COLLATE "C"')
        args.append(flt.since)
    if flt.until:
        where.append('indexed_at < %s COLLATE "C"')
        args.append(flt.until)
    return " AND ".join(where), args


def exact_search(conn: Any, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    """Exact cosine distance top-k among the chunks of some documents (materialised first: no index can
    drop any), as (rowid, distance); the distance named once, so computed once a row."""
    rows: list[tuple[Any, ...]] = conn.execute(
        "WITH c AS MATERIALIZED (SELECT rowid, embedding FROM chunks WHERE doc_id = ANY(%(docs)s)) "
        "SELECT rowid, embedding <=> %(q)s AS d FROM c ORDER BY d, rowid LIMIT %(k)s",
        args).fetchall()
    return rows


def glob_regex(pattern: str) -> str:
    """SQLite GLOB as an anchored POSIX regular expression (`*`, `?`, `[…]`, `[^…]`)."""
    out, i = ["^"], 0
    while i < len(pattern):
        c = pattern[i]
        close = pattern.find("]", i + 2) if c == "[" else -1
        if c == "*":
            out.append(".*")
        elif c == "?":
            out.append(".")
        elif close > 0:
            body = pattern[i + 1 : close]
            neg = body.startswith("^")
            out.append("[" + ("^" if neg else "") + body[neg:].replace("\\", "\\\\") + "]")
            i = close
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out) + "$"
