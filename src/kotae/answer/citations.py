"""Citations in an LLM's answer, checked in code: parse, validate, renumber, and test each sentence's support.

Pure: plain text, token lists and similarity matrices in; plain data out. The caller analyses and embeds.

Forms understood: [1], 【1】, ［１］ (full-width digits), [1, 2], [1、2], [1-3], [1][2], [Source 1], [資料1].

Support of a sentence by a passage (thresholds measured on the sample golden sets: each reference answer
against its evidence passage vs the other passages retrieved for the same question; see
bench/results/citation_support.md):
- lexical: the share of the sentence's distinct search tokens (`kotae.search.analyze`) found in the
  passage. A faithful sentence reuses the passage's words: reference answers score a median 0.8 against
  their evidence and 0.2 against the other retrieved passages; LEXICAL_MIN = 0.5 sits between.
- embedding: the cosine between the sentence and the passage embedded as passages. e5 similarities bunch
  near 0.8 even for unrelated text, so this counts only when high: COSINE_MIN = 0.90 accepts paraphrases
  that share few words while rejecting most wrong passages.
- numbers: every number in the sentence must occur in the passage (after NFKC): a sentence that copies the
  passage's words but changes "25日" to "15日" is the typical small-model error and shares most tokens.
A sentence is supported by a passage when its numbers are all there and either signal passes; a cited
sentence supported by none of its cited passages is flagged weak.
"""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from kotae.chunking import split_sentences

LEXICAL_MIN = 0.5
COSINE_MIN = 0.90

_NUM = r"[0-9０-９]+"
_JOIN = r"\s*(?:[,，、;；&]|and|-|–|〜|~)\s*"
_PREFIX = r"(?:(?:sources?|refs?|references?|資料|出典|文献)\s*[:：#]?\s*)?"
MARKER = re.compile(rf"[\[［【]\s*{_PREFIX}({_NUM}(?:{_JOIN}{_NUM})*)\s*[\]］】]", re.IGNORECASE)
_RANGE = re.compile(rf"({_NUM})\s*[-–〜~]\s*({_NUM})")
_SPLIT = re.compile(rf"{_JOIN}")
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
    counts: dict[str, int]  # sentences, valid, invalid, unsupported, weak, attached


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


def lexical(sentence_tokens: Sequence[Sequence[str]], passage_tokens: Sequence[Sequence[str]]) -> np.ndarray:
    """(sentences × passages): share of each sentence's distinct tokens found in each passage (0..1)."""
    psets = [set(p) for p in passage_tokens]
    out = np.zeros((len(sentence_tokens), len(psets)))
    for i, toks in enumerate(sentence_tokens):
        terms = set(toks)
        if terms:
            out[i] = [len(terms & p) / len(terms) for p in psets]
    return out


def numbers_present(sentences: Sequence[str], passages: Sequence[str]) -> np.ndarray:
    """(sentences × passages): True where every number in the sentence occurs in the passage."""
    pnums = [set(_DIGITS.findall(unicodedata.normalize("NFKC", p).replace(",", ""))) for p in passages]
    out = np.ones((len(sentences), len(passages)), dtype=bool)
    for i, s in enumerate(sentences):
        nums = set(_DIGITS.findall(unicodedata.normalize("NFKC", s).replace(",", "")))
        if nums:
            out[i] = [nums <= p for p in pnums]
    return out


def supports(lex: np.ndarray, cos: np.ndarray, nums: np.ndarray) -> np.ndarray:
    """(sentences × passages) booleans: the passage supports the sentence (see the module docstring)."""
    return nums & ((lex >= LEXICAL_MIN) | (cos >= COSINE_MIN))


def verify(sentences: Sequence[Sentence], n_sources: int, lex: np.ndarray, cos: np.ndarray,
           nums: np.ndarray, *, invalid: int = 0, attach: bool = True) -> Verification:
    """Flag unsupported and weak sentences, attach citations when the model gave none, renumber.

    `lex`, `cos`, `nums` are (sentences × sources) as from `lexical`, embedding cosines, `numbers_present`.
    With `attach`, an answer without a single citation gets, for each sentence, the source that supports
    it best (lexical + cosine), when one supports it at all.
    """
    ok = supports(lex, cos, nums) if len(sentences) and n_sources else np.zeros((len(sentences), 0), bool)
    out: list[Sentence] = []
    attaching = attach and n_sources > 0 and not any(s.cited for s in sentences)
    for i, s in enumerate(sentences):
        if attaching and has_words(s.text):
            best = int(np.argmax(lex[i] + cos[i]))
            if ok[i, best]:
                s = replace(s, cited=(best + 1,), attached=True)
        weak = bool(s.cited) and not any(ok[i, n - 1] for n in s.cited)
        out.append(replace(s, weak=weak))
    order = tuple(dict.fromkeys(n for s in out for n in s.cited))
    number = {old: new for new, old in enumerate(order, 1)}
    renumbered = [replace(s, cited=tuple(number[n] for n in s.cited)) for s in out]
    counts = {"sentences": len(out), "valid": sum(len(s.cited) for s in out), "invalid": invalid,
              "unsupported": sum(1 for s in out if not s.cited and has_words(s.text)),
              "weak": sum(s.weak for s in out), "attached": sum(s.attached for s in out)}
    return Verification(_render(renumbered, "", number=None), order, tuple(renumbered), counts)


def _render(sentences: Sequence[Sentence], tail: str, number: dict[int, int] | None) -> str:
    """Sentences back into text; `number` None: citations as they stand, {}: none at all."""
    parts = []
    for s in sentences:
        cites = "" if number == {} else "".join(f"[{n}]" for n in s.cited)
        parts.append(s.gap + s.text + cites)
    return ("".join(parts) + tail).strip()
