"""Indexing: read → chunk → embed → store, each file in one transaction. Dependencies come in as arguments."""
from __future__ import annotations

import hashlib
import json
import os
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from itertools import pairwise
from typing import NoReturn

import numpy as np

from kotae.chunking import chunk_document
from kotae.config import IndexSettings
from kotae.embed.base import Embedder
from kotae.errors import DocumentError
from kotae.ingest import MAX_BYTES, read_document
from kotae.ingest.clean import normalize_width
from kotae.ingest.detect import skip_reason
from kotae.ingest.ocr import options_from
from kotae.ingest.zipcap import ZipLimits
from kotae.names import storable
from kotae.search.analyze import analyze
from kotae.search.synonyms import bundled, with_group_terms
from kotae.store.base import DocumentWrite, Store
from kotae.types import Chunk, DocumentInfo, ParsedDocument

Progress = Callable[[str, int], None]  # (event, amount): "pages", "chunks", "embedded", "file"


@dataclass
class IndexReport:
    indexed: list[DocumentInfo] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)  # (path, one-line reason)
    passed_over: list[tuple[str, str]] = field(default_factory=list)  # (path, why): what folder walks did not read
    tracebacks: dict[str, str] = field(default_factory=dict)  # path → traceback of an unforeseen failure
    warnings: list[str] = field(default_factory=list)
    # seconds per stage over the whole run: hash, read (parse, clean, OCR), chunk, embed, analyze, write
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.failed


@contextmanager
def _timed(seconds: dict[str, float] | None, stage: str) -> Iterator[None]:
    t0 = time.perf_counter()
    try:
        yield
    finally:
        if seconds is not None:
            seconds[stage] = seconds.get(stage, 0.0) + time.perf_counter() - t0


def walk(paths: Iterable[str]) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(path, display name) of every file to index, and (path, reason) of each thing a folder walk passes over
    (an unsupported type, a hidden file or folder, a link to a folder): files as given, folders walked
    recursively; a file named twice (a folder and a file inside it) comes once."""
    out: list[tuple[str, str]] = []
    passed: list[tuple[str, str]] = []
    for p in paths:
        if os.path.isdir(p):
            for root, dirs, files in os.walk(p):
                for d in sorted(dirs):
                    full = os.path.join(root, d)
                    if d.startswith("."):
                        passed.append((full, "hidden folder (not walked)"))
                    elif os.path.islink(full):
                        passed.append((full, "link to a folder (not followed)"))
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for f in sorted(files):
                    full = os.path.join(root, f)
                    reason = skip_reason(full)
                    if reason is None:
                        out.append((full, os.path.relpath(full, p)))
                    else:
                        passed.append((full, reason))
        else:
            out.append((p, os.path.basename(p)))  # explicit files: the content decides (and may fail)
    first: dict[str, tuple[str, str]] = {}
    for path, name in out:
        first.setdefault(os.path.abspath(path), (path, name))
    return list(first.values()), passed


def discover(paths: Iterable[str]) -> list[tuple[str, str]]:
    """(path, display name) of every file to index (see `walk`, which also says what it passed over)."""
    return walk(paths)[0]


def doc_id_for(path: str) -> str:
    """The document id of a path: its absolute path's bytes hashed (names that are not UTF-8 included)."""
    return hashlib.sha1(os.fsencode(os.path.abspath(path))).hexdigest()[:16]


def embed_text(chunk: Chunk, contextual_prefix: bool = False, heading: bool = False) -> str:
    """What the embedder (and the keyword index) see: width-normalised text, optionally after a
    contextual prefix naming the file and heading path, or after the heading path's levels the text does not
    already hold (`heading`); the displayed and cited text stays as is.
    Table rows (chunks with a row range) always come after their heading path: a row alone says neither
    which table, whose document nor which period it belongs to (bench/results/pdf_tables_context.md)."""
    if contextual_prefix:
        head = " › ".join((os.path.splitext(os.path.basename(chunk.file))[0], *chunk.heading))
        return normalize_width(f"{head}\n{chunk.text}")
    if chunk.rows is not None and chunk.heading:
        return normalize_width(" › ".join(chunk.heading) + "\n" + chunk.text)
    missing = missing_heading(chunk) if heading else ()
    return normalize_width(" › ".join(missing) + "\n" + chunk.text if missing else chunk.text)


def missing_heading(chunk: Chunk) -> tuple[str, ...]:
    """The levels of the chunk's heading path that its text does not contain (a chunk that begins its section
    usually starts with the heading line; the chunks after it, and chapter levels, do not)."""
    text = normalize_width(chunk.text)
    return tuple(h for h in chunk.heading if h.strip() and normalize_width(h) not in text)


