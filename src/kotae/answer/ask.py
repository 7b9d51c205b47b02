"""`ask`: search, gate, then an answer whose every sentence carries its citation.

Extractive (the offline default): the passages' own best sentences. With an LLM: the model's answer, its
citations verified in code (`generate`); whenever the model fails, the extractive answer with a notice.
"""
from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from dataclasses import replace

import numpy as np

from kotae.answer import checks, complete, extractive
from kotae.answer.lists import CONTEXT_CHARS, complete_lists
from kotae.answer.llm import LLM, LLMError
from kotae.answer.prompt import dont_know, hyde_messages
from kotae.chunking import detect_lang, question_lang
from kotae.embed.base import Embedder
from kotae.search.analyze import analyze, names, words
from kotae.search.gate import ASKING, absent_terms
from kotae.search.searcher import Searcher, SearchResult
from kotae.search.synonyms import matches, on_demand
from kotae.store.base import Filter
from kotae.types import Answer, Hit, Source

__all__ = ["Event", "ask", "ask_stream", "dont_know"]

# The sentence choice credits synonyms from Sudachi's groups only: kotae's broader workplace groups (手当 ↔ 支給,
# 有休 ↔ 年次有給休暇) widen retrieval, but in the sentence choice they favour a sentence that restates the
# question's term over the one that answers it (bench/workplace_synonyms.py, fit halves).
SENTENCE_WORKPLACE = False
# A sentence in the corpus' other language is scored against the question's vector plus its translated words', as
# the dense search ranks its chunk (extractive.translated_cosine): bench/answers.py --compare, fit halves.
SENTENCE_TRANSLATED = True
ROW_LANGUAGE = True  # a table row's language is its values' (`_values`): bench/answers.py --constant …ROW_LANGUAGE=false
# A line that is no sentence (a chart's axis ticks, a table of contents' dot leaders: extractive.noise) is quoted
# only when nothing else scores near it: bench/answers.py --compare noise-lines.
NOISE_LINES = True
# A CSV's or spreadsheet's rows are records, each about its own thing (an expense code, a product): a question that
# asks for one thing is answered from the row that answers it, not from the whole chunk of rows; a question asking
# for several things, and a PDF or DOCX table (a statement's rows share their columns), still get the chunk.
RECORD_ROWS = True
RECORD_FILES = (".csv", ".tsv", ".xlsx", ".xlsm")
# a sentence from a passage that lacks a name the question mentions, where another passage holds it, scores this much
# less ("Intel's R&D expense in the quarter ended April 1, 2023" and Apple's statement of that date):
# bench/reading.py --set sec10q --constant kotae.answer.ask.NAME_PENALTY=0
NAME_PENALTY = 0.05
# A sentence read from the page beyond its chunk (a list's items, a table's rows) cites its own chunk when that is
# among the hits (`_cited_where_written`), so the citation highlights it.
CITE_WHERE_WRITTEN = True
ANSWER_PASSAGES = 5  # the extractive answer's sentences come from this many of the top passages (bench/answers.py)


def ask(question: str, searcher: Searcher, *, mode: str | None = None, top_k: int | None = None,
        flt: Filter | None = None, llm: LLM | None = None) -> Answer:
    """Answer `question` from the indexed documents only (with `llm`: generated, citations verified)."""
    for kind, payload in ask_stream(question, searcher, mode=mode, top_k=top_k, flt=flt, llm=llm):
        if kind == "answer":
            assert isinstance(payload, Answer)
            return payload
    raise AssertionError("ask_stream ended without an answer")


Event = tuple[str, object]


