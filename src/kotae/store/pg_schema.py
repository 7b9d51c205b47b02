"""The PostgreSQL schema: numbered migrations recorded in a version table, applied under a lock."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kotae.errors import ConfigError, IndexMismatch
from kotae.store import conversations

# Advisory lock keys (pg_advisory_xact_lock takes a bigint). Writers hold GLOBAL shared; whole-index
# operations (setting the vector dimension, re-embedding) hold it exclusively.
MIGRATE_LOCK = 0x6B6F7461_0001
GLOBAL_LOCK = 0x6B6F7461_0002
MIN_PGVECTOR = (0, 5, 0)  # HNSW indexes arrived in pgvector 0.5.0
MIN_HALFVEC = (0, 7, 0)  # … halfvec in 0.7.0, indexable up to 4,000 dimensions
HALFVEC_MAX_DIM = 4000
BUILD_MEMORY = "1GB"  # maintenance_work_mem while building the HNSW index in one go

MIGRATIONS: list[tuple[int, str]] = [
    (1, """
CREATE TABLE kotae_meta(key text PRIMARY KEY, value text NOT NULL);
-- One row, updated in every writing transaction: the generation and the totals BM25 and the gate need.
CREATE TABLE kotae_stats(
  id int PRIMARY KEY CHECK (id = 1), generation bigint NOT NULL, chunks bigint NOT NULL,
  keyword_tokens bigint NOT NULL, vector_sum vector);
INSERT INTO kotae_stats VALUES (1, 0, 0, 0, NULL);
CREATE TABLE documents(
  id text PRIMARY KEY, path text NOT NULL UNIQUE, file text NOT NULL, kind text NOT NULL,
  sha256 text NOT NULL, pages int NOT NULL, chunks int NOT NULL, lang text NOT NULL,
  tags text[] NOT NULL DEFAULT '{}', warnings text[] NOT NULL DEFAULT '{}', indexed_at text NOT NULL,
  vector_sum vector);
CREATE INDEX documents_tags ON documents USING gin(tags);
CREATE TABLE pages(
  doc_id text NOT NULL REFERENCES documents(id) ON DELETE CASCADE, number int NOT NULL,
  text text NOT NULL, PRIMARY KEY(doc_id, number));
CREATE TABLE chunks(
  rowid bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, id text NOT NULL UNIQUE,
  doc_id text NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  ordinal int NOT NULL, file text NOT NULL, page int NOT NULL, heading text[] NOT NULL,
  text text NOT NULL, start int NOT NULL, "end" int NOT NULL, lang text NOT NULL,
  row_first int, row_last int, tokens int NOT NULL, text_hash text NOT NULL, ocr boolean NOT NULL DEFAULT false,
  keywords tsvector NOT NULL, keyword_len int NOT NULL, embedding vector NOT NULL);
CREATE INDEX chunks_doc ON chunks(doc_id);
CREATE INDEX chunks_keywords ON chunks USING gin(keywords);
CREATE TABLE page_words(
  doc_id text NOT NULL REFERENCES documents(id) ON DELETE CASCADE, page int NOT NULL,
  words jsonb NOT NULL, PRIMARY KEY(doc_id, page));