def keyword_text(chunk: Chunk, embedded: str, heading: bool) -> str:
    """The analysed keyword text of a chunk: its embedded text's tokens, after the tokens of the heading levels
    neither the text nor the embedded prefix holds, when `heading`."""
    missing = [h for h in missing_heading(chunk) if normalize_width(h) not in embedded] if heading else []
    return " ".join(analyze(" ".join(missing)) + analyze(embedded) if missing else analyze(embedded))


def text_hash(model_id: str, text: str) -> str:
    return hashlib.sha1(f"{model_id}\n{text}".encode()).hexdigest()


EMBED_BATCH = 256  # chunks of consecutive small files embedded in one call (bench/embed_batching.py)
HASH_BLOCK = 1 << 20
Reader = Callable[[str, IndexSettings, "Progress | None"], ParsedDocument]  # (path, settings, progress)


def failure(path: str, stage: str, exc: BaseException) -> str:
    """One line for a file that failed in an unforeseen way: the file, the stage, the exception's type."""
    detail = str(exc).splitlines()[0][:300] if str(exc) else ""
    return f"{path}: could not be {stage} ({type(exc).__name__}{': ' + detail if detail else ''}); " \
           "run with --debug for the traceback, and report it if the file is valid"


def index_paths(paths: Iterable[str], store: Store, embedder: Embedder, settings: IndexSettings,
                progress: Progress | None = None, *, force: bool = False,
                names: Mapping[str, str] | None = None, read: Reader | None = None) -> IndexReport:
    """Index files and folders; each file succeeds or fails alone, each in one transaction.

    Any exception reading, cleaning, OCR-ing, chunking or embedding a file fails that file alone (its
    traceback kept in `report.tracebacks`); nothing of it is stored and the batch goes on. `read` replaces
    the in-process reader (the server reads in a child process under limits: `kotae.isolate`).

    `names` gives explicit files their display (and cited) name; otherwise a file's name is its path relative
    to the folder it was found in, or its base name. Chunks of consecutive small files are embedded together
    (up to EMBED_BATCH), so a folder of short notes is embedded as efficiently as one long document. Files are read on this thread: reading ahead on a second
    one was tried and was no faster on 2 cores (the engine already uses every core; tokenising holds the GIL).
    """
    store.bind_model(embedder.model_id)
    report = IndexReport()
    chunking_key = settings.chunk.key()
    if store.meta("chunking") != chunking_key:
        force = force or store.meta("chunking") is not None  # settings changed: re-chunk everything
        store.set_meta("chunking", chunking_key)
        store.set_meta("contextual_prefix", "1" if settings.chunk.contextual_prefix else "0")
        store.set_meta("heading", settings.chunk.heading)
        store.set_meta("chunk_settings", "")
        store.set_meta("synonym_terms", "1" if settings.synonym_terms else "0")
    elif store.meta("synonym_terms") is None:  # an index made before synonyms: its keywords have no group terms
        store.set_meta("synonym_terms", "1" if settings.synonym_terms and not store.documents() else "0")
    settings = replace(settings, synonym_terms=store.meta("synonym_terms") == "1")  # one kind per index
    if not store.meta("chunk_settings"):  # how this index cuts its chunks: `Kotae` keeps to it
        store.set_meta("chunk_settings", json.dumps(asdict(settings.chunk), sort_keys=True))
    pending: list[tuple[str, Prepared]] = []

    def done() -> None:
        if progress:
            progress("file", 1)

    def fail(path: str, stage: str, e: Exception) -> None:
        if isinstance(e, DocumentError):
            report.failed.append((path, str(e)))
            if getattr(e, "child_traceback", ""):  # an unforeseen failure in an isolated reader
                report.tracebacks[path] = e.child_traceback  # type: ignore[attr-defined]
            return
        report.failed.append((path, failure(path, stage, e)))
        report.tracebacks[path] = "".join(traceback.format_exception(e))

    def flush() -> None:
        if not pending:
            return
        try:
            vectors = embed_prepared([p for _, p in pending], store, embedder, progress, seconds=report.seconds)
        except Exception as e:  # noqa: BLE001 - one file fails alone
            for path, _ in pending:
                fail(path, "embedded", e)
            vectors = []
        written = list(zip(pending, vectors))
        with _timed(report.seconds, "write"):  # in one batch, each file atomic (a store may commit them once)
            errors = store.write_documents([to_write(p, v) for (_, p), v in written])
        for ((path, p), _), error in zip(written, errors, strict=True):
            if error is not None:
                fail(path, "written", error)
            else:
                report.indexed.append(p.info)
                report.warnings += [f"{path}: {w}" for w in p.info.warnings]
        for _ in pending:
            done()
        pending.clear()

    files, report.passed_over = walk(paths)
    with store.bulk_load():  # PostgreSQL: a large load builds its HNSW index once, at the end
        for path, name in files:
            name = (names or {}).get(path, name)
            try:
                prepared = prepare_file(path, name, store, embedder, settings, progress, force=force,
                                        seconds=report.seconds, read=read)
            except Exception as e:  # noqa: BLE001 - one file's failure, whatever it is, must not end the batch
                fail(path, "read", e)
            else:
                if prepared is not None:
                    pending.append((path, prepared))
                    if sum(len(p.texts) for _, p in pending) >= EMBED_BATCH:
                        flush()
                    continue
                report.skipped.append(path)
            done()
        flush()
    return report