def ask_stream(question: str, searcher: Searcher, *, mode: str | None = None, top_k: int | None = None,
               flt: Filter | None = None, llm: LLM | None = None) -> Iterator[Event]:
    """Answer as a stream of events, in this order:
    ("retrieval", SearchResult) once, ("token", str) for each piece of answer text, ("answer", Answer) once.

    With `llm` the tokens are the model's raw reply as it arrives; the Answer's text is the verified one
    (invalid citations removed, sources renumbered) and supersedes them, also when the LLM failed part-way
    and the extractive answer is shown instead. The LLM is never called when the gate refuses.
    """
    t0 = time.perf_counter()
    result = searcher.search(question, mode=mode, top_k=top_k, flt=flt)
    rewrite_ms = None
    if result.hits and result.gate.found:  # the gate first: no LLM call, not even to rewrite, when it refuses
        expansion, rewrite_notices, rewrite_ms = _rewrite(question, llm)
        if expansion:
            # the rewritten search ranks; the gate keeps judging the question as asked
            result = replace(searcher.search(question, mode=mode, top_k=top_k, flt=flt, expansion=expansion),
                             gate=result.gate)
        if rewrite_notices:
            result = replace(result, notices=(*result.notices, *rewrite_notices))
    yield "retrieval", result
    timings: dict[str, float | None] = {"embed": result.timings_ms.get("embed"),
                                        "search": result.timings_ms.get("search"),
                                        "rerank": result.timings_ms.get("rerank"), "generate": None}
    if rewrite_ms is not None:
        timings["rewrite"] = rewrite_ms
    version = searcher.store.index_version()
    if not result.hits or not result.gate.found:
        timings["total"] = (time.perf_counter() - t0) * 1000
        text = dont_know(question)
        yield "token", text
        yield "answer", Answer(question, text, False, "extractive", (), timings, version,
                               notices=(*result.notices, f"not found in the documents: {_why(result)}"),
                               completeness="none", missing=result.gate.absent_names)
        return
    notices = result.notices
    composed = None
    if llm is not None:
        from kotae.answer.generate import llm_answer

        # The answer checks run on the evidence before the call: a value the document leaves blank is said so
        # without asking the model (it would make one up); a part the documents lack is told to the model.
        composed = _extract(question, result.query_vector, result.hits, searcher.embedder, searcher,
                            result.translation_vector)
        if composed.completeness == "blank":
            notices = (*notices, "the LLM was not asked: the documents leave the asked value blank")
        else:
            try:
                yield from llm_answer(question, result, searcher, llm, t0=t0, timings=dict(timings),
                                      version=version, notices=notices, missing=composed.missing)
                return
            except LLMError as e:
                notices = (*notices, f"{e}; showing the extractive answer")
    yield from _extractive_answer(question, result, searcher, t0, timings, version, notices, composed)


def _why(result: SearchResult) -> str:
    """The refusal in plain words, then the numbers that decided it."""
    gate = result.gate
    return f"{gate.explanation} ({gate.reason})" if gate.explanation else gate.reason


def _rewrite(question: str, llm: LLM | None) -> tuple[str | None, tuple[str, ...], float | None]:
    """HyDE: the passage the LLM writes for the question (when `rewrite` is "hyde"), notices, its time."""
    if llm is None or llm.settings.rewrite != "hyde":
        return None, (), None
    t0 = time.perf_counter()
    try:
        passage = llm.complete(hyde_messages(question), temperature=0.0, max_tokens=160).strip()
    except LLMError as e:
        return None, (f"query rewriting skipped ({e})",), (time.perf_counter() - t0) * 1000
    ms = (time.perf_counter() - t0) * 1000
    if not passage:
        return None, ("query rewriting skipped (the LLM wrote nothing)",), ms
    return passage, (), ms


def _extractive_answer(question: str, result: SearchResult, searcher: Searcher, t0: float,
                       timings: dict[str, float | None], version: str,
                       notices: tuple[str, ...], composed: complete.Composed | None = None) -> Iterator[Event]:
    t1 = time.perf_counter()
    if composed is None:
        composed = _extract(question, result.query_vector, result.hits, searcher.embedder, searcher,
                            result.translation_vector)
    cited = list(dict.fromkeys([c.source for c in composed.sentences]
                               + [src for _, src in composed.notes if src is not None]))
    number = {src: n for n, src in enumerate(sorted(cited), 1)}
    rest = [i for i in range(len(result.hits)) if i not in number]
    for i in rest:  # sources not cited follow, numbered after the cited ones
        number[i] = len(number) + 1
    pieces = [f"{extractive.shown(c.text)}[{number[c.source]}]" for c in composed.sentences]
    pieces += [note + (f"[{number[src]}]" if src is not None else "") for note, src in composed.notes]
    for i, piece in enumerate(pieces):
        yield "token", (" " if i else "") + piece
    sources = sorted((Source(number[i], h, extractive.excerpt(h.chunk.text)) for i, h in enumerate(result.hits)),
                     key=lambda s: s.n)
    timings["generate"] = (time.perf_counter() - t1) * 1000
    timings["total"] = (time.perf_counter() - t0) * 1000
    n = len(composed.sentences)
    counts = {"sentences": n, "valid": n, "invalid": 0, "unsupported": 0, "weak": 0,
              "attached": 0, "pruned": 0}  # extractive sentences are the passages' own words
    if composed.completeness != "complete":
        notices = (*notices, f"{composed.completeness} answer: the documents lack {'; '.join(composed.missing)}")
    yield "answer", Answer(question, " ".join(pieces), True, "extractive", tuple(sources), timings, version,
                           notices, citations=counts, completeness=composed.completeness,
                           missing=composed.missing)


