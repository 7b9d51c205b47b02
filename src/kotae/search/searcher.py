"""Wires the retrievers: dense and keyword candidates, fused by rank, maybe reranked, judged by the gate."""
from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from kotae.chunking import question_lang
from kotae.config import MODES, SearchSettings
from kotae.embed.base import Embedder
from kotae.embed.memo import PassageMemo
from kotae.search import dates, docnull, hubness, lexicon
from kotae.search.analyze import analyze, file_tokens, names, words
from kotae.search.dense import DenseIndex, QuantizedIndex
from kotae.search.fusion import Arms, add_weighted, fuse
from kotae.search.gate import (
    MIN_LANG_SHARE,
    GateDecision,
    GateSettings,
    absent_names,
    absent_share,
    absent_terms,
    coverage,
    decide,
    explain,
)
from kotae.search.langslots import LangStats, place_other, take_back
from kotae.search.lowinfo import asks_page, behind, demote, figure_share, information, navigation
from kotae.search.rerank import Reranker
from kotae.search.sections import with_neighbours
from kotae.search.synonyms import (
    PREFIX,
    expansion_phrases,
    group_terms,
    held_through_groups,
    matches,
    on_demand,
)
from kotae.store.base import Filter, Store
from kotae.types import Chunk, Hit

__all__ = ["MODES", "NO_RERANKER", "SearchResult", "SearchSettings", "Searcher"]

STAT_SAMPLE = 4096  # chunks per language behind the other-language slots' statistics
NO_RERANKER = ("rerank skipped: no reranker loaded (pass --reranker SPEC or set KOTAE_RERANKER); "
               "results are in hybrid order")


@dataclass(frozen=True)
class SearchResult:
    query: str
    hits: list[Hit]
    gate: GateDecision
    timings_ms: dict[str, float]
    query_vector: np.ndarray | None = None
    notices: tuple[str, ...] = ()  # e.g. why hybrid+rerank fell back to hybrid
    translation_vector: np.ndarray | None = None  # the embedding of the question's translated words, if made


# keyword coverage (the keyword arm's weight in fusion) counts a word a hit holds as its synonym: measured on, off as
# the baseline of bench/coverage_synonyms.py
COVERAGE_SYNONYMS = True
# whose translations the keyword weight in fusion counts (the keyword arm searched them; the gate's coverage does not
# count a Japanese question's: lexicon.COVERAGE_SOURCES): bench/crossling_mixed.py, fit halves equal, users-real
# held-out hit@1 0.808 → 0.885 (bench/README.md, "Fusion coverage with a Japanese question's translations")
FUSION_COVERAGE_SOURCES: tuple[str, ...] = ("en", "ja")
# the gate's coverage counts a Japanese question's translations when the closest passage is English: bench/refusal.py
# --experiments "gate translations when the closest passage is in the other language", samples + real files: every
# fit half and off-topic probe set equal, users-real held-out false refusals 0.115 → 0.077 (bench/README.md)
GATE_TRANSLATIONS_OTHER_TOP = True
# the gate's keyword coverage (of the top three fused hits) counts them too, in passages of the question's language:
# bench/refusal.py --experiments 'gate coverage with synonyms'
GATE_COVERAGE_SYNONYMS = True



class _PerChunk:
    """A value computed from each chunk (`fn(chunk)`), kept until the store changes (a removed chunk's rowid may
    be given to a new one)."""

    def __init__(self, fn: Callable[[Chunk], Any]) -> None:
        self.fn = fn
        self.values: dict[int, Any] = {}
        self.generation = -1

    def of(self, store: Store, rowids: list[int]) -> dict[int, Any]:
        gen = store.generation()
        if gen != self.generation:
            self.values, self.generation = {}, gen
        todo = [r for r in rowids if r not in self.values]
        if todo:
            self.values.update({r: self.fn(c) for r, c in store.chunks(todo).items()})
        return {r: self.values[r] for r in rowids if r in self.values}