def index_file(path: str, name: str, store: Store, embedder: Embedder, settings: IndexSettings,
               progress: Progress | None = None, *, force: bool = False,
               seconds: dict[str, float] | None = None) -> DocumentInfo | None:
    """Index one file; returns None when it is unchanged since it was last indexed.

    `seconds`, when given, accumulates the time spent in each stage (see `IndexReport.seconds`).
    """
    prepared = prepare_file(path, name, store, embedder, settings, progress, force=force, seconds=seconds)
    if prepared is None:
        return None
    vectors = embed_prepared([prepared], store, embedder, progress, seconds=seconds)
    write_prepared(prepared, vectors[0], store, seconds=seconds)
    return prepared.info


@dataclass
class Prepared:
    """A file read, chunked and analysed, waiting for its embeddings and its transaction."""

    info: DocumentInfo
    doc: ParsedDocument
    chunks: list[Chunk]
    texts: list[str]
    hashes: list[str]
    keyword: list[str]


def file_digest(path: str) -> str:
    """The sha256 of a file, read in blocks; refused (DocumentError) past MAX_BYTES before any is read."""
    try:
        with open(path, "rb", buffering=0) if _regular(path) else _not_regular(path) as f:
            size = os.fstat(f.fileno()).st_size
            if size > MAX_BYTES:
                raise DocumentError(path, f"file is {size // (1024 * 1024)} MB, over the "
                                    f"{MAX_BYTES // (1024 * 1024)} MB limit", "split it into smaller files")
            digest = hashlib.sha256()
            while block := f.read(HASH_BLOCK):
                digest.update(block)
    except FileNotFoundError as e:
        raise DocumentError(path, "file disappeared while being read", "check the path and index again") from e
    except IsADirectoryError as e:
        raise DocumentError(path, "is a folder, not a file", "pass the files inside it") from e
    except PermissionError as e:
        raise DocumentError(path, "permission denied", "make the file readable and index it again") from e
    except OSError as e:
        raise DocumentError(path, f"cannot read the file ({e.strerror or e})",
                            "check the disk, and that it is not a loop of symbolic links") from e
    return digest.hexdigest()


def _regular(path: str) -> bool:
    """True for a regular file (symbolic links followed); a FIFO, device or socket would block or never end."""
    import stat

    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return True  # let open() say what is wrong (missing, a loop of links, permission)


def _not_regular(path: str) -> NoReturn:
    raise DocumentError(path, "not a regular file (a device, pipe or socket)", "index regular files only")


def prepare_file(path: str, name: str, store: Store, embedder: Embedder, settings: IndexSettings,
                 progress: Progress | None = None, *, force: bool = False,
                 seconds: dict[str, float] | None = None, read: Reader | None = None) -> Prepared | None:
    """Everything before embedding (hash, read, chunk, analyze); None when the file is unchanged."""
    abspath = os.path.abspath(path)
    key, name = storable(abspath), storable(name)  # names that are not UTF-8: their bytes as \xNN
    with _timed(seconds, "hash"):
        digest = file_digest(abspath)
        old = store.document(key)
    if old is not None and old.sha256 == digest and not force and set(settings.tags) <= set(old.tags):
        return None
    with _timed(seconds, "read"):
        doc = (read or _read)(abspath, settings, progress)
    doc_id = doc_id_for(abspath)
    c = settings.chunk
    with _timed(seconds, "chunk"):
        chunks = chunk_document(doc, doc_id, name, count_tokens=embedder.count_tokens, max_tokens=c.max_tokens,
                                overlap_tokens=c.overlap_tokens, min_tokens=c.min_tokens)
        texts = [embed_text(ch, c.contextual_prefix, c.heading in ("embed", "both")) for ch in chunks]
        hashes = [text_hash(embedder.model_id, t) for t in texts]
    if not chunks:
        raise DocumentError(path, "no text found in the document", "check that it is not empty or scanned")
    with _timed(seconds, "analyze"):
        keyword = [keyword_text(ch, t, c.heading in ("keywords", "both")) for ch, t in zip(chunks, texts, strict=True)]
        if settings.synonym_terms:
            keyword = [with_group_terms(k, bundled()) for k in keyword]
    info = DocumentInfo(
        id=doc_id, path=key, file=name, kind=doc.kind, sha256=digest, pages=len(doc.pages),
        chunks=len(chunks), lang=_majority(ch.lang for ch in chunks),
        indexed_at=datetime.now(UTC).isoformat(timespec="seconds"), tags=tuple(settings.tags),
        warnings=doc.warnings,
    )
    return Prepared(info, doc, chunks, texts, hashes, keyword)