CREATE TABLE embeddings(text_hash text PRIMARY KEY, vector vector NOT NULL);
-- How many chunks hold each keyword term (BM25's document frequency), kept in step by every write.
CREATE TABLE keyword_terms(term text PRIMARY KEY, chunks int NOT NULL);
"""),
    (2, conversations.SCHEMA),  # conversations, their messages and answer feedback
    # A chunk's vector stays in its row (a 384-d one is 1.5 kB, the row ~2.5 kB): out of line (TOAST, the
    # default above 2 kB) every exact scan and every hit read the vector through the TOAST index, 3–4x
    # slower at 10k chunks (bench/results/pg_build.md). Rows written before keep theirs until rewritten.
    (3, "ALTER TABLE chunks SET (toast_tuple_target = 8160)"),
    # Cached vectors are looked up in the chunks themselves; the cache table keeps only removed documents' vectors
    # (its copies of stored chunks' vectors go).
    (4, ("CREATE INDEX IF NOT EXISTS chunks_text_hash ON chunks(text_hash); "
        "DELETE FROM embeddings e USING chunks c WHERE c.text_hash = e.text_hash")),
]
LATEST = MIGRATIONS[-1][0]


def migrate(conn: Any) -> int:
    """Create or upgrade the schema in `conn`'s database; returns the version now in force.
    An index already up to date is only read, so a read replica opens like the primary."""
    found = _version(conn)
    if found == LATEST and conn.execute("SELECT to_regtype('vector')").fetchone()[0] is not None:
        return LATEST
    if found is not None and found > LATEST:
        raise IndexMismatch(f"the database has kotae schema {found}, this kotae knows up to {LATEST}; upgrade kotae")
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATE_LOCK,))
        _ensure_schema(conn)
        _ensure_pgvector(conn)
        conn.execute("CREATE TABLE IF NOT EXISTS kotae_schema("
                     "version int PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())")
        found = conn.execute("SELECT coalesce(max(version), 0) FROM kotae_schema").fetchone()[0]
        if found > LATEST:
            raise IndexMismatch(f"the database has kotae schema {found}, this kotae knows up to {LATEST}; "
                                "upgrade kotae")
        for version, sql in MIGRATIONS:
            if version > found:
                conn.execute(sql)
                conn.execute("INSERT INTO kotae_schema(version) VALUES (%s)", (version,))
    return LATEST


def _version(conn: Any) -> int | None:
    """The kotae schema version in the index's schema (not in another one further down the search path)."""
    from psycopg import sql

    table = sql.Identifier(_target_schema(conn), "kotae_schema")
    if conn.execute(sql.SQL("SELECT to_regclass({})").format(sql.Literal(table.as_string(conn)))).fetchone()[0] is None:
        return None
    return int(conn.execute(sql.SQL("SELECT coalesce(max(version), 0) FROM {}").format(table)).fetchone()[0])


def _target_schema(conn: Any) -> str:
    """Where the index's tables live: the first schema on the search path (existing yet or not)."""
    first = conn.execute("SELECT split_part(current_setting('search_path'), ',', 1)").fetchone()[0].strip()
    name = first[1:-1].replace('""', '"') if first.startswith('"') else first
    if name in ("", "$user"):
        return str(conn.execute("SELECT current_schema()").fetchone()[0])
    return str(name)


def drop(conn: Any) -> None:
    """Drop the index's schema with everything in it (a collection deleted)."""
    from psycopg import sql

    name = _target_schema(conn)
    if name == "public":
        raise ConfigError("the index lives in the schema public, which kotae never drops; "
                          "drop its tables by hand")
    conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(name)))


def schemas(conn: Any, prefix: str) -> list[str]:
    """The schemas whose names start with `prefix` and that hold a kotae index."""
    rows = conn.execute("SELECT nspname FROM pg_namespace WHERE starts_with(nspname, %s) "
                        "AND to_regclass(quote_ident(nspname) || '.kotae_schema') IS NOT NULL ORDER BY nspname",
                        (prefix,)).fetchall()
    return [r[0] for r in rows]


def _ensure_schema(conn: Any) -> None:
    """Create the collection's schema named first on the search path (?options=-csearch_path%3Dhr,public)."""
    import psycopg
    from psycopg import sql

    name = _target_schema(conn)
    if conn.execute("SELECT to_regnamespace(%s)", (sql.Identifier(name).as_string(conn),)).fetchone()[0] is not None:
        return
    try:
        with conn.transaction():
            conn.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(name)))
    except psycopg.Error as e:
        raise ConfigError(f"cannot create the schema {name} named in the URL's search_path "
                          f"({e.diag.message_primary}); create it, or ask the database owner to") from e


def _ensure_pgvector(conn: Any) -> None:
    import psycopg

    find = ("SELECT e.extversion, n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace "
            "WHERE e.extname = 'vector'")
    row = conn.execute(find).fetchone()
    if row is None:
        try:
            with conn.transaction():  # a savepoint: a refusal leaves the outer transaction usable
                # in public, not the first schema on the search path: every collection's schema shares it
                conn.execute("CREATE EXTENSION IF NOT EXISTS vector SCHEMA public")
        except psycopg.Error as e:
            raise ConfigError(
                f"pgvector is not enabled in this database and could not be ({e.diag.message_primary}); "
                "run CREATE EXTENSION vector; as the database owner (pgvector ≥ 0.5 is required)"
            ) from e
        row = conn.execute(find).fetchone()
    version = tuple(int(p) for p in row[0].split(".")[:3] if p.isdigit())
    if version < MIN_PGVECTOR:
        raise ConfigError(f"pgvector {row[0]} is too old: kotae needs ≥ 0.5.0 for HNSW indexes; "
                          "run ALTER EXTENSION vector UPDATE;")
    if conn.execute("SELECT to_regtype('vector')").fetchone()[0] is None:
        path = conn.execute("SHOW search_path").fetchone()[0]
        raise ConfigError(f"pgvector is installed in schema {row[1]}, which is not on the search path ({path}); "
                          f"add it to the URL, e.g. ?options=-csearch_path%3Dmyschema,{row[1]}")


