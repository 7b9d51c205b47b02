"""Index pre-split text (BEIR corpora and the like) through the normal store: each record is one chunk (no
chunking), and every `batch` records make one stored "document", so the same search code runs as for files.

Embeddings are looked up by text hash first, so a re-run embeds nothing; a batch whose content is unchanged
is not rewritten at all.
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from kotae.chunking import detect_lang
from kotae.embed.base import Embedder
from kotae.errors import KotaeError
from kotae.pipeline import Progress, embed_cached, embed_text, text_hash
from kotae.search.analyze import analyze
from kotae.search.synonyms import bundled, with_group_terms
from kotae.store.base import Store
from kotae.types import Chunk, DocumentInfo, Record

BATCH = 500
KIND = "records"


@dataclass(frozen=True)
class RecordsReport:
    batches: int
    written: int  # batches (re)written; the rest were unchanged
    embedded: int  # passages embedded now; the rest came from the cache


def batch_path(collection: str, n: int) -> str:
    return f"records://{collection}/{n:05d}"


def record_chunks(records: Sequence[Record], collection: str, doc_id: str,
                  counter: Callable[[str], int] | None = None) -> list[Chunk]:
    """One chunk per record; `Chunk.file` holds the record id (what BEIR qrels judge)."""
    return [
        Chunk(id=f"rec:{collection}:{r.id}", doc_id=doc_id, file=r.id, page=1,
              heading=(r.title,) if r.title else (), text=r.text, start=0, end=len(r.text),
              lang=detect_lang(r.text), ordinal=i, tokens=counter(r.text) if counter else 0)
        for i, r in enumerate(records)
    ]


def index_records(records: Sequence[Record], collection: str, store: Store, embedder: Embedder,
                  progress: Progress | None = None, batch: int = BATCH, synonym_terms: bool = True) -> RecordsReport:
    """Write `records` into `store` (one document per `batch` records); unchanged batches are skipped, and
    batches past the end of a shrunk collection are removed. An index holds one collection of records."""
    store.bind_model(embedder.model_id)
    owner = store.meta("records") or store.meta("beir_dataset")  # beir_dataset: indexes of kotae ≤ 0.1
    if owner not in (None, collection) or (owner is None and store.documents()):
        raise KotaeError(f"the index in {store.location} holds {owner or 'other documents'}, not the "
                         f"collection {collection}; pass another --index")
    store.set_meta("records", collection)
    if store.meta("synonym_terms") is None:  # see pipeline.index_paths: one kind of keyword text per index
        store.set_meta("synonym_terms", "1" if synonym_terms and not store.documents() else "0")
    groups = store.meta("synonym_terms") == "1"
    n_batches = (len(records) + batch - 1) // batch
    written = embedded = 0
    for n in range(n_batches):
        part = records[n * batch : (n + 1) * batch]
        path = batch_path(collection, n)
        digest = hashlib.sha256(
            "\x1e".join(f"{r.id}\x1f{r.text}" for r in part).encode() + embedder.model_id.encode()
        ).hexdigest()
        old = store.document(path)
        if old is not None and old.sha256 == digest:
            if progress:
                progress("file", 1)
            continue
        doc_id = hashlib.sha1(path.encode()).hexdigest()[:16]
        chunks = record_chunks(part, collection, doc_id, embedder.count_tokens)
        if progress:
            progress("chunks", len(chunks))
        texts = [embed_text(c) for c in chunks]  # no contextual prefix: the title is in the text
        hashes = [text_hash(embedder.model_id, t) for t in texts]
        cached = store.cached_vectors(hashes)
        fresh = len(set(hashes) - set(cached))
        vectors = embed_cached(texts, hashes, store, embedder, progress, cached)
        embedded += fresh
        langs = [c.lang for c in chunks]
        info = DocumentInfo(id=doc_id, path=path, file=f"{collection} {n * batch}–{n * batch + len(part) - 1}",
                            kind=KIND, sha256=digest, pages=1, chunks=len(chunks),
                            lang=max(set(langs), key=langs.count),
                            indexed_at=datetime.now(UTC).isoformat(timespec="seconds"))
        keyword = [" ".join(analyze(t)) for t in texts]
        if groups:
            keyword = [with_group_terms(k, bundled()) for k in keyword]
        store.write_document(info, [""], chunks, hashes, vectors, keyword)
        written += 1
        if progress:
            progress("file", 1)
    current = {batch_path(collection, n) for n in range(n_batches)}
    for d in store.documents():  # the collection shrank (or was stored by an older version): drop the rest
        if d.path not in current:
            store.remove_document(d.path)
    return RecordsReport(n_batches, written, embedded)