def embed_prepared(batch: list[Prepared], store: Store, embedder: Embedder, progress: Progress | None = None, *,
                   seconds: dict[str, float] | None = None) -> list[np.ndarray]:
    """The vectors of each prepared file's chunks, embedded in one call (cached vectors reused by text hash)."""
    texts = [t for p in batch for t in p.texts]
    if progress and texts:
        progress("chunks", len(texts))
    with _timed(seconds, "embed"):
        vectors = embed_cached(texts, [h for p in batch for h in p.hashes], store, embedder, progress)
    bounds = np.cumsum([0] + [len(p.texts) for p in batch])
    return [vectors[a:b] for a, b in pairwise(bounds)]


def to_write(p: Prepared, vectors: np.ndarray) -> DocumentWrite:
    return DocumentWrite(p.info, p.doc.pages, p.chunks, p.hashes, vectors, p.keyword, p.doc.ocr or ())


def write_prepared(p: Prepared, vectors: np.ndarray, store: Store, *,
                   seconds: dict[str, float] | None = None) -> None:
    """Write one file, its chunks, vectors and keyword text atomically."""
    # Only documents with OCR'd pages pass word boxes, so a store without them still indexes the rest.
    extra = {"page_words": p.doc.ocr} if p.doc.ocr else {}
    with _timed(seconds, "write"):
        store.write_document(p.info, p.doc.pages, p.chunks, p.hashes, vectors, p.keyword, **extra)


def _read(path: str, settings: IndexSettings, progress: Progress | None) -> ParsedDocument:
    """Read a file; "pages" progress comes as each OCR'd page ends, and for the other pages once read."""
    ocred = [0]

    def on_page(n: int) -> None:
        ocred[0] += n
        if progress:
            progress("pages", n)

    doc = read_document(path, cut_references=settings.cut_references,
                        ocr=options_from(settings.ocr, on_page), limits=settings.limits,
                        zip_limits=ZipLimits(settings.zip.max_inflated_mb, settings.zip.max_ratio))
    if progress:
        progress("pages", max(0, len(doc.pages) - ocred[0]))
    return doc


def reembed(store: Store, embedder: Embedder, progress: Progress | None = None) -> int:
    """Re-embed every stored chunk with `embedder` (no re-reading of files); returns the chunk count."""
    rowids = [r for r, _ in store.chunk_texts()]
    chunks = store.chunks(rowids)
    contextual = store.meta("contextual_prefix") == "1"
    heading = store.meta("heading") in ("embed", "both")
    texts = [embed_text(chunks[r], contextual, heading) for r in rowids]
    vectors = embedder.passages(texts, on_batch=(lambda n: progress("embedded", n)) if progress else None)
    store.replace_embeddings(embedder.model_id, rowids,
                             [text_hash(embedder.model_id, t) for t in texts], vectors)
    return len(rowids)


def embed_cached(texts: list[str], hashes: list[str], store: Store, embedder: Embedder,
                 progress: Progress | None, cached: dict[str, np.ndarray] | None = None) -> np.ndarray:
    """The vectors of `texts`: from the store's cache by text hash (or `cached`, already looked up), else embedded."""
    cached = store.cached_vectors(hashes) if cached is None else cached
    todo = sorted({h: i for i, h in enumerate(hashes) if h not in cached}.values())
    if progress and len(texts) > len(todo):
        progress("embedded", len(texts) - len(todo))
    fresh = embedder.passages([texts[i] for i in todo], on_batch=(lambda n: progress("embedded", n))
                              if progress else None)
    by_hash = dict(cached)
    by_hash.update({hashes[i]: fresh[j] for j, i in enumerate(todo)})
    return np.stack([by_hash[h] for h in hashes]) if hashes else np.zeros((0, embedder.dim), np.float32)


def _majority(langs: Iterable[str]) -> str:
    counts = Counter(langs)
    return counts.most_common(1)[0][0] if counts else "other"


def parse_only(path: str, name: str, settings: IndexSettings,
               count_tokens: Callable[[str], int]) -> tuple[ParsedDocument, list[Chunk]]:
    """Read and chunk a file without embedding (for `kotae chunks`)."""
    doc = _read(path, settings, None)
    c = settings.chunk
    return doc, chunk_document(doc, doc_id_for(path), name, count_tokens=count_tokens,
                               max_tokens=c.max_tokens, overlap_tokens=c.overlap_tokens,
                               min_tokens=c.min_tokens)