def _extract(question: str, qvec, hits: list[Hit], embedder: Embedder,  # type: ignore[no-untyped-def]
             searcher: Searcher, tvec: np.ndarray | None = None, passages: int | None = None) -> complete.Composed:
    """Each part of the question against the sentences of the top passages (kotae.answer.complete)."""
    top = hits[:ANSWER_PASSAGES if passages is None else passages]
    by_row = RECORD_ROWS and not checks.asks_list(question)
    records = [by_row and h.chunk.rows is not None and h.chunk.file.lower().endswith(RECORD_FILES) for h in top]
    whole = _whole_lists(top, searcher)
    cands = extractive.candidates([text for text, _ in whole], [h.chunk.heading for h in top], records=records,
                                  tables=[h.chunk.rows is not None or extractive.rows_only(h.chunk.text) for h in top])
    if not cands:
        only = extractive.Candidate(extractive.tidy(hits[0].chunk.text), 0, 0)
        return complete.Composed((only,), (), "complete", ())
    vecs = searcher.sentences.passages([c.text for c in cands])
    asked = checks.parts(question)
    part_vecs = [qvec] if len(asked) == 1 else list(embedder.queries(asked))
    part_tokens = [analyze(checks.without_asking(p)) for p in asked]
    part_words = [words(p) for p in asked]
    terms = [t for toks in part_tokens for t in toks] + [t for ws in part_words for _, ts in ws for t in ts]
    df, n = searcher.store.document_frequencies(list(dict.fromkeys(terms)))
    cand_tokens = _with_context([analyze(c.text) for c in cands], cands)
    syn = on_demand(workplace=SENTENCE_WORKPLACE) if searcher.settings.synonyms else None
    cand_groups = [frozenset(g for _, _, g in matches(t, syn, query=False)) for t in cand_tokens] if syn else None
    sources = [c.source for c in cands]
    noisy = np.array([extractive.noise(c.text) for c in cands], dtype=float)
    captions = np.array([extractive.caption(c.text) for c in cands], dtype=float)
    other = _other_language(question, cands, searcher)
    unnamed = np.array([not held for held in _naming(question, top)], dtype=float)[[c.source for c in cands]]
    out = []
    for i, (part, vec, toks, ws) in enumerate(zip(asked, part_vecs, part_tokens, part_words, strict=True)):
        qgroups = _term_groups(toks, syn) if syn else None
        scores = extractive.score(vec, vecs, toks, cand_tokens, sources, df, n, qgroups, cand_groups)
        if other.any():
            # a one-part question reuses the search's embedding of its translated words (`tvec`)
            words_vec = tvec if len(asked) == 1 and tvec is not None else _translation_vector(part, toks, searcher)
            if words_vec is not None:
                scores = extractive.translated_cosine(scores, vecs, vec, words_vec,
                                                      searcher.settings.translation_dense, other)
        if NOISE_LINES:
            scores = scores - extractive.NOISE_PENALTY * noisy
        if not extractive.asks_figure(part):
            scores = scores - extractive.CAPTION_PENALTY * captions
        scores = scores - NAME_PENALTY * unnamed
        if searcher.reranker is not None and searcher.settings.rerank_sentences > 0:
            scores = extractive.reranked(scores, [c.text for c in cands], part, searcher.reranker,
                                         searcher.settings.rerank_sentences, searcher.settings.rerank_sentence_pool)
        content = {t for _, ts in ws for t in ts if t not in ASKING}
        share = sum(df.get(t, 0) == 0 for t in content) / len(content) if content else 0.0
        out.append(complete.answer_part(part, cands, scores, toks, cand_tokens, first=i == 0,
                                        absent=absent_terms(ws, df), absent_share=share))
    composed = complete.compose(out, question_lang(question))
    return replace(composed, sentences=tuple(_cited_where_written(c, whole, hits) for c in composed.sentences))


# A sentence that goes on from the one before it (「また、…時間単位で取得することができる。」 after 「年次有給休暇は、半日単位で
# …」) is about that one's subject: its words count as the sentence's own in the keyword share (bench/answers.py
# --constant kotae.answer.ask.CONTINUED_CONTEXT=false)
CONTINUED_CONTEXT = True
_CONTINUES = re.compile(r"^\s*(?:また|さらに|なお|加えて|同様に)[、,]|^\s*(?:Also|In addition|Likewise|Similarly|Furthermore),",
                        re.IGNORECASE)


def _with_context(tokens: list[list[str]], cands: list[extractive.Candidate]) -> list[list[str]]:
    """Each candidate's tokens; a sentence that opens with a connective going on from the sentence before it in its
    passage (また、, なお、, Also, …) gets that sentence's tokens too."""
    if not CONTINUED_CONTEXT:
        return tokens
    out = list(tokens)
    for i, c in enumerate(cands):
        if i and _CONTINUES.match(c.text) and cands[i - 1].source == c.source:
            out[i] = tokens[i] + [t for t in tokens[i - 1] if t not in tokens[i]]
    return out


