"""Where named collections live beside a default index: one index of their own each.

    SQLite      the default index is a folder; collection NAME is the folder COLLECTIONS_DIR/NAME
                (default INDEX/collections/NAME), an index folder like any other.
    PostgreSQL  the default index is the first schema on the URL's search path (or none: "kotae");
                collection NAME is the schema FIRST__NAME, the same URL with that schema first.

Pure functions of the locations, plus the listing of what exists.
"""
from __future__ import annotations

import os
import re
from urllib.parse import SplitResult, parse_qsl, quote, urlencode, urlsplit, urlunsplit

from kotae.errors import ConfigError

NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")
SEP = "__"  # between the default schema and a collection's name (PostgreSQL)
MAX_SCHEMA = 63  # PostgreSQL identifiers are cut at 63 bytes


def check_name(name: str) -> str:
    """`name` when it can name a collection: 1–40 of a–z, 0–9, "-" and "_", starting with a letter or digit."""
    if not NAME.fullmatch(name or ""):
        raise ConfigError(f'"{name}" cannot name a collection: use 1–40 lowercase letters, digits, "-" or "_", '
                          "starting with a letter or a digit (e.g. hr-rules)")
    return name


def is_url(location: str) -> bool:
    return "://" in location and not location.startswith("sqlite://")


def location_of(base: str, name: str, root: str | None = None) -> str:
    """The index location of collection `name` beside the default index at `base`."""
    check_name(name)
    if not is_url(base):
        return os.path.join(root or os.path.join(base.removeprefix("sqlite://"), "collections"), name)
    if not _postgres(base):
        raise ConfigError(f"collections live beside a folder or a PostgreSQL index, not a {base.split('://')[0]}:// "
                          "one")
    first, rest, parts, query = _search_path(base)
    schema = f"{first}{SEP}{name}"
    if len(schema.encode()) > MAX_SCHEMA:
        raise ConfigError(f"the schema {schema} of collection {name} is over PostgreSQL's {MAX_SCHEMA} characters; "
                          "choose a shorter name")
    quoted = f'"{schema}"' if "-" in schema else schema
    option = f"-csearch_path={','.join([quoted, *rest])}"
    query["options"] = " ".join([*_other_options(query.get("options", "")), option])
    return urlunsplit(parts._replace(query=urlencode(query, quote_via=quote)))


def names_at(base: str, root: str | None = None) -> list[str]:
    """The collections that exist beside the default index at `base`, sorted."""
    if not is_url(base):
        folder = root or os.path.join(base.removeprefix("sqlite://"), "collections")
        if not os.path.isdir(folder):
            return []
        from kotae.store.sqlite import DB_NAME

        return sorted(e.name for e in os.scandir(folder)
                      if e.is_dir() and NAME.fullmatch(e.name) and os.path.isfile(os.path.join(e.path, DB_NAME)))
    if not _postgres(base):
        return []  # a plug-in store: its collections are not kotae's to find
    from kotae.store import pg_schema
    from kotae.store.pg_connect import Connections

    first = _search_path(base)[0]
    pool = Connections(base, keep=0)
    try:
        with pool.connection() as conn:
            found = pg_schema.schemas(conn, first + SEP)
    finally:
        pool.close()
    return sorted(s[len(first) + len(SEP):] for s in found if NAME.fullmatch(s[len(first) + len(SEP):]))


def exists(base: str, name: str, root: str | None = None) -> bool:
    """Whether collection `name` holds an index."""
    if is_url(base):
        return name in names_at(base, root)
    from kotae.store.sqlite import DB_NAME

    return os.path.isfile(os.path.join(location_of(base, name, root), DB_NAME))


def _postgres(url: str) -> bool:
    return url.startswith(("postgresql://", "postgres://"))


def _search_path(url: str) -> tuple[str, list[str], SplitResult, dict[str, str]]:
    """The URL's first search-path schema (default "kotae"), the rest of the path, its parts and query."""
    parts = urlsplit(url)
    query = dict(parse_qsl(parts.query, keep_blank_values=True))
    tokens = query.get("options", "").split()
    path = ""
    for i, t in enumerate(tokens):
        if t.startswith("-csearch_path="):
            path = t.split("=", 1)[1]
        elif t == "-c" and i + 1 < len(tokens) and tokens[i + 1].startswith("search_path="):
            path = tokens[i + 1].split("=", 1)[1]
    schemas = [s.strip().strip('"') for s in path.split(",") if s.strip()]
    first = schemas[0] if schemas and schemas[0] not in ("$user", "public") else "kotae"
    rest = schemas[1:] if schemas and schemas[0] == first else (schemas or ["public"])
    return first, rest or ["public"], parts, query


def _other_options(options: str) -> list[str]:
    """The URL's server options but its search path (`-csearch_path=…` or `-c search_path=…`)."""
    tokens, out, skip = options.split(), [], False
    for i, t in enumerate(tokens):
        if skip:
            skip = False
        elif t.startswith("-csearch_path="):
            continue
        elif t == "-c" and i + 1 < len(tokens) and tokens[i + 1].startswith("search_path="):
            skip = True
        else:
            out.append(t)
    return out
