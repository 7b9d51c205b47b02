"""The LLM answer: fit the evidence to the context, prompt, stream, then verify the citations in code.

Called by `ask_stream` only after the gate found evidence. Raises `LLMError` whenever the extractive
answer should be shown instead (the model failed, answered only "[1]", or cited and matched nothing);
the message says why and becomes the notice.
"""
from __future__ import annotations

import time
from collections.abc import Iterator, Sequence

import numpy as np

from kotae.answer import budget, checks, citations, prompt
from kotae.answer.extractive import excerpt, unwrap
from kotae.answer.llm import LLM, LLMError
from kotae.chunking import detect_lang
from kotae.search.analyze import analyze
from kotae.search.searcher import Searcher, SearchResult
from kotae.types import Answer, Hit, Source

Event = tuple[str, object]


def llm_answer(question: str, result: SearchResult, searcher: Searcher, llm: LLM, *, t0: float,
               timings: dict[str, float | None], version: str,
               notices: Sequence[str] = (), missing: Sequence[str] = ()) -> Iterator[Event]:
    """("token", str) as the model writes, then ("answer", Answer) with verified, renumbered citations.
    `missing`: what the answer checks found the documents lack (parts of the question); the prompt tells the
    model, and the Answer is marked partial."""
    s = llm.settings
    lang = "ja" if detect_lang(question) in ("ja", "mixed") else "en"
    hits = result.hits
    passages = [(h.chunk.anchor, unwrap(h.chunk.text, h.chunk.heading)) for h in hits]
    notes = list(notices)
    t1 = time.perf_counter()
    keep, texts, note = _fit(question, passages, lang, llm, searcher)
    if note:
        notes.append(note)
    if s.long_evidence == "summarise" and note:
        keep, texts, note = _summarise(question, passages, lang, llm, searcher)
        notes[-1] = note
        timings["summarise"] = _ms(t1)
        t1 = time.perf_counter()
    messages = prompt.build_messages(question, [(passages[i][0], t) for i, t in zip(keep, texts, strict=True)],
                                     lang, missing)
    pieces = []
    for piece in llm.stream(messages, temperature=s.temperature, max_tokens=s.max_tokens):
        pieces.append(piece)
        yield "token", piece
    timings["generate"] = _ms(t1)
    raw = "".join(pieces).strip()
    if not citations.has_words(raw):
        raise LLMError(f"the LLM at {llm.where} answered without words ({raw[:40]!r})")

    t1 = time.perf_counter()
    used = [hits[i] for i in keep]
    sentences, invalid = citations.keep_valid(citations.split(raw)[0], len(used))
    if citations.is_dont_know(sentences):
        timings["verify"] = _ms(t1)
        timings["total"] = _ms(t0)
        notes.append("the LLM found no answer in the sources")
        yield "answer", Answer(question, prompt.dont_know(question), False, "llm", (), timings, version,
                               tuple(notes), _numbered(hits, 1), {"sentences": 0, "valid": 0, "invalid": invalid,
                                                                 "unsupported": 0, "weak": 0, "attached": 0,
                                                                 "pruned": 0})
        return
    v = _verify(sentences, used, invalid, searcher)
    timings["verify"] = _ms(t1)
    if not v.counts["valid"]:
        raise LLMError(f"the LLM's answer cites none of the sources and matches none of them ({raw[:60]!r})")
    notes += _notices(v)
    sources = tuple(Source(n, used[old - 1], excerpt(used[old - 1].chunk.text)) for n, old in enumerate(v.order, 1))
    strange = checks.unsupported_numbers(v.text, [s.hit.chunk.text for s in sources], question)
    counts = {**v.counts, "numbers_unsupported": len(strange)}
    if strange:
        notes.append(f"check the figures: {', '.join(strange)} appear in none of the cited passages")
    cited = {id(h) for h in (used[o - 1] for o in v.order)}
    rest = _numbered([h for h in hits if id(h) not in cited], len(sources) + 1)
    timings["total"] = _ms(t0)
    if missing:
        notes.append(f"partial answer: the documents lack {'; '.join(missing)}")
    yield "answer", Answer(question, v.text, True, "llm", sources, timings, version, tuple(notes), rest,
                           counts, completeness="partial" if missing else "complete", missing=tuple(missing))


