"""Citations in an LLM's answer, checked in code: parse, validate, renumber, and test each sentence's support.

Pure: plain text, token lists and similarity matrices in; plain data out. The caller analyses and embeds.

Forms understood: [1], 【1】, ［１］ (full-width digits), [1, 2], [1、2], [1-3], [1][2], [Source 1], [資料1].

Support of a sentence by a passage. The thresholds were measured on the sample golden sets (each sentence
of a reference answer against the top-5 passages retrieved for its question; "supporting" when the passage
holds the question's must_contain phrase): see bench/results/citation_support.md, made by
bench/citation_support.py.
- lexical: the share of the sentence's distinct search tokens (`kotae.search.analyze`) found in the
  passage. A faithful sentence reuses the passage's words: supporting pairs have a median of 1.0 (p25
  0.75), the others 0.22 (p75 0.39). LEXICAL_MIN = 0.6 accepts as many supporting pairs as 0.5 does and
  half as many others (1.8 % instead of 3.8 %).
- embedding: the cosine between the sentence and the passage, both embedded as passages. e5 similarities
  bunch near 0.85 for related and unrelated text alike (medians 0.87 vs 0.83), so the cosine only counts
  when high: COSINE_MIN = 0.90 rescues paraphrases that share few words (+2 points of supporting pairs)
  without accepting more of the others.
- numbers: every number in the sentence must occur in the passage (NFKC, thousands separators dropped): a
  sentence that copies the passage's words but turns "25日" into "15日" is the typical small-model error,
  and shares nearly all its tokens with the passage.
A sentence is supported when its numbers are all in its cited passages and either signal passes (for a
sentence citing several passages, the lexical share is taken against their words pooled and the cosine is
the best one's); a cited sentence that is not supported is flagged weak. The passages' heading paths count
as their text ("第32条" is often only in the heading). With these thresholds 81 % of supporting pairs and
1.8 % of the others are accepted; most supporting pairs rejected are reference sentences that join facts
from two articles, which a model citing both passages gets accepted.
"""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace

import numpy as np

from kotae.chunking import split_sentences

LEXICAL_MIN = 0.6
COSINE_MIN = 0.90

_NUM = r"[0-9０-９]+"
_JOIN = r"\s*(?:[,，、;；&]|and|-|–|〜|~)\s*"
_PREFIX = r"(?:(?:sources?|refs?|references?|資料|出典|文献)\s*[:：#]?\s*)?"
MARKER = re.compile(rf"[\[［【]\s*{_PREFIX}({_NUM}(?:{_JOIN}{_NUM})*)\s*[\]］】]", re.IGNORECASE)
_RANGE = re.compile(rf"({_NUM})\s*[-–〜~]\s*({_NUM})")
_DIGITS = re.compile(r"\d+(?:[.,]\d+)*")
_LETTER = re.compile(r"[^\W\d_]")
DONT_KNOW = frozenset({"わからない", "わかりません", "分からない", "分かりません", "不明", "不明です",
                       "idontknow", "idonotknow", "idk"})


@dataclass(frozen=True)
class Marker:
    """A citation marker as written: its span in the text and the source numbers it names."""

    start: int
    end: int
    numbers: tuple[int, ...]


@dataclass(frozen=True)
class Sentence:
    """A sentence of the answer, its citation markers taken out."""

    text: str
    cited: tuple[int, ...] = ()  # source numbers, first mention first, no repeats
    gap: str = ""  # what stood between it and the sentence before (keeps line breaks and lists)
    attached: bool = False  # the citation was attached by kotae, not written by the model
    weak: bool = False  # cited, but no cited passage supports it


@dataclass(frozen=True)
class Verification:
    text: str  # the answer with only valid citations, renumbered 1..m in order of first citation
    order: tuple[int, ...]  # order[new - 1] = the source number the model used (1-based)
    sentences: tuple[Sentence, ...]  # with the new numbers
    counts: dict[str, int]  # sentences, valid, invalid, unsupported, weak, attached, pruned


