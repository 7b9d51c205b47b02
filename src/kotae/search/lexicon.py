"""English ↔ Japanese keyword lexicon: the keyword evidence a question has in the corpus' other language.

An English question over Japanese documents shares no word with them, so its keyword search found nothing and
only the dense arm could rank the Japanese evidence. The bundled lexicon (kotae/data/lexicon, derived from
JMdict by scripts/build_lexicon.py; EDRDG, CC BY-SA 3.0) maps each English gloss of a common Japanese word, and
each two- or three-word gloss of the others (extension number → 内線番号; bench/lexicon_coverage.py), to the words
it glosses, best first (wage → 賃金 労賃 工賃 …), both sides held as search tokens. `translations`
gives a question's words in the other language, longest phrase first (side job → 副業 before side, job), at
most `per_term` words per matched phrase. The Japanese → English direction reads the same table backwards, for a
Japanese question's nouns only, at a lower weight (SOURCES, below). Pure apart from `bundled`, which reads the
table once per process (~0.2 s); questions look their phrases up in a cached copy instead (`on_demand`).
"""
from __future__ import annotations

import gzip
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache

from kotae.search import lookup

# The question languages whose words are searched in the other language. English: bench/translations.py, chosen
# on the fit halves (pooled hit@1 0.682 → 0.708 with English questions translated at weight 1.0). Japanese too
# since 2026-12-05, its nouns alone (`spans`), at SOURCE_WEIGHT × search.translation_weight in keyword search and
# not in the dense search (`DENSE_SOURCES`): bench/crossling_mixed.py over samples/docs + the real files, chosen on
# the fit halves (answers equal, passage-1 hits 109 → 110; at weight 1, or with the dense lift, Japanese questions
# about the Japanese rules lost their rank 1 to English chunks).
SOURCES: tuple[str, ...] = ("en", "ja")
SOURCE_WEIGHT = {"en": 1.0, "ja": 0.3}
DENSE_SOURCES: tuple[str, ...] = ("en",)
COVERAGE_SOURCES: tuple[str, ...] = ("en",)  # whose translations the gate's keyword coverage counts
# Take each phrase's first translations among those the corpus holds (not its first ones, held or not):
# bench/translations.py, fit halves nDCG@10 0.799 → 0.801, cross-lingual fit 0.517 → 0.523, hit@1 equal.
HELD_ONLY = True
DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "lexicon", "en-ja.tsv.gz")
Phrase = tuple[str, ...]


@dataclass(frozen=True)
class Side:
    """One direction: a phrase (its tokens joined by spaces) → its translations, best first, as the table's
    cells (tab-separated, each a space-joined token run), parsed when looked up: loading stays a dict of strings."""

    cells: dict[str, str]
    prefixes: frozenset[str]  # every proper prefix of a phrase: where a longer match may go on

    @classmethod
    def of(cls, cells: dict[str, str]) -> Side:
        prefixes: set[str] = set()
        for phrase in cells:
            words = phrase.split(" ")
            prefixes.update(" ".join(words[:k]) for k in range(1, len(words)))
        return cls(cells, frozenset(prefixes))

    def get(self, run: Sequence[str]) -> tuple[Phrase, ...] | None:
        found = self.cells.get(" ".join(run))
        return None if found is None else tuple(tuple(c.split(" ")) for c in found.split("\t") if c)

    def continues(self, run: Sequence[str]) -> bool:
        return " ".join(run) in self.prefixes


@dataclass(frozen=True)
class Lexicon:
    en_ja: Side
    backward: Side | None = None  # the Japanese → English side, when looked up rather than derived

    @classmethod
    def from_lines(cls, lines: Sequence[str]) -> Lexicon:
        """From `english tokens <TAB> japanese tokens <TAB> …` lines (Japanese best first)."""
        pairs = (line.rstrip("\n").split("\t", 1) for line in lines)
        return cls(Side.of({p[0]: p[1] for p in pairs if len(p) == 2 and p[0]}))

    @cached_property
    def ja_en(self) -> Side:
        """The table read backwards: a Japanese word → the English glosses that list it, best-ranked first."""
        if self.backward is not None:
            return self.backward
        backward: dict[str, list[tuple[int, int, str]]] = {}
        for n, (en, cells) in enumerate(self.en_ja.cells.items()):
            for rank, ja in enumerate(c for c in cells.split("\t") if c):
                backward.setdefault(ja, []).append((rank, n, en))
        return Side.of({ja: "\t".join(e for *_, e in sorted(v)) for ja, v in backward.items()})

    def side(self, source: str) -> Side:
        return self.en_ja if source == "en" else self.ja_en


@lru_cache(maxsize=1)
def bundled() -> Lexicon:
    """The bundled table, parsed whole (~0.2 s)."""
    with gzip.open(DATA, "rt", encoding="utf-8") as f:
        return Lexicon.from_lines(f.readlines())


LOOKUP_FORMAT = 1  # bump when the cached copy's tables change shape