def _cited_where_written(c: extractive.Candidate, whole: list[tuple[str, tuple[int, int]]],
                         hits: list[Hit]) -> extractive.Candidate:
    """`c`, citing the hit whose own passage holds it: a sentence taken from the page beyond its chunk (a list's
    items, a table's rows: `_whole_lists`) cites the hit that is that text's own chunk when one is among the hits,
    so its citation highlights it; else the chunk it was read with."""
    own = whole[c.source][1]
    if not CITE_WHERE_WRITTEN or c.end < 0 or own[0] <= c.start and c.end <= own[1]:
        return c
    said = extractive.said(c.text)
    for i, h in enumerate(hits):
        if i != c.source and said in extractive.said(h.chunk.text):
            return replace(c, source=i)
    return c


def _naming(question: str, top: list[Hit]) -> list[bool]:
    """Which passages hold (in their text, headings or file name) every name the question mentions ("Intel", "Aozora
    Labs"): all True when none does, or when the question names nothing; a passage in the question's other language
    counts as holding them (the name may be written otherwise there)."""
    named = [tokens for _, tokens in names(question) if tokens] if NAME_PENALTY > 0 else []
    if not named:
        return [True] * len(top)
    lang = question_lang(question)
    held = []
    for h in top:
        if h.chunk.lang in ("ja", "en") and h.chunk.lang != lang:  # サンプル商事 is Sample Shoji: no telling
            held.append(True)
            continue
        words_of = set(analyze(" ".join([h.chunk.text, *h.chunk.heading, os.path.basename(h.chunk.file)])))
        held.append(all(all(t in words_of for t in tokens) for tokens in named))
    return held if any(held) else [True] * len(top)


def _translation_vector(part: str, tokens: list[str], searcher: Searcher) -> np.ndarray | None:
    """The embedding of a question part's words in the corpus' other language (None: none translate)."""
    translated = searcher.translated(part, tokens)
    return searcher.embedder.query(" ".join(translated)) if translated else None


def _other_language(question: str, cands: list[extractive.Candidate], searcher: Searcher) -> np.ndarray:
    """Which sentences are in the corpus' other language, when the question's words are searched in it
    (`Searcher.translation_source`) and their translations are embedded (`translation_dense` > 0)."""
    if (not SENTENCE_TRANSLATED or searcher.settings.translation_dense <= 0
            or searcher.translation_source(question) is None):
        return np.zeros(len(cands), dtype=bool)
    own = question_lang(question)
    return np.array([detect_lang(_values(c.text) if ROW_LANGUAGE else c.text) not in (own, "mixed") for c in cands],
                    dtype=bool)


_COLUMN = re.compile(r"(?:^|\s\|\s)[^|:]{1,40}:\s")


def _values(text: str) -> str:
    """A table row's values without its column names ("code: EX-102 | category: タクシー代" → "EX-102 タクシー代"): a
    row's language is its values' (English column names over Japanese values read as mixed); other text as is."""
    return _COLUMN.sub(" ", text) if " | " in text else text


def _term_groups(tokens: list[str], syn) -> dict[str, frozenset[int]]:  # type: ignore[no-untyped-def]
    """Each question token with the synonym groups of the dictionary entries covering it."""
    out: dict[str, set[int]] = {}
    for a, b, g in matches(tokens, syn, query=True):
        for t in tokens[a:b]:
            out.setdefault(t, set()).add(g)
    return {t: frozenset(gs) for t, gs in out.items()}


def _whole_lists(hits: list[Hit], searcher: Searcher) -> list[tuple[str, tuple[int, int]]]:
    """The hits' texts, each with the lead-in or items of a list (or a table's rows) its chunk boundary cut off
    (kotae.answer.lists), taken from the page text around it (and the previous or next page's, at a page edge);
    each with where its chunk's own text lies in it."""
    pages: dict[tuple[str, int], str] = {}

    def page(doc: str, n: int) -> str:
        if (doc, n) not in pages:
            pages[doc, n] = (searcher.store.page_text(doc, n) or "") if n >= 1 else ""
        return pages[doc, n]

    out = []
    for h in hits:
        c = h.chunk
        text = page(c.doc_id, c.page)
        if c.rows is not None or text[c.start:c.end] != c.text:  # a table's rows, or offsets that do not match
            out.append((c.text, (0, len(c.text))))
            continue
        before = text[max(0, c.start - CONTEXT_CHARS):c.start]
        after = text[c.end:c.end + CONTEXT_CHARS]
        if c.start < CONTEXT_CHARS and c.page > 1:
            before = page(c.doc_id, c.page - 1)[-CONTEXT_CHARS:].rstrip() + "\n" + before
        if c.end + CONTEXT_CHARS > len(text):
            after = after.rstrip() + "\n" + page(c.doc_id, c.page + 1)[:CONTEXT_CHARS]
        prefix, suffix = complete_lists(before, c.text, after)
        out.append((prefix + c.text + suffix, (len(prefix), len(prefix) + len(c.text))))
    return out