def _numbers(group: str) -> tuple[int, ...]:
    out: list[int] = []
    for part in re.findall(rf"{_NUM}\s*[-–〜~]\s*{_NUM}|{_NUM}", group):
        m = _RANGE.fullmatch(part)
        if m:
            lo, hi = int(m[1]), int(m[2])
            out += range(lo, hi + 1) if 0 <= hi - lo <= 20 else (lo, hi)
        else:
            out.append(int(part))  # int() reads full-width digits too
    return tuple(out)


def find_markers(text: str) -> list[Marker]:
    """Every citation marker in `text`, in order."""
    return [Marker(m.start(), m.end(), _numbers(m[1])) for m in MARKER.finditer(text)]


def parse(text: str) -> list[int]:
    """The source numbers cited in `text`, in order of appearance (repeats kept)."""
    return [n for m in find_markers(text) for n in m.numbers]


def strip_markers(text: str) -> str:
    """`text` without its citation markers (and the spaces before them)."""
    sentences, tail = split(text)
    return _render(sentences, tail, number={})


def split(text: str) -> tuple[list[Sentence], str]:
    """The answer's sentences with the citations each carries, and the trailing whitespace.

    A marker belongs to the sentence it stands in or right after ("…支払う。[1]", "…15:00 [1].");
    a marker before any text belongs to the first sentence.
    """
    clean, at = [], []  # marker positions in the text without markers
    pos = length = 0
    markers = find_markers(text)
    for m in markers:
        piece = text[pos : m.start].rstrip(" \t\u3000")
        clean.append(piece)
        length += len(piece)
        at.append(length)
        pos = m.end
    clean.append(text[pos:])
    plain = "".join(clean)
    spans = split_sentences(plain)
    cited: list[list[int]] = [[] for _ in spans]
    for m, p in zip(markers, at, strict=True):
        owner = max((i for i, (s, _) in enumerate(spans) if s < p), default=0)
        if spans:
            cited[owner] += [n for n in m.numbers if n not in cited[owner]]
    out, prev = [], 0
    for (s, e), c in zip(spans, cited, strict=True):
        out.append(Sentence(plain[s:e], tuple(c), plain[prev:s]))
        prev = e
    return out, plain[prev:]


def keep_valid(sentences: Sequence[Sentence], n_sources: int) -> tuple[list[Sentence], int]:
    """Drop references outside 1..n_sources; return the sentences and how many were dropped."""
    invalid = 0
    out = []
    for s in sentences:
        ok = tuple(n for n in s.cited if 1 <= n <= n_sources)
        invalid += len(s.cited) - len(ok)
        out.append(replace(s, cited=ok))
    return out, invalid


def has_words(text: str) -> bool:
    """Whether `text` says anything besides citation markers, digits and punctuation."""
    return bool(_LETTER.search(MARKER.sub("", text)))


def is_dont_know(sentences: Sequence[Sentence]) -> bool:
    """The model declined: the answer is 「わからない」/"I don't know" alone, or starts with it and cites nothing."""
    if not sentences:
        return False
    first = _squash(sentences[0].text) in DONT_KNOW
    return first and (len(sentences) == 1 or not any(s.cited for s in sentences))


def _squash(text: str) -> str:
    t = unicodedata.normalize("NFKC", text).lower().replace("’", "'").replace("'", "")
    return re.sub(r"[\W_]+", "", t)


def numbers(text: str) -> frozenset[str]:
    """The numbers written in `text` (NFKC, thousands separators dropped): "５,０００円" → {"5000"}."""
    return frozenset(_DIGITS.findall(unicodedata.normalize("NFKC", text).replace(",", "")))


def share(sentence_tokens: Collection[str], passage_tokens: Collection[str]) -> float:
    """The share of the sentence's distinct tokens found in the passage (0..1; 0 for no tokens)."""
    terms = set(sentence_tokens)
    return len(terms & set(passage_tokens)) / len(terms) if terms else 0.0