class Searcher:
    """Searches one store with one embedder and an optional reranker; the dense matrix follows the store."""

    def __init__(self, store: Store, embedder: Embedder, settings: SearchSettings | None = None,
                 reranker: Reranker | None = None, *, fixed_gate: bool = False) -> None:
        self.store = store
        self.embedder = embedder
        self.settings = settings or SearchSettings()
        self.reranker = reranker
        self.sentences = PassageMemo(embedder)  # the extractive answer's sentence vectors, kept across questions
        self.fixed_gate = fixed_gate  # the settings' thresholds win over the index's calibration
        self._dense: DenseIndex | QuantizedIndex | None = None
        self._info = _PerChunk(lambda c: information(c.text))
        self._nav = _PerChunk(lambda c: navigation(c.text, c.heading))
        self._dates = _PerChunk(lambda c: dates.mentions("\n".join((*c.heading, c.text, c.file)), in_context=True))
        self._generation = -1
        self._langs: tuple[int, dict[str, int]] = (-1, {})
        self._files: tuple[int, frozenset[str]] = (-1, frozenset())
        self._null: tuple[str, hubness.NullVectors | None] = ("", None)
        self._levels: tuple[str, docnull.DocNull | None] = ("", None)
        self._chunk_langs: tuple[int, dict[int, str], LangStats | None] = (-1, {}, None)

    def dense_index(self) -> DenseIndex | QuantizedIndex:
        """The store's memory-mapped vector file (else its matrix in memory), opened lazily at the first
        search and again when the store has changed since."""
        gen = self.store.generation()
        if self._dense is None or gen != self._generation:
            vf = self.store.vector_file()
            self._dense = (QuantizedIndex(vf, self.store.exact_vectors) if vf is not None
                           else DenseIndex(self.store.dense_matrix()))
            self._generation = gen
        return self._dense

    def gate_settings(self) -> GateSettings:
        """The thresholds calibrated for this index (by itself or `kotae calibrate`), else the settings'; the
        settings' when they were set explicitly (`fixed_gate`)."""
        stored = None if self.fixed_gate else self.store.meta("gate")
        return GateSettings(**json.loads(stored)) if stored else self.settings.gate

    def search(self, query: str, *, mode: str | None = None, top_k: int | None = None,
               flt: Filter | None = None, expansion: str | np.ndarray | None = None,
               vector: np.ndarray | None = None, exclude: frozenset[str] = frozenset()) -> SearchResult:
        """Search (`vector`: the query's embedding, when the caller already has it). `expansion` (e.g. a HyDE
        passage) is embedded as a passage and added to the query vector for the dense ranking only (a vector is added as given: pseudo-relevance feedback); the hits'
        `similarity` is then to that combined vector. The gate's similarity and margin, and the keyword
        search, always see the question as asked. `exclude`: document ids searched as if they were not indexed
        (the gate's margin is still taken over the whole index, as for an unfiltered question)."""
        s = self.settings
        mode = mode or s.mode
        top_k = top_k or s.top_k
        if mode not in MODES:
            from kotae.errors import ConfigError

            raise ConfigError(f"unknown search mode {mode!r}; choose one of {', '.join(MODES)}")
        t: dict[str, float] = {}
        t0 = time.perf_counter()
        filtered = not (flt is None or flt.empty)
        doc_ids = self.store.matching_documents(flt) if filtered and flt is not None else None
        if exclude:  # the self-calibration's questions whose own document is left out
            doc_ids = (doc_ids if doc_ids is not None else self.store.matching_documents(Filter())) - exclude
        n = max(s.candidates, top_k)

        # The query is embedded in every mode: the gate needs the top similarity.
        t1 = time.perf_counter()
        qvec = self.embedder.query(query) if vector is None else vector
        t["embed"] = _ms(t1)
        qtokens = analyze(query)
        other = self.translated(query, qtokens)
        tvec = None
        if (s.translation_dense > 0 and other and expansion is None  # the translated words, embedded as a query
                and self.translation_source(query) in lexicon.DENSE_SOURCES):
            t1 = time.perf_counter()
            tvec = self.embedder.query(" ".join(other))
            t["embed_translation"] = _ms(t1)
        t1 = time.perf_counter()
        # Keyword search runs in every mode too: its ranks are reported and feed the gate.
        keyword = self._keyword_search(qtokens, n, doc_ids, query, other)
        t["keyword"] = _ms(t1)
        terms = list(dict.fromkeys(qtokens))
        df, n_chunks = self.store.document_frequencies(terms) if terms else ({}, 0)
        t1 = time.perf_counter()
        dense, margin = self._dense_search(qvec, n, doc_ids)
        gate_top = dense[0][1] if dense else 0.0
        gate_dense = dense[:DOC_NULL_CANDIDATES]
        gate_margin = (self._language_margin(query, qvec, dense, margin) if LANGUAGE_MARGIN and not filtered
                       else margin)
        if tvec is not None:
            dense = self._translated_dense(query, qvec, tvec, dense, n, doc_ids)
        if s.low_info_penalty > 0:
            dense = demote(dense, self.information([r for r, _ in dense]), s.low_info_penalty)
        if isinstance(expansion, np.ndarray) or expansion:
            t2 = time.perf_counter()
            evec = expansion if isinstance(expansion, np.ndarray) else self.embedder.passages([expansion])[0]
            t["embed_expansion"] = _ms(t2)
            dvec = qvec + evec
            dense, _ = self._dense_search((dvec / np.linalg.norm(dvec)).astype(np.float32), n, doc_ids)
            if s.low_info_penalty > 0:
                dense = demote(dense, self.information([r for r, _ in dense]), s.low_info_penalty)
        sim = dict(dense)  # the similarities hits report (and other-language slots weigh)
        ranked_dense = self._without_hubs(query, dense) if s.hubness > 0 and mode != "keyword" else dense
        t["dense"] = _ms(t1) - t.get("embed_expansion", 0.0)
        hybrid = mode in ("hybrid", "hybrid+rerank")
        adaptive = hybrid and s.adaptive_keyword_weight
        cov = self.keyword_coverage(terms, keyword, df, n_chunks, query) if adaptive else 0.0
        bm = dict(keyword)
        dense_rank = {r: i for i, (r, _) in enumerate(ranked_dense, 1)}
        kw_rank = {r: i for i, (r, _) in enumerate(keyword, 1)}
        t1 = time.perf_counter()
        ranked = fuse(Arms(ranked_dense, keyword, cov, margin), s, "hybrid" if mode == "hybrid+rerank" else mode)
        window = [r for r, _ in ranked[: 2 * max(top_k, s.rerank_candidates)]]
        if s.dates_first and (when := dates.asked(query)):
            ranked = dates.first(ranked, self.dated(window, when))
        if s.navigation_last and not asks_page(query):
            ranked = behind(ranked, self.navigation(window))
        t["fusion"] = _ms(t1)
        notices: tuple[str, ...] = ()
        rescored: dict[int, float] = {}
        reranker = self.reranker if mode == "hybrid+rerank" else None
        pool = s.rerank_candidates if reranker else 0
        chunks = self.store.chunks([r for r, _ in ranked[: max(top_k, pool)]])
        if reranker is not None:
            t1 = time.perf_counter()
            ranked, rescored = self._rerank(reranker, query, ranked, chunks)
            t["rerank"] = _ms(t1)
        elif mode == "hybrid+rerank":
            notices = (NO_RERANKER,)
        if s.other_language_slots > 0 and mode in ("hybrid", "hybrid+rerank"):
            ranked = self._other_language(query, qvec, ranked, dense)
            chunks.update(self.store.chunks([r for r, _ in ranked[:top_k] if r not in chunks]))
        if s.section_neighbours > 0:
            ranked = self._with_neighbours(ranked, chunks, s.section_neighbours)
            chunks.update(self.store.chunks([r for r, _ in ranked[:top_k] if r not in chunks]))
        top = ranked[:top_k]
        hits = [
            Hit(chunk=chunks[r], similarity=sim.get(r), bm25=bm.get(r),
                fused=score if mode in ("hybrid", "hybrid+rerank") else None, rerank=rescored.get(r),
                dense_rank=dense_rank.get(r), keyword_rank=kw_rank.get(r))
            for r, score in top if r in chunks
        ]
        t1 = time.perf_counter()
        lifted = self._lifted(query, gate_dense, chunks)
        gate = self._gate(query, qtokens, df, n_chunks, gate_top, gate_margin, hits, lifted)
        t["gate"] = _ms(t1)
        t["search"] = _ms(t0) - t.get("embed", 0.0) - t.get("embed_expansion", 0.0) - t.get("embed_translation", 0.0)
        return SearchResult(query, hits, gate, t, qvec, notices, tvec)

    def arms(self, query: str, n: int, doc_ids: set[str] | None = None) -> Arms:
        """The question's two arms as `search` fuses them (dense without an expansion or penalty), for
        benchmarks that try fusion rules over the same lists."""
        dense, margin = self._dense_search(self.embedder.query(query), n, doc_ids)
        qtokens = analyze(query)
        keyword = self._keyword_search(qtokens, n, doc_ids, query)
        terms = list(dict.fromkeys(qtokens))
        df, n_chunks = self.store.document_frequencies(terms) if terms else ({}, 0)
        return Arms(dense, keyword, self.keyword_coverage(terms, keyword, df, n_chunks, query), margin)

    def _keyword_search(self, qtokens: list[str], n: int, doc_ids: set[str] | None,
                        query: str = "", translated: list[str] | None = None) -> list[tuple[int, float]]:
        """BM25 of the question's tokens and, with synonyms on, its synonym expansion; with translations on,
        plus its words in the corpus' other language at translation_weight."""
        s = self.settings
        extra = self.expansion(qtokens) if s.synonyms else []
        # a group term is matched besides the word itself, so a chunk holding the question's own word still
        # ranks first at full weight; phrases (an older index) count half
        weight = s.synonym_weight * (1.0 if self.store.meta("synonym_terms") == "1" else 0.5)
        if extra and weight == 1.0:  # BM25 adds over terms: one search is the same sum, at half the cost
            keyword = self.store.keyword_search(qtokens + extra, n, doc_ids)
        else:
            keyword = self.store.keyword_search(qtokens, n, doc_ids)
            if extra:
                keyword = add_weighted(keyword, self.store.keyword_search(extra, n, doc_ids), weight, n)
        other = self.translated(query, qtokens) if translated is None else translated
        if other:
            w = s.translation_weight * lexicon.SOURCE_WEIGHT.get(self.translation_source(query) or "", 1.0)
            keyword = add_weighted(keyword, self.store.keyword_search(other, n, doc_ids), w, n)
        return keyword

    def translation_source(self, query: str) -> str | None:
        """The question's language when its words are to be searched in the other language too: an English or
        Japanese question over a corpus that holds chunks in the other language alone (a Japanese chunk with some
        English words is "mixed": JSQuAD's Wikipedia paragraphs translate nothing). None: no translation."""
        if self.settings.translations <= 0 or not query:
            return None
        lang = question_lang(query)
        if lang not in lexicon.SOURCES:
            return None
        return lang if self.lang_counts().get("en" if lang == "ja" else "ja", 0) > 0 else None

    def translated(self, query: str, qtokens: list[str]) -> list[str]:
        """The question's words in the corpus' other language (`lexicon.translations`): for each of its phrases
        the first translations some chunk holds, none the question holds already."""
        source = self.translation_source(query)
        if source is None:
            return []
        own = set(qtokens)
        lex = lexicon.on_demand()
        held = None
        if lexicon.HELD_ONLY:
            df, _ = self.store.document_frequencies(lexicon.candidates(qtokens, source, lex))
            held = lambda p: all(df.get(t, 0) > 0 for t in p)
        found = lexicon.translations(qtokens, source, lex, self.settings.translations, held)
        return [t for t in found if t not in own]

    def _other_language(self, query: str, qvec: np.ndarray, ranked: list[tuple[int, float]],
                        dense: list[tuple[int, float]]) -> list[tuple[int, float]]:
        """`langslots.place_other` with this store's chunk languages and their vector statistics."""
        langs, stats = self.language_stats()
        if stats is None:
            return ranked
        s = self.settings
        return place_other(ranked, dense, langs, question_lang(query), qvec, stats, s.other_language_slots,
                           s.other_language_rank)

    def language_stats(self) -> tuple[dict[int, str], LangStats | None]:
        """rowid → chunk language and the per-language vector statistics (None: the corpus is not Japanese and
        English, or the store does not tell); computed once per store generation."""
        gen = self.store.generation()
        if self._chunk_langs[0] != gen and not self._maybe_bilingual():
            self._chunk_langs = (gen, {}, None)  # a monolingual corpus: no need to read every chunk's language
        if self._chunk_langs[0] != gen:
            langs = self.store.chunk_languages()
            stats = None
            if {"ja", "en"} <= set(langs.values()):
                rowids, vectors = self._stat_vectors(langs)
                stats = LangStats.from_vectors(vectors, [langs.get(int(r), "") for r in rowids])
                stats = stats if stats.bilingual() else None
            self._chunk_langs = (gen, langs, stats)
        return self._chunk_langs[1], self._chunk_langs[2]

    def _maybe_bilingual(self) -> bool:
        """False when the language counts the gate's calibration recorded hold no Japanese or no English chunk."""
        stored = self.store.meta("corpus_langs")
        if not stored:
            return True
        counts = json.loads(stored)
        mixed = counts.get("mixed", 0)
        return counts.get("ja", 0) + mixed > 0 and counts.get("en", 0) + mixed > 0

    def _stat_vectors(self, langs: dict[int, str]) -> tuple[np.ndarray, np.ndarray]:
        """(rowids, vectors) of at most STAT_SAMPLE evenly spaced chunks per language (a mean and a covariance of
        384 dimensions need no more): read by rowid where the store has a vector file, else from the matrix."""
        picked: list[int] = []
        for la in ("ja", "en"):
            rows = sorted(r for r, x in langs.items() if x == la)
            step = max(1, len(rows) // STAT_SAMPLE)
            picked += rows[::step][:STAT_SAMPLE]
        if self.store.vector_file() is not None:
            return self.store.exact_vectors(np.array(sorted(picked), np.int64))
        m = self.store.dense_matrix()
        keep = np.isin(m.rowids, np.array(picked, np.int64))
        return m.rowids[keep], m.vectors[keep]

    def information(self, rowids: list[int]) -> dict[int, float]:
        """`lowinfo.information` of these chunks (kept until the store changes)."""
        found = self._info.of(self.store, rowids)
        return {r: found.get(r, 1.0) for r in rowids}

    def navigation(self, rowids: list[int]) -> set[int]:
        """Which of these chunks are a table of contents or an index (`lowinfo.navigation`), kept until the
        store changes."""
        return {r for r, nav in self._nav.of(self.store, rowids).items() if nav}

    def dated(self, rowids: list[int], when: frozenset[str]) -> set[int]:
        """Which of these chunks name every date of `when` (`dates.asked`) in their text, heading or file name."""
        return {r for r, named in self._dates.of(self.store, rowids).items() if dates.holds(named, when)}

    def _with_neighbours(self, ranked: list[tuple[int, float]], chunks: dict[int, Chunk],
                         leaders: int) -> list[tuple[int, float]]:
        """The fused ranking with the same-section chunk on the adjacent page behind each of the first
        `leaders` hits (a neighbour takes its leader's score)."""
        lead = [r for r, _ in ranked[:leaders] if r in chunks]
        near = self.store.chunks([x for r in lead for x in (r - 1, r + 1) if x not in chunks])
        pool = {**{r: chunks[r] for r in lead}, **near, **{r: c for r, c in chunks.items()}}
        order = with_neighbours([r for r, _ in ranked], pool, leaders)
        score = dict(ranked)
        out, last = [], 0.0
        for r in order:
            last = score.get(r, last)
            out.append((r, last))
        chunks.update(near)
        return out

    def _language_margin(self, query: str, qvec: np.ndarray, dense: list[tuple[int, float]], margin: float) -> float:
        """The gate's margin over a corpus in Japanese and English: the top similarity over the question's mean
        similarity to the chunks of the top chunk's language (`LangStats`; a chunk of both languages counts
        in the question's), not to all chunks. e5 rates a question's own language higher, so over English
        documents with a few Japanese pages every Japanese question's best chunk stood far above the (English)
        mean, answerable or not. `margin` elsewhere."""
        if not dense:
            return margin
        langs, stats = self.language_stats()
        lang = langs.get(dense[0][0]) if stats is not None else None
        if lang == "mixed":
            lang = "en" if question_lang(query) == "en" else "ja"
        if stats is None or lang is None or lang not in stats.mean:
            return margin
        q = np.asarray(qvec, dtype=np.float64)
        own = dense[0][1] - float(q @ stats.mean[lang])
        if not OTHER_LANGUAGE_MARGIN:
            return own
        # a question about a document in the other language: that language's best chunk may stand out from its
        # own crowd while the question's language holds the higher (but ordinary) similarities
        best = own
        for other, mean in stats.mean.items():
            if other == lang:
                continue
            sims = [sim for r, sim in dense if langs.get(r) == other]
            if sims:
                best = max(best, sims[0] - float(q @ mean))
        return best

    def _without_hubs(self, query: str, dense: list[tuple[int, float]]) -> list[tuple[int, float]]:
        """The dense candidates re-scored without their hubness (`hubness.corrected`, `search.hubness`);
        unchanged where the index keeps no null questions for this model or the store cannot read vectors."""
        if not dense:
            return dense
        try:
            rowids, vectors = self.store.exact_vectors(np.array([r for r, _ in dense], np.int64))
        except NotImplementedError:
            return dense
        langs, _ = self.language_stats()  # relative to each chunk's language where the corpus holds two
        values = self.hubness_of(query, vectors, [langs.get(int(r), "") for r in rowids])
        if values is None:
            return dense
        return hubness.corrected(dense, dict(zip(rowids.tolist(), values.tolist())), self.settings.hubness)

    def hubness_of(self, query: str, vectors: np.ndarray, langs: Sequence[str]) -> np.ndarray | None:
        """How near the null questions of the question's language come to each of `vectors` (passages of
        languages `langs`), relative to their language's chunks; None where the index keeps none."""
        kept, lang = self._kept_null(), _null_lang(query)
        null = kept.by_lang.get(lang) if kept is not None else None
        if kept is None or null is None:
            return None
        return kept.relative(lang, hubness.penalties(null, vectors), langs)

    def null_vectors(self, lang: str) -> np.ndarray | None:
        """The bundled off-topic questions' vectors in `lang` ("ja" or "en") that the index keeps (None: none)."""
        kept = self._kept_null()
        return None if kept is None else kept.by_lang.get(lang)

    def _kept_null(self) -> hubness.NullVectors | None:
        """What the index's self-calibration kept of the bundled off-topic questions (`hubness.NullVectors`), when
        this embedder made them; read again when their stamp changes."""
        stamp = self.store.meta(hubness.STAMP) or ""
        if self._null[0] != stamp:
            stored = self.store.meta(hubness.META) if stamp else None
            try:
                null = hubness.NullVectors.from_json(stored) if stored else None
            except (ValueError, KeyError, TypeError):  # damaged: search without it until the next calibration
                null = None
            self._null = (stamp, null if null is not None and null.model == self.embedder.model_id else None)
        return self._null[1]

    def _translated_dense(self, query: str, qvec: np.ndarray, tvec: np.ndarray, dense: list[tuple[int, float]],
                          n: int, doc_ids: set[str] | None) -> list[tuple[int, float]]:
        """The dense ranking with the question's translated words. The query vector plus `translation_dense` ×
        their embedding scores the chunks in the corpus' other language (the question's own vector the rest);
        e5 rates a question's own language higher, and the translation lifts the other language as a whole, so
        MATCH_SHARE of that lift is taken back: each such score moves that far towards the mean and spread the
        question's own vector has over that language's chunks (`langslots.take_back`)."""
        mixed = qvec + self.settings.translation_dense * tvec
        mixed = (mixed / np.linalg.norm(mixed)).astype(np.float32)
        both, _ = self._dense_search(mixed, n, doc_ids)
        langs, stats = self.language_stats()
        target = "ja" if question_lang(query) == "en" else "en"
        return take_back(dense, both, langs, target, qvec, mixed, stats, MATCH_SHARE)[:n]

    def _dense_search(self, vec: np.ndarray, n: int, doc_ids: set[str] | None) -> tuple[list[tuple[int, float]], float]:
        if self.store.searches_vectors:
            return self.store.dense_search(vec, n, doc_ids)
        return self.dense_index().search_with_margin(vec, n, doc_ids)

    def expansion(self, qtokens: list[str]) -> list[str]:
        """What the question's synonym groups add to its keyword search: the group terms, when the index holds
        them (index-side synonyms), else the other entries of the groups as phrases."""
        if self.store.meta("synonym_terms") == "1":
            return group_terms(qtokens, on_demand(), query=True)
        return expansion_phrases(qtokens, on_demand())

    def keyword_coverage(self, terms: list[str], keyword: list[tuple[int, float]], df: dict[str, int],
                         n_chunks: int, query: str = "") -> float:
        """How much of the question's rare words the best three keyword hits hold (scales the keyword weight);
        a word a hit holds as its synonym, or as its translation (translations on), is held (the gate's coverage
        counts translations too)."""
        top = self.store.chunks([r for r, _ in keyword[:3]])
        passages = [analyze(c.text) for c in top.values()]
        if self.settings.synonyms and COVERAGE_SYNONYMS:  # a word held as its synonym is covered
            passages = [p + held_through_groups(terms, p, on_demand()) for p in passages]
        return coverage(terms, self._with_translations(query, terms, passages, FUSION_COVERAGE_SOURCES), df, n_chunks)

    def _with_translations(self, query: str, terms: list[str], passages: list[list[str]],
                           sources: tuple[str, ...] = lexicon.COVERAGE_SOURCES) -> list[list[str]]:
        """Each passage's tokens plus the question's words it holds as their translation (translations on), so
        coverage counts 賃金 for the wage of an English question. A Japanese question's translated nouns do not
        count: 旅行 held as "travel" by a travel policy made 社員旅行の行き先は？ look answered."""
        source = self.translation_source(query)
        if source not in sources:
            return passages
        lex, per = lexicon.on_demand(), self.settings.translations
        return [p + lexicon.held_through_translation(terms, p, source, lex, per) for p in passages]

    def _rerank(self, reranker: Reranker, query: str, ranked: list[tuple[int, float]],
                chunks: dict[int, Chunk]) -> tuple[list[tuple[int, float]], dict[int, float]]:
        """Rescore the top fused hits; equal scores keep their fused order, hits past the pool follow."""
        n = self.settings.rerank_candidates
        pool = [(r, f) for r, f in ranked[:n] if r in chunks]
        scores = reranker.score(query, [chunks[r].text for r, _ in pool])
        rescored = {r: float(x) for (r, _), x in zip(pool, scores, strict=True)}
        order = sorted(pool, key=lambda p: -rescored[p[0]])
        blend, k = self.settings.rerank_blend, self.settings.rrf_k
        if blend > 0:  # the reranker as one more arm: its rank and the fused rank, by reciprocal rank
            fused_rank = {r: i for i, (r, _) in enumerate(pool)}
            mixed = {r: 1 / (k + i) + blend / (k + fused_rank[r]) for i, (r, _) in enumerate(order)}
            order = sorted(pool, key=lambda p: -mixed[p[0]])
        return order + ranked[n:], rescored

    def _lifted(self, query: str, dense: list[tuple[int, float]], chunks: dict[int, Chunk]) -> float | None:
        """The gate's similarity evidence over each document's null level (`kotae.search.docnull`): the best of
        the dense candidates' similarities (`dense`: the first DOC_NULL_CANDIDATES) less half their document's
        level; None where the index keeps no levels for this model, or where the settings set the thresholds (the
        top similarity then decides). `chunks`: those already read (the hits); the others are read here."""
        null = None if self.fixed_gate else self._doc_null()  # thresholds you set are on the top similarity
        if null is None or not dense:
            return None
        known = {**chunks, **self.store.chunks([r for r, _ in dense if r not in chunks])}
        if GATE_FIGURE_SHARE is not None:  # a block of figures is no evidence of meaning
            known = {r: c for r, c in known.items() if figure_share(c.text) < GATE_FIGURE_SHARE}
            if not known:
                return NO_EVIDENCE
        return docnull.lifted([(known[r].doc_id, sim) for r, sim in dense if r in known], null, _null_lang(query))

    def _doc_null(self) -> docnull.DocNull | None:
        """The documents' null levels the index's self-calibration measured, for this embedder (read again when
        the calibration is redone)."""
        stamp = self.store.meta(docnull.STAMP) or ""
        if self._levels[0] != stamp:
            stored = self.store.meta(docnull.META) if stamp else None
            try:
                null = docnull.DocNull.from_json(stored) if stored else None
            except (ValueError, KeyError, TypeError):  # damaged: one threshold until the next calibration
                null = None
            self._levels = (stamp, null if null is not None and null.model == self.embedder.model_id else None)
        return self._levels[1]

    def _gate(self, query: str, qtokens: list[str], df: dict[str, int], n_chunks: int, top_sim: float,
              margin: float, hits: list[Hit], lifted: float | None = None) -> GateDecision:
        terms = list(dict.fromkeys(qtokens))
        lang = question_lang(query)
        passages = [analyze(h.chunk.text) for h in hits[:3]]
        if self.settings.synonyms and GATE_COVERAGE_SYNONYMS:
            # ボーナス covered by a passage that says 賞与; not across languages (the dictionary's English members:
            # 旅行 held as "travel" by an English travel policy would make 社員旅行の行き先は？ look answered)
            passages = [p + held_through_groups(terms, p, on_demand()) if h.chunk.lang in (lang, "mixed") else p
                        for p, h in zip(passages, hits[:3], strict=True)]
        # the closest passage in the other language: the question's words it holds as their translation count too
        # (タイプライター held as "typewriter"), as they do for English questions whatever passage is closest
        other_top = GATE_TRANSLATIONS_OTHER_TOP and bool(hits) and lang in ("ja", "en") and hits[0].chunk.lang not in (
            lang, "mixed")
        sources = ("en", "ja") if other_top else lexicon.COVERAGE_SOURCES
        cov = coverage(terms, self._with_translations(query, terms, passages, sources), df, n_chunks)
        share = self.lang_share(lang)
        near = passages if ABSENT_TRANSLATED_NEAR else None
        translated = self._held_in_other_language(lang, share, qtokens, df, near) if ABSENT_TRANSLATED else None
        if translated is not None:  # the words were looked for in both languages: the whole corpus
            share = self.lang_share("ja") + self.lang_share("en") - self._mixed_share()
        romaji = self._romanised_tokens(query)
        may_hold = (translated or frozenset()) | {i for i, t in enumerate(qtokens) if t in romaji}
        df = self._with_frequencies(df, qtokens)  # a word of a file's name counts as held
        spans = self._synonym_spans(qtokens)
        absent, content = absent_share(qtokens, df, spans, may_hold)
        missing = self.absent_names(query, df) if self.settings.absent_names else []
        decision = decide(top_sim, margin, cov, self.gate_settings(), absent=absent, lang_share=share, lang=lang,
                          names=missing, lifted=lifted, content=content)
        decision = replace(decision, absent=absent, content=content, lang_share=share, lifted=lifted)
        if decision.found:
            return decision
        pairs = words(query)
        df_all = self._with_frequencies(df, [t for _, toks in pairs for t in toks])
        # a word held through its synonym (ボーナス where the rules say 賞与) is not named as absent
        held = frozenset(qtokens[i] for a, b, present in spans if present for i in range(a, b))
        if translated is not None and near is not None:  # named absent only where no document holds it at all
            may_hold |= self._held_in_other_language(lang, self.lang_share(lang), qtokens, df) or frozenset()
        if may_hold:  # what the other language holds (or may hold) is not named as absent
            df_all = {**df_all, **{qtokens[i]: max(1, df_all.get(qtokens[i], 0)) for i in may_hold}}
        terms = absent_terms(pairs, df_all, limit=8, held=held)  # the words that name something first: "FIFA" first
        named = [t for t in terms if any(n in t for n in missing)]
        # a passage in the other language among the closest: asking in that language may find what this did not
        across = [h.chunk for h in hits[:5] if lang in ("ja", "en") and h.chunk.lang in ("ja", "en")
                  and h.chunk.lang != lang]
        other = os.path.basename(across[0].file) if across else None
        plain = explain([*named, *[t for t in terms if t not in named]][:4], cov, lang, other)
        return replace(decision, explanation=plain)

    def _held_in_other_language(self, lang: str, share: float, qtokens: list[str], df: dict[str, int],
                                near: Sequence[Sequence[str]] | None = None) -> frozenset[int] | None:
        """Where the question's language is a small part of a corpus in both languages (at least
        `MIN_NAME_SHARE`, under `MIN_LANG_SHARE`), the positions of its tokens the corpus holds in the other
        language (a lexicon translation with a document frequency) or that the lexicon does not know (ハーバード
        may be written Harvard there): the rest are absent from every document in both languages. With `near` (the
        tokens of the closest passages), a translation counts only where one of those passages holds it. None: the
        absent share is not computed across languages here."""
        source = _lexicon_side(lang)
        if source is None or not MIN_NAME_SHARE <= share < MIN_LANG_SHARE or not self._holds_other(source):
            return None
        lex = lexicon.on_demand()
        spans = lexicon.matches(qtokens, lex.side(source))
        df_all = self._with_frequencies(df, [t for _, _, found in spans for p in found for t in p])
        known = {i for a, b, _ in spans for i in range(a, b)}
        held = {i for i in range(len(qtokens)) if i not in known}
        closest = [set(p) for p in near] if near is not None else None

        def holds(phrase: Sequence[str]) -> bool:
            if closest is None:
                return all(df_all.get(t, 0) > 0 for t in phrase)
            return any(set(phrase) <= c for c in closest)

        for a, b, found in spans:
            if any(map(holds, found)):
                held.update(range(a, b))
        return frozenset(held)

    def _romanised_tokens(self, query: str) -> frozenset[str]:
        """The search tokens of an English question's names that read as romanised Japanese
        (`lexicon.romanised_japanese`), where the corpus holds Japanese: words the documents may write in kanji,
        so neither absent nor named as absent (`ROMANISED_NAMES`)."""
        if not ROMANISED_NAMES or _lexicon_side(question_lang(query)) != "en" or not self._holds_other("en"):
            return frozenset()
        return frozenset(t for w, toks in names(query) if lexicon.romanised_japanese(w) for t in toks)

    def _holds_other(self, lang: str) -> bool:
        """Whether the corpus holds chunks in the other language than `lang` ("ja" or "en")."""
        return self.lang_counts().get("ja" if lang == "en" else "en", 0) > 0

    def _mixed_share(self) -> float:
        counts = self.lang_counts()
        total = sum(counts.values())
        return counts.get("mixed", 0) / total if total else 0.0

    def absent_names(self, query: str, df: dict[str, int]) -> list[str]:
        """The names the question mentions (`analyze.names`) that no chunk holds, even through a synonym group
        or, where the corpus also holds the other language, a translation (the bundled lexicon, both ways:
        France ↔ フランス). Over a corpus mostly in the other language a name the lexicon does not know cannot
        be told absent (ハーバード may be written Harvard there), and no names are looked for where the corpus
        barely holds the question's language (`MIN_NAME_SHARE`)."""
        lang = question_lang(query)
        source = _lexicon_side(lang)
        share = self.lang_share(source or lang)
        found = names(query) if source and share >= MIN_NAME_SHARE else []
        if not found:
            return []
        lex = lexicon.on_demand() if source and self._holds_other(source) else None
        tokens = [t for _, toks in found for t in toks]
        extra = lexicon.candidates(tokens, source, lex) if lex is not None and source else []
        df_all = self._with_frequencies(df, [*tokens, *extra])

        romaji = self._romanised_tokens(query)

        def held(run: Sequence[str]) -> bool:
            if any(p for _, _, p in self._synonym_spans(list(run))):
                return True
            if lex is None or source is None:
                return False
            other = lexicon.candidates(run, source, lex)
            if not other:  # unknown to the lexicon: Harvard may be ハーバード there, Miyazawa Kenji 宮沢賢治
                return share < MIN_LANG_SHARE or all(t in romaji for t in run)
            return any(df_all.get(t, 0) > 0 for t in other)

        return absent_names(found, df_all, held)

    def _with_frequencies(self, df: dict[str, int], tokens: list[str]) -> dict[str, int]:
        """`df` with the document frequencies of `tokens` it lacks; a token of a document's file name
        (`file_tokens`) counts as held at least once: the documents name what their files are named."""
        extra = [t for t in dict.fromkeys(tokens) if t not in df]
        out = {**df, **self.store.document_frequencies(extra)[0]} if extra else df
        files = self.file_tokens() if FILE_NAMES else frozenset()
        named = {t: 1 for t in tokens if t in files and not out.get(t, 0)}
        return {**out, **named} if named else out

    def file_tokens(self) -> frozenset[str]:
        """The search tokens of the indexed files' names (`analyze.file_tokens`), read once per generation."""
        gen = self.store.generation()
        if self._files[0] != gen:
            self._files = (gen, file_tokens(d.file for d in self.store.documents()))
        return self._files[1]

    def _synonym_spans(self, qtokens: list[str]) -> list[tuple[int, int, bool]]:
        """(start, end, its group occurs in the corpus) of the question's synonym entries, the one-token entries
        inside longer ones included (給与 and 天引き of 給与天引き: the documents may hold either word as a synonym),
        when the index holds group terms."""
        if not self.settings.synonyms or self.store.meta("synonym_terms") != "1":
            return []
        found = matches(qtokens, on_demand(), query=True, every=SYNONYMS_INSIDE)
        if not found:
            return []
        df, _ = self.store.document_frequencies(list(dict.fromkeys(f"{PREFIX}{g}" for _, _, g in found)))
        return [(a, b, df.get(f"{PREFIX}{g}", 0) > 0) for a, b, g in found]

    def lang_counts(self) -> dict[str, int]:
        """Chunks per language (`detect_lang`: ja, en, mixed, other) as the gate's calibration recorded them
        (`corpus_langs`); empty when none were recorded."""
        gen = self.store.generation()
        if self._langs[0] != gen:
            stored = self.store.meta("corpus_langs")
            self._langs = (gen, json.loads(stored) if stored else {})
        return self._langs[1]

    def lang_share(self, lang: str) -> float:
        """The share of the corpus' chunks in `lang` (mixed chunks count for both), from the counts the gate's
        calibration recorded (`corpus_langs`); 1.0 when none were recorded."""
        counts = self.lang_counts()
        total = sum(counts.values())
        if not total or lang not in ("ja", "en"):
            return 1.0
        return (counts.get(lang, 0) + counts.get("mixed", 0)) / total


# search.translation_dense (`Searcher._translated_dense`): bench/translated_dense.py, chosen on the fit halves'
# pooled nDCG@10 (off 0.801; share of the lift taken back 0 → 0.808, 0.5 → 0.816, 1 → 0.806). Measured worse
# and removed (bench/README.md): the mixed vector scoring every chunk, the lift decided by z-scores, no lift
# when the question's own-language keyword hits reach the gate's coverage.
MATCH_SHARE = 0.5
# The dense candidates whose documents' null levels the gate's similarity evidence weighs (`Searcher._lifted`).
DOC_NULL_CANDIDATES = 10
# …leaving out those whose words are this share of figures or more (`lowinfo.figure_share`): e5 places a block of
# measurements near any question, so a SciFact claim over a CSV of numbers passed on similarity alone; a question
# about such a table passes on its keywords (coverage) or the margin (bench/refusal.py, "figures as similarity
# evidence"). None: every candidate counts.
GATE_FIGURE_SHARE: float | None = 0.3
NO_EVIDENCE = -1.0  # the similarity evidence when every candidate is a block of figures
# Names are looked for when at least this share of the corpus' chunks is in the question's language (a
# Japanese question over English documents with a few Japanese pages still names what they lack).
MIN_NAME_SHARE = 0.02
# The absent-word rule over a corpus mostly in the other language: the question's words looked for in both
# languages through the lexicon (`Searcher._held_in_other_language`). bench/refusal.py has a column with it off
# (neutral on its four corpora; it refuses 光合成の仕組みを教えて over samples + i1040nr.pdf).
ABSENT_TRANSLATED = True
# …and a word counts as held in the other language only where one of the closest passages (the gate's three) holds
# its translation: over a corpus mostly in English nearly every Japanese noun's translation occurs somewhere
ABSENT_TRANSLATED_NEAR = True
# An English question's name that reads as romanised Japanese (Miyazawa Kenji) is not told absent where the corpus
# holds Japanese, by the names check (when the lexicon does not know it) nor the absent-word rule: its documents
# may write it 宮沢賢治 (bench/refusal.py column).
ROMANISED_NAMES = True
# The words of the indexed files' names count as held by the documents (`Searcher._with_frequencies`): vodafone.xlsx
# never writes "Vodafone", yet "the Vodafone guidance rates" names it (bench/refusal.py column).
FILE_NAMES = True
# The one-token synonym entries inside a longer entry count for what the documents hold (給与 and 天引き of
# 給与天引き, whose own group no document holds): bench/refusal.py --experiments 'synonyms inside longer entries'.
SYNONYMS_INSIDE = True
# The gate's margin within the top chunk's language (`Searcher._language_margin`). bench/refusal.py has a column
# with it off: samples + real files off-topic JSQuAD 0.61 → 0.73, fit false refusals equal, held-out answerable
# refused 11 → 12 of 134 (golden-ja +1, users −1, users-real +1).
LANGUAGE_MARGIN = True
# ... or the larger of that and the best other-language chunk's margin within its language (an experiment in
# bench/refusal.py: questions about a document in the other language are refused most often)
OTHER_LANGUAGE_MARGIN = False


def _null_lang(text: str) -> str:
    """The language whose null questions measure hubness for `text`: Japanese (mixed too, as the gate) or English."""
    return "ja" if question_lang(text) in ("ja", "mixed") else "en"


def _lexicon_side(lang: str) -> str | None:
    """The lexicon side a question in `lang` (`question_lang`) is read with: "en", "ja" (mixed too) or None."""
    return "en" if lang == "en" else "ja" if lang in ("ja", "mixed") else None


def _ms(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000.0
