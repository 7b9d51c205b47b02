"""The Store interface: documents, pages, chunks, cached embeddings and the keyword index."""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from kotae.types import Chunk, DocumentInfo, PageWords

if TYPE_CHECKING:
    from kotae.store.conversations import History
    from kotae.store.vectorfile import VectorSet

SCHEMA_VERSION = 1
STORES: dict[str, Callable[[str], Store]] = {}


def register(scheme: str) -> Callable[[Callable[[str], Store]], Callable[[str], Store]]:
    """Register a store factory for a URL scheme ("sqlite" takes a directory path); built-ins and plug-ins
    alike (see `kotae.plugins`)."""

    def deco(factory: Callable[[str], Store]) -> Callable[[str], Store]:
        STORES[scheme] = factory
        return factory

    return deco


def open_store(location: str) -> Store:
    """Open the store at `location`: a directory (SQLite) or a URL whose scheme is registered."""
    from kotae import plugins

    plugins.load(readers=False)  # the built-in stores register themselves
    scheme = location.split("://", 1)[0] if "://" in location else "sqlite"
    if scheme not in STORES:
        plugins.load()  # a plug-in's
    if scheme not in STORES:
        from kotae.errors import ConfigError

        raise ConfigError(f"no store for {scheme}:// (known: {', '.join(sorted(STORES))})")
    return STORES[scheme](location)


@dataclass(frozen=True)
class Filter:
    """Restricts a search to some documents; applied inside the search, never after it."""

    file: str | None = None  # glob on the file name or path, e.g. "*.pdf" or "rules/*"
    kind: str | None = None  # "pdf", "docx", …
    lang: str | None = None
    tags: tuple[str, ...] = ()  # all of these tags
    since: str | None = None  # indexed at or after (ISO date)
    until: str | None = None  # indexed before (ISO date)

    @property
    def empty(self) -> bool:
        return not (self.file or self.kind or self.lang or self.tags or self.since or self.until)


@dataclass(frozen=True)
class DenseMatrix:
    """All chunk vectors in memory for exact cosine search."""

    rowids: np.ndarray  # int64, one per row
    vectors: np.ndarray  # float32 (n, dim), L2-normalised
    doc_ids: np.ndarray  # object array of document ids, one per row


@dataclass(frozen=True)
class DocumentWrite:
    """One document to write: `Store.write_document`'s arguments."""

    info: DocumentInfo
    pages: Sequence[str]
    chunks: Sequence[Chunk]
    text_hashes: Sequence[str]
    vectors: np.ndarray
    keyword_text: Sequence[str]
    page_words: Sequence[PageWords] = ()