def lexical(sentence_tokens: Sequence[Sequence[str]], passage_tokens: Sequence[Sequence[str]]) -> np.ndarray:
    """(sentences × passages) of `share`."""
    psets = [set(p) for p in passage_tokens]
    return np.array([[share(s, p) for p in psets] for s in sentence_tokens]).reshape(len(sentence_tokens),
                                                                                      len(psets))


def numbers_present(sentences: Sequence[str], passages: Sequence[str]) -> np.ndarray:
    """(sentences × passages): True where every number in the sentence occurs in the passage."""
    pnums = [numbers(p) for p in passages]
    return np.array([[numbers(s) <= p for p in pnums] for s in sentences], dtype=bool).reshape(
        len(sentences), len(passages))


def supports(lex: np.ndarray, cos: np.ndarray, nums: np.ndarray) -> np.ndarray:
    """(sentences × passages) booleans: the passage supports the sentence (see the module docstring)."""
    return nums & ((lex >= LEXICAL_MIN) | (cos >= COSINE_MIN))


def verify(sentences: Sequence[Sentence], passages: Sequence[str], sentence_tokens: Sequence[Sequence[str]],
           passage_tokens: Sequence[Sequence[str]], cos: np.ndarray, *, invalid: int = 0,
           attach: bool = True) -> Verification:
    """Flag unsupported and weak sentences, attach citations when the model gave none, renumber.

    `passages` are the texts the sources stand for (numbered 1..N); the tokens are `analyze`d sentences
    and passages; `cos` is (sentences × passages) embedding cosines. A sentence citing several sources
    is checked against them together (their words and numbers pooled), as "…, and … [1][2]" needs both.
    With `attach`, an answer without a single citation gets, for each sentence, the source that supports
    it best (lexical share + cosine), when one supports it at all. A sentence citing several sources of
    which some support it on their own keeps only those (the others are counted as pruned).
    """
    ptoks = [set(t) for t in passage_tokens]
    pnums = [numbers(p) for p in passages]

    def ok(i: int, cited: Sequence[int]) -> bool:
        toks = set().union(*(ptoks[n - 1] for n in cited))
        nums = frozenset().union(*(pnums[n - 1] for n in cited))
        return numbers(sentences[i].text) <= nums and (
            share(sentence_tokens[i], toks) >= LEXICAL_MIN or max(cos[i, n - 1] for n in cited) >= COSINE_MIN)

    out: list[Sentence] = []
    pruned = 0
    attaching = attach and len(passages) > 0 and not any(s.cited for s in sentences)
    for i, s in enumerate(sentences):
        if attaching and has_words(s.text):
            best = 1 + int(np.argmax([share(sentence_tokens[i], p) + cos[i, j] for j, p in enumerate(ptoks)]))
            if ok(i, (best,)):
                s = replace(s, cited=(best,), attached=True)
        if len(s.cited) > 1:  # small models cite [1][2] by habit: keep the sources that support it alone
            alone = tuple(n for n in s.cited if ok(i, (n,)))
            if alone:
                pruned += len(s.cited) - len(alone)
                s = replace(s, cited=alone)
        out.append(replace(s, weak=bool(s.cited) and not ok(i, s.cited)))
    order = tuple(dict.fromkeys(n for s in out for n in s.cited))
    number = {old: new for new, old in enumerate(order, 1)}
    renumbered = [replace(s, cited=tuple(number[n] for n in s.cited)) for s in out]
    counts = {"sentences": len(out), "valid": sum(len(s.cited) for s in out), "invalid": invalid,
              "unsupported": sum(1 for s in out if not s.cited and has_words(s.text)),
              "weak": sum(s.weak for s in out), "attached": sum(s.attached for s in out), "pruned": pruned}
    return Verification(_render(renumbered, "", number=None), order, tuple(renumbered), counts)


def _render(sentences: Sequence[Sentence], tail: str, number: dict[int, int] | None) -> str:
    """Sentences back into text; `number` None: citations as they stand, {}: none at all."""
    parts = []
    for s in sentences:
        cites = "" if number == {} else "".join(f"[{n}]" for n in s.cited)
        parts.append(s.gap + s.text + cites)
    return ("".join(parts) + tail).strip()