def pgvector_version(conn: Any) -> tuple[int, ...]:
    """The installed pgvector's version, e.g. (0, 8, 0); () when it is missing."""
    row = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
    return tuple(int(p) for p in row[0].split(".")[:3] if p.isdigit()) if row else ()


@dataclass(frozen=True)
class Hnsw:
    """The HNSW index's build parameters (store.hnsw_m, store.hnsw_ef_construction)."""

    m: int = 16
    ef_construction: int = 32
    halfvec: bool = True  # the index holds the vectors as halfvec where pgvector can (store.hnsw_halfvec)


def hnsw_order(dim: int | None, halfvec: bool, q: str = "%(q)s") -> str:
    """What a query orders by to use the HNSW index: the cosine distance to the query vector, through the
    index's own expression (the vectors cast to halfvec when the index holds them so)."""
    if halfvec and dim:
        return f"embedding::halfvec({int(dim)}) <=> {q}::halfvec({int(dim)})"
    return f"embedding <=> {q}"


def ensure_dimension(conn: Any, dim: int, index: Hnsw | None = Hnsw()) -> None:
    """Fix the embedding column to `dim` and build its HNSW index (unless None), once, before the first vector."""
    if _dimension(conn) == dim:
        return
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (GLOBAL_LOCK,))
        found = _dimension(conn)  # another writer may have done it while this one waited
        if found == dim:
            return
        if found is not None:
            raise IndexMismatch(f"the index holds {found}-dimensional vectors, not {dim}; "
                                "re-embed it with: kotae reembed")
        set_dimension(conn, dim, index)


def set_dimension(conn: Any, dim: int, index: Hnsw | None = Hnsw()) -> None:
    """Inside a transaction holding GLOBAL_LOCK: retype the vector column, (re)build the HNSW index."""
    conn.execute("DROP INDEX IF EXISTS chunks_embedding_hnsw")
    conn.execute(f"ALTER TABLE chunks ALTER COLUMN embedding TYPE vector({int(dim)})")
    conn.execute("INSERT INTO kotae_meta VALUES ('dim', %s) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                 (str(dim),))
    if index is not None:
        build_hnsw(conn, index)


def build_hnsw(conn: Any, index: Hnsw = Hnsw()) -> None:
    """Inside a transaction: build the HNSW index (cosine) if it is missing. pgvector ≥ 0.6 builds it with
    the server's parallel maintenance workers (PostgreSQL's default 2), in a shared memory segment of
    maintenance_work_mem; where the server cannot have one that large (a container's 64 MB /dev/shm) the
    build is retried in the server process alone."""
    import psycopg

    if _dimension(conn) is None:
        return
    # a build much slower once its graph outgrows maintenance_work_mem (~2.5 kB a 384-d vector)
    conn.execute("SELECT set_config('maintenance_work_mem', %s, true)", (BUILD_MEMORY,))
    dim = _dimension(conn)
    if index.halfvec and dim and dim <= HALFVEC_MAX_DIM and pgvector_version(conn) >= MIN_HALFVEC:
        column = f"(embedding::halfvec({int(dim)})) halfvec_cosine_ops"
    else:
        column = "embedding vector_cosine_ops"
    create = (f"CREATE INDEX IF NOT EXISTS chunks_embedding_hnsw ON chunks USING hnsw ({column}) "
              f"WITH (m = {int(index.m)}, ef_construction = {int(index.ef_construction)})")
    try:
        with conn.transaction():  # a savepoint: a refused segment leaves the transaction usable
            conn.execute(create)
    except (psycopg.errors.DiskFull, psycopg.errors.OutOfMemory) as e:
        if "shared memory" not in str(e):
            raise
        conn.execute("SELECT set_config('max_parallel_maintenance_workers', '0', true)")
        conn.execute(create)


def _dimension(conn: Any) -> int | None:
    row = conn.execute("SELECT value FROM kotae_meta WHERE key = 'dim'").fetchone()
    return int(row[0]) if row else None