@lru_cache(maxsize=1)
def on_demand() -> Lexicon:
    """The bundled table for questions, both directions looked up phrase by phrase in an SQLite copy kept in the
    user cache (`kotae.search.lookup`, built once per installation from `bundled`): a one-shot `kotae ask` reads
    the few phrases of its question instead of parsing the table (bench/cold_start.py)."""
    path = lookup.cache_path("lexicon", DATA, __file__, version=LOOKUP_FORMAT) + ".sqlite3"
    names = ("en_ja", "en_ja_prefixes", "ja_en", "ja_en_prefixes")
    tables = lookup.open_tables(path, names)
    if tables is None:
        lex = bundled()
        lookup.build(path, {f"{name}{part}": rows for name, side in (("en_ja", lex.en_ja), ("ja_en", lex.ja_en))
                            for part, rows in (("", side.cells.items()),
                                               ("_prefixes", ((p, True) for p in side.prefixes)))})
        tables = lookup.open_tables(path, names)
        if tables is None:
            return lex
    return Lexicon(Side(tables["en_ja"], tables["en_ja_prefixes"]),  # type: ignore[arg-type]
                   Side(tables["ja_en"], tables["ja_en_prefixes"]))  # type: ignore[arg-type]


def matches(tokens: Sequence[str], side: Side) -> list[tuple[int, int, tuple[Phrase, ...]]]:
    """(start, end, translations) of the lexicon's phrases in `tokens`, left to right, the longest at each place;
    a token inside a longer match starts no match of its own (the job of side job is not job)."""
    out: list[tuple[int, int, tuple[Phrase, ...]]] = []
    i = 0
    while i < len(tokens):
        best: tuple[int, tuple[Phrase, ...]] | None = None
        size = 1
        while i + size <= len(tokens):
            run = tokens[i : i + size]
            found = side.get(run)
            if found:
                best = (size, found)
            if not side.continues(run):
                break
            size += 1
        if best is None:
            i += 1
            continue
        out.append((i, i + best[0], best[1]))
        i += best[0]
    return out


# A Japanese question's words are translated only where they are written without hiragana (kanji, katakana: nouns
# such as 特許, タイプライター): its verbs and adjectives (取る, 多い) gloss into many loose English words.
_HIRAGANA = re.compile(r"[\u3040-\u309f]")


def nominal(run: Sequence[str]) -> bool:
    """Whether a Japanese token run reads as a noun: no hiragana, no bare number or Latin word."""
    return all(t and not _HIRAGANA.search(t) and not t.isascii() and not t.isdigit() for t in run)


def spans(tokens: Sequence[str], source: str, lexicon: Lexicon) -> list[tuple[int, int, tuple[Phrase, ...]]]:
    """`matches` on the source's side; for Japanese questions only the runs that read as nouns (`nominal`)."""
    found = matches(tokens, lexicon.side(source))
    if source == "ja":
        return [(a, b, f) for a, b, f in found if nominal(tokens[a:b])]
    return found


def translations(tokens: Sequence[str], source: str, lexicon: Lexicon, per_term: int = 3,
                 held: Callable[[Phrase], bool] | None = None) -> list[str]:
    """The search tokens of the question's words in the other language (`source`: the question's, "en" or
    "ja"), the first `per_term` translations of each matched phrase (with `held`, the first the corpus holds),
    once each, in order."""
    out: dict[str, None] = {}
    for _, _, found in spans(tokens, source, lexicon):
        for phrase in [p for p in found if held is None or held(p)][:per_term]:
            out.update(dict.fromkeys(phrase))
    return list(out)


def candidates(tokens: Sequence[str], source: str, lexicon: Lexicon) -> list[str]:
    """Every token of every translation of the question's phrases: what `held` needs looked up."""
    return list(dict.fromkeys(t for _, _, found in spans(tokens, source, lexicon) for p in found for t in p))


# A name that reads as romanised Japanese (Hepburn or kunrei syllables), which the documents may write in kanji or
# kana (Miyazawa Kenji: 宮沢賢治): that no document holds the Latin spelling proves nothing.
_SYLLABLE = r"(?:kk|ss|tt|pp|tch|cch)?(?:(?:[kgszjtnhbpmr]y?|sh|ch|ts)?[aiueo]|d[aeo]|w[ao]|fu|y[auo])"
_ROMAJI = re.compile(f"(?:{_SYLLABLE}|n(?![aiueoy]))+")
_SYLLABLES = re.compile(_SYLLABLE)


def romanised_japanese(name: str) -> bool:
    """Whether `name`, as written, reads as a romanised Japanese name: two or more words (a given and a family
    name), or one word of three syllables or more (Okazaki, Nihonbashi), every word capitalised, not an
    acronym, and all of it Japanese syllables ("FIFA", "Canada", "Hamas" are not: f goes only before u, a word
    ends in a vowel or n)."""
    parts = name.split()
    if not parts or not all(w[:1].isupper() and w[1:].islower() and w.isascii() for w in parts):
        return False
    if not all(_ROMAJI.fullmatch(w.lower()) for w in parts):
        return False
    return len(parts) >= 2 or len(_SYLLABLES.findall(parts[0].lower())) >= 3


def held_through_translation(query_tokens: Sequence[str], passage_tokens: Sequence[str], source: str,
                             lexicon: Lexicon, per_term: int = 3) -> list[str]:
    """The question's tokens a passage holds as one of their translations (the wage of a question in a passage
    that says 賃金): what keyword coverage counts across languages."""
    have = set(passage_tokens)
    out: list[str] = []
    for a, b, found in spans(query_tokens, source, lexicon):
        if any(set(p) <= have for p in found[:per_term]):
            out += [t for t in query_tokens[a:b] if t not in have]
    return out