def _count(llm: LLM, searcher: Searcher) -> budget.Count:
    def count(text: str) -> int:
        n = llm.count_tokens(text)
        return searcher.embedder.count_tokens(text) if n is None else n

    return count


def _fit(question: str, passages: list[tuple[str, str]], lang: str, llm: LLM,
         searcher: Searcher) -> tuple[tuple[int, ...], tuple[str, ...], str | None]:
    s = llm.settings
    fit = budget.fewer(question, passages, lang, _count(llm, searcher), budget.budget(s.context, s.max_tokens))
    return fit.keep, fit.texts, fit.notice


def _summarise(question: str, passages: list[tuple[str, str]], lang: str, llm: LLM,
               searcher: Searcher) -> tuple[tuple[int, ...], tuple[str, ...], str]:
    """Map-reduce: one call per source for what it says about the question, then the answer from those."""
    s = llm.settings
    limit = budget.budget(s.context, s.max_tokens)
    count = _count(llm, searcher)
    summaries: list[tuple[int, str]] = []
    for i, (anchor, text) in enumerate(passages):
        one = budget.fewer(question, [(anchor, text)], lang, count, limit)  # a single huge passage is cut
        reply = llm.complete(prompt.summary_messages(question, anchor, one.texts[0]), max_tokens=min(200, limit))
        if not prompt.is_none_summary(reply):
            summaries.append((i, reply.strip()))
    if not summaries:  # nothing relevant anywhere: let the model say so from the best passage
        summaries = [(0, passages[0][1])]
    fit = budget.fewer(question, [(passages[i][0], t) for i, t in summaries], lang, count, limit)
    keep = tuple(summaries[k][0] for k in fit.keep)
    note = (f"the evidence exceeds the LLM's context budget ({limit} tokens): each of the {len(passages)} "
            f"sources was summarised first (map-reduce), {len(passages) - len(summaries)} had nothing relevant")
    if fit.notice:
        note += f"; the summaries still did not fit: asked with the {len(keep)} best"
    return keep, fit.texts, note


def _verify(sentences: list[citations.Sentence], used: list[Hit], invalid: int,
            searcher: Searcher) -> citations.Verification:
    texts = [s.text for s in sentences]
    ptexts = [" › ".join(h.chunk.heading) + "\n" + h.chunk.text for h in used]  # 第32条 is often only in the heading
    emb = searcher.embedder
    cos = emb.passages(texts) @ emb.passages(ptexts).T if texts else np.zeros((0, len(used)))
    return citations.verify(sentences, ptexts, [analyze(t) for t in texts], [analyze(p) for p in ptexts], cos,
                            invalid=invalid)


def _notices(v: citations.Verification) -> list[str]:
    c = v.counts
    out = []
    if c["invalid"]:
        out.append(f"removed {c['invalid']} citation(s) to sources that do not exist")
    if c["pruned"]:
        out.append(f"dropped {c['pruned']} citation(s) to sources that do not support their sentence "
                   "(another cited source does)")
    if c["attached"]:
        out.append(f"citations were attached by kotae: the LLM cited nothing, so {c['attached']} sentence(s) "
                   "were matched to the passage that supports them")
    if c["unsupported"]:
        out.append(f"{c['unsupported']} sentence(s) cite no source: unsupported")
    if c["weak"]:
        out.append(f"{c['weak']} sentence(s) are only weakly supported by the passage they cite")
    return out


def _numbered(hits: Sequence[Hit], first: int) -> tuple[Source, ...]:
    return tuple(Source(n, h, excerpt(h.chunk.text)) for n, h in enumerate(hits, first))


def _ms(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000.0
