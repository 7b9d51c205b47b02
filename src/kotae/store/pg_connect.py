"""Connections for the PostgreSQL store: a few kept open for the server's threads, one per caller at a time."""
from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from kotae.errors import ConfigError


def redact(url: str) -> str:
    """The URL without its password, for messages and `Store.location`."""
    parts = urlsplit(url)
    if not parts.password:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


class Connections:
    """A small pool: `with pool.connection() as conn` lends an autocommit connection to one thread."""

    def __init__(self, url: str, keep: int = 4) -> None:
        try:
            import psycopg  # noqa: F401
        except ImportError as e:
            raise ConfigError("a postgresql:// index needs the postgres extra: pip install 'kotae[postgres]'") from e
        self.url = url
        self.keep = keep
        self._idle: list[Any] = []
        self._lock = threading.Lock()
        self.registered = False  # the vector type exists (after the first migration)

    def open(self) -> Any:
        import psycopg

        try:
            conn = psycopg.connect(self.url, autocommit=True)
        except psycopg.OperationalError as e:
            raise ConfigError(f"cannot connect to {redact(self.url)}: {str(e).strip().splitlines()[0]}") from e
        if self.registered:
            self.register(conn)
        return conn

    @staticmethod
    def register(conn: Any) -> None:
        from pgvector.psycopg import register_vector

        register_vector(conn)

    @contextmanager
    def connection(self) -> Iterator[Any]:
        with self._lock:
            conn = self._idle.pop() if self._idle else None
        if conn is None or conn.closed:
            conn = self.open()
        try:
            yield conn
        finally:
            from psycopg.pq import TransactionStatus

            if conn.closed or conn.info.transaction_status != TransactionStatus.IDLE:
                conn.close()
            else:
                with self._lock:
                    if len(self._idle) < self.keep:
                        self._idle.append(conn)
                        conn = None
                if conn is not None:
                    conn.close()

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()
