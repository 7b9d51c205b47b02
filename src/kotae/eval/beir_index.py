"""Stores a BEIR corpus through the normal Store path: each corpus entry is one chunk (no chunking), and
every 500 entries make one stored "document", so the same search code runs as for real documents.

Embeddings are looked up by text hash first (`store.cached_vectors`), so a re-run embeds nothing; a
batch whose content is unchanged is not rewritten at all.
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np

from kotae.chunking import detect_lang
from kotae.embed.base import Embedder
from kotae.errors import KotaeError
from kotae.eval.beir import CorpusDoc
from kotae.pipeline import Progress, embed_text, text_hash
from kotae.search.analyze import analyze
from kotae.store.base import Store
from kotae.types import Chunk, DocumentInfo

BATCH = 500
KIND = "beir"


@dataclass(frozen=True)
class CorpusIndexReport:
    batches: int
    written: int  # batches (re)written; the rest were unchanged
    embedded: int  # passages embedded now; the rest came from the cache


def batch_path(dataset: str, n: int) -> str:
    return f"beir://{dataset}/{n:05d}"


def corpus_chunks(docs: Sequence[CorpusDoc], dataset: str, doc_id: str,
                  counter: Callable[[str], int] | None = None) -> list[Chunk]:
    """One chunk per corpus entry; `Chunk.file` holds the corpus id (what qrels judge)."""
    return [
        Chunk(id=f"beir:{dataset}:{d.id}", doc_id=doc_id, file=d.id, page=1,
              heading=(d.title,) if d.title else (), text=d.passage, start=0, end=len(d.passage),
              lang=detect_lang(d.passage), ordinal=i, tokens=counter(d.passage) if counter else 0)
        for i, d in enumerate(docs)
    ]


def index_corpus(corpus: Sequence[CorpusDoc], dataset: str, store: Store, embedder: Embedder,
                 progress: Progress | None = None, batch: int = BATCH) -> CorpusIndexReport:
    """Write `corpus` into `store` (one document per `batch` entries); unchanged batches are skipped."""
    store.bind_model(embedder.model_id)
    owner = store.meta("beir_dataset")
    if owner not in (None, dataset) or (owner is None and store.documents()):
        raise KotaeError(f"the index in {store.location} holds {owner or 'other documents'}, not the BEIR "
                         f"data set {dataset}; pass another --index")
    store.set_meta("beir_dataset", dataset)
    n_batches = (len(corpus) + batch - 1) // batch
    written = embedded = 0
    for n in range(n_batches):
        part = corpus[n * batch : (n + 1) * batch]
        path = batch_path(dataset, n)
        digest = hashlib.sha256(
            "\x1e".join(f"{d.id}\x1f{d.passage}" for d in part).encode() + embedder.model_id.encode()
        ).hexdigest()
        old = store.document(path)
        if old is not None and old.sha256 == digest:
            if progress:
                progress("file", 1)
            continue
        doc_id = hashlib.sha1(path.encode()).hexdigest()[:16]
        chunks = corpus_chunks(part, dataset, doc_id, embedder.count_tokens)
        if progress:
            progress("chunks", len(chunks))
        texts = [embed_text(c) for c in chunks]  # no contextual prefix: the title is in the passage
        hashes = [text_hash(embedder.model_id, t) for t in texts]
        vectors, fresh = _vectors(texts, hashes, store, embedder, progress)
        embedded += fresh
        langs = [c.lang for c in chunks]
        info = DocumentInfo(id=doc_id, path=path, file=f"{dataset} corpus {n * batch}–{n * batch + len(part) - 1}",
                            kind=KIND, sha256=digest, pages=1, chunks=len(chunks),
                            lang=max(set(langs), key=langs.count),
                            indexed_at=datetime.now(UTC).isoformat(timespec="seconds"))
        store.write_document(info, [""], chunks, hashes, vectors, [" ".join(analyze(t)) for t in texts])
        written += 1
        if progress:
            progress("file", 1)
    current = {batch_path(dataset, n) for n in range(n_batches)}
    for d in store.documents():  # the corpus shrank: drop batches past its end
        if d.path not in current:
            store.remove_document(d.path)
    return CorpusIndexReport(n_batches, written, embedded)


def _vectors(texts: list[str], hashes: list[str], store: Store, embedder: Embedder,
             progress: Progress | None) -> tuple[np.ndarray, int]:
    cached = store.cached_vectors(hashes)
    todo = sorted({h: i for i, h in enumerate(hashes) if h not in cached}.values())
    if progress and len(texts) > len(todo):
        progress("embedded", len(texts) - len(todo))
    fresh = embedder.passages([texts[i] for i in todo],
                              on_batch=(lambda k: progress("embedded", k)) if progress else None)
    by_hash = dict(cached)
    by_hash.update({hashes[i]: fresh[j] for j, i in enumerate(todo)})
    if not hashes:
        return np.zeros((0, embedder.dim), np.float32), 0
    return np.stack([by_hash[h] for h in hashes]), len(todo)