class Store(ABC):
    """Where an index lives. Writes are whole documents, each atomic."""

    location: str

    @property
    def address(self) -> str:
        """Where to open this store again (`location` with the password a URL may carry)."""
        return self.location

    @abstractmethod
    def bind_model(self, model_id: str) -> None:
        """Record the embedding model of a new index, or refuse one built with another model."""

    @abstractmethod
    def chunk_texts(self) -> list[tuple[int, str]]:
        """(rowid, display text) of every chunk, for re-embedding with another model."""

    @abstractmethod
    def replace_embeddings(self, model_id: str, rowids: Sequence[int], text_hashes: Sequence[str],
                           vectors: np.ndarray) -> None:
        """Switch the index to another embedding model, atomically."""

    @abstractmethod
    def meta(self, key: str) -> str | None: ...

    @abstractmethod
    def set_meta(self, key: str, value: str) -> None: ...

    @abstractmethod
    def document(self, path: str) -> DocumentInfo | None:
        """The indexed document at `path` (as stored), if any."""

    @abstractmethod
    def documents(self) -> list[DocumentInfo]: ...

    @abstractmethod
    def write_document(
        self,
        info: DocumentInfo,
        pages: Sequence[str],
        chunks: Sequence[Chunk],
        text_hashes: Sequence[str],
        vectors: np.ndarray,
        keyword_text: Sequence[str],
        page_words: Sequence[PageWords] = (),
    ) -> None:
        """Replace the document at `info.path` with this one, atomically (with the word boxes of its
        OCR'd pages, when it has any)."""

    def write_documents(self, docs: Sequence[DocumentWrite]) -> list[Exception | None]:
        """Write several documents, each atomically: one that fails leaves nothing of itself and the others
        written. Returns, per document, None or what failed it. A store may batch them in one transaction."""
        out: list[Exception | None] = []
        for d in docs:
            try:
                self.write_document(d.info, d.pages, d.chunks, d.text_hashes, d.vectors, d.keyword_text,
                                    **({"page_words": d.page_words} if d.page_words else {}))
            except Exception as e:  # noqa: BLE001 - one document fails alone
                out.append(e)
            else:
                out.append(None)
        return out

    @contextmanager
    def bulk_load(self) -> Iterator[None]:
        """Around many writes (kotae index, kotae migrate): a store may defer index upkeep to the end."""
        yield

    def configure(self, settings: Any) -> None:
        """Take the `store` section of the settings (`kotae.config.StoreSettings`); most stores need none."""

    @abstractmethod
    def remove_document(self, path_or_id: str) -> DocumentInfo | None: ...

    @abstractmethod
    def cached_vectors(self, text_hashes: Sequence[str]) -> dict[str, np.ndarray]:
        """Embeddings already computed for these text hashes."""

    @abstractmethod
    def dense_matrix(self) -> DenseMatrix: ...

    # A store that searches vectors itself (PostgreSQL's HNSW index) sets this and overrides
    # dense_search; for the others the Searcher keeps dense_matrix() in memory and searches it there.
    searches_vectors: bool = False

    def dense_search(self, query: np.ndarray, k: int,
                     doc_ids: set[str] | None = None) -> tuple[list[tuple[int, float]], float]:
        """Top-k (rowid, cosine) among chunks of `doc_ids` (all when None), and the top similarity's
        margin over the mean similarity of the searched chunks (the gate's signal)."""
        raise NotImplementedError(f"{type(self).__name__} searches through dense_matrix()")

    def vector_file(self) -> VectorSet | None:
        """A memory-mapped int8 copy of the vectors for this generation, a base file and a delta
        (searched in process with exact rescoring through `exact_vectors`); None: the Searcher searches
        `dense_matrix()` instead."""
        return None

    def keyword_file(self, build: bool = False) -> object | None:
        """A store's own structure for faster keyword search of this generation, written when `build` and
        worth it (SQLite: `postings`); None where the store has none."""
        return None

    def exact_vectors(self, rowids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(rowids found, their float32 vectors): the exact rescoring of a `vector_file`'s candidates, and the
        dense candidates' hubness."""
        raise NotImplementedError(f"{type(self).__name__} has no vector file")

    @abstractmethod
    def keyword_search(
        self, tokens: Sequence[str], limit: int, doc_ids: set[str] | None
    ) -> list[tuple[int, float]]:
        """(chunk rowid, BM25 score — higher is better) for chunks matching any token."""

    @abstractmethod
    def document_frequencies(self, tokens: Sequence[str]) -> tuple[dict[str, int], int]:
        """How many chunks hold each token, and the number of chunks."""

    @abstractmethod
    def chunks(self, rowids: Sequence[int]) -> dict[int, Chunk]: ...

    def chunk_languages(self) -> dict[int, str]:
        """rowid → language of every chunk (ja, en, mixed, other); {} where the store does not tell (then the
        searcher's other-language slots stay off)."""
        return {}

    @abstractmethod
    def page_text(self, doc_id: str, page: int) -> str | None: ...

    def page_words(self, doc_id: str, page: int) -> PageWords | None:
        """The OCR word boxes of a page; None when the page was not OCR'd (or the store keeps none)."""
        return None

    @abstractmethod
    def matching_documents(self, flt: Filter) -> set[str]:
        """Ids of the documents a filter admits."""

    @abstractmethod
    def generation(self) -> int:
        """A counter that changes whenever the searchable content changes."""

    @abstractmethod
    def close(self) -> None: ...

    def history(self) -> History:
        """The index's conversations and answer feedback (`kotae.store.conversations`)."""
        raise NotImplementedError(f"{type(self).__name__} keeps no conversations or feedback")

    def drop(self) -> None:
        """Delete the whole index, everything in it, and close the store (a collection being deleted)."""
        from kotae.errors import ConfigError

        raise ConfigError(f"{type(self).__name__} cannot delete an index; delete {self.location} by hand")

    def index_version(self) -> str:
        return f"kotae-{SCHEMA_VERSION}:{self.meta('model') or '?'}:{self.generation()}"
