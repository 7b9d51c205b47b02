"""Bundled tables looked up key by key from an SQLite copy in the user's cache.

A one-shot `kotae ask` needs a few keys of a large bundled table (the synonym dictionary, the English ↔ Japanese
lexicon); parsing the whole table costs more than the rest of the question (bench/cold_start.py). The first
process writes the parsed tables once per installation (`build`); later ones open them read-only (`open_tables`)
and read only the keys asked for. Values are `marshal`led; a key is a string or a tuple of strings.
"""
from __future__ import annotations

import marshal
import os
import sys
import tempfile
from collections.abc import Iterable, Mapping
from typing import Any


def cache_path(name: str, *sources: str, version: int) -> str:
    """Where the cached copy of `name` lives: named by the size and mtime of each of `sources` (the bundled table,
    the module that parses it), `version` and Python's: any change to one of them makes a new copy."""
    stamp = "-".join(f"{st.st_size}-{st.st_mtime_ns}" for st in (os.stat(s) for s in sources))
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    key = f"{stamp}-{version}-{sys.version_info[0]}{sys.version_info[1]}-{marshal.version}"
    return os.path.join(base, "kotae", f"{name}-{key}")


def key(k: object) -> str | int:
    return "\x1f".join(k) if isinstance(k, tuple) else k  # type: ignore[return-value]


class Table:
    """A read-only mapping over one table of a cached copy: key → marshalled value (answers kept per process)."""

    def __init__(self, db: Any, table: str) -> None:
        self._db, self._sql = db, f"SELECT v FROM {table} WHERE k = ?"
        self._seen: dict[object, object] = {}

    def get(self, k, default=None):  # type: ignore[no-untyped-def]
        if k not in self._seen:
            row = self._db.execute(self._sql, (key(k),)).fetchone()
            self._seen[k] = marshal.loads(row[0]) if row else None
        got = self._seen[k]
        return default if got is None else got

    def __contains__(self, k: object) -> bool:
        return self.get(k) is not None


def build(path: str, tables: Mapping[str, Iterable[tuple[object, Any]]]) -> None:
    """Write the tables (name → (key, value) pairs) to `path` atomically; a folder that cannot take it is left
    alone (the caller then keeps the parsed tables)."""
    import sqlite3

    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-", suffix=".sqlite3")
        os.close(fd)
        db = sqlite3.connect(tmp)
        for table, rows in tables.items():
            db.execute(f"CREATE TABLE {table}(k PRIMARY KEY, v BLOB NOT NULL) WITHOUT ROWID")
            db.executemany(f"INSERT INTO {table} VALUES(?, ?)", ((key(k), marshal.dumps(v)) for k, v in rows))
        db.commit()
        db.close()
        os.replace(tmp, path)  # atomic: a concurrent reader sees the whole file or none
    except (OSError, sqlite3.Error):
        pass


def open_tables(path: str, names: Iterable[str]) -> dict[str, Table] | None:
    """The named tables of the copy at `path`, or None when it is missing or unreadable."""
    import sqlite3

    if not os.path.exists(path):
        return None
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
        names = list(names)
        for name in names:
            db.execute(f"SELECT 1 FROM {name} LIMIT 1").fetchall()
    except sqlite3.Error:
        return None
    return {name: Table(db, name) for name in names}
