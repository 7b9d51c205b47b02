"""Text analysis for keyword search: the same analyser for documents and queries.

Japanese (any text with kana/kanji) goes through SudachiPy, SplitMode.A, normalized_form, so 支払われ
matches 支払う; Latin-script words (also inside Japanese text) are lower-cased, Snowball-stemmed and
stop words dropped; punctuation and symbols are dropped. Width is normalised (NFKC) first.
"""
from __future__ import annotations

import os
import re
import threading
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uff66-\uff9f]")
_LATIN_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_ASCII_ALNUM = re.compile(r"^[a-z0-9]+$")
# Sudachi parts of speech that carry no search meaning.
_DROP_POS = {"補助記号", "空白", "記号"}
_JA_STOP_POS = {"助詞", "助動詞"}

EN_STOP = frozenset(
    ["a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could", "did", "do", "does", "doing", "down", "during", "each", "few", "for", "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers", "herself", "him", "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "me", "more", "most", "my", "myself", "no", "nor", "not", "now", "of", "off", "on", "once", "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own", "same", "she", "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them", "themselves", "then", "there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "very", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would", "you", "your", "yours", "yourself", "yourselves", "s", "t", "don", "shall", "may", "might", "must"]
)
JA_STOP = frozenset(
    ["する", "為る", "ある", "有る", "いる", "居る", "なる", "成る", "出来る", "れる", "られる", "こと", "事", "もの", "物", "ため", "為", "よう", "様", "それ", "これ", "その", "この", "とき", "時", "ところ", "所", "どんな", "何", "なに", "いつ", "どう", "どこ", "誰", "だれ", "どの", "どれ", "どちら", "いくら", "幾ら", "いくつ", "どれくらい"]
)


@lru_cache(maxsize=1)
def _dictionary():  # type: ignore[no-untyped-def]
    from sudachipy import Dictionary

    return Dictionary()


# A Sudachi tokenizer or a Snowball stemmer must not be used by two threads at once (the server answers queries
# while its worker indexes; indexing reads ahead on a second thread): one of each per thread.
_local = threading.local()


def _sudachi():  # type: ignore[no-untyped-def]
    if not hasattr(_local, "sudachi"):
        from sudachipy import SplitMode

        _local.sudachi = _dictionary().tokenizer(SplitMode.A)
    return _local.sudachi


def _stemmer():  # type: ignore[no-untyped-def]
    if not hasattr(_local, "stemmer"):
        import Stemmer

        _local.stemmer = Stemmer.Stemmer("english")
    return _local.stemmer


def _latin_tokens(text: str) -> list[str]:
    words = [w.lower() for w in _LATIN_WORD.findall(text)]
    words = [w for w in words if w not in EN_STOP]
    return list(_stemmer().stemWords(words)) if words else []


def _japanese_tokens(text: str) -> list[str]:
    out: list[str] = []
    latin: list[str] = []
    # Sudachi's input limit is ~49 KB; analyse long text piecewise on line breaks.
    for piece in _pieces(text, 4000):
        for m in _sudachi().tokenize(piece):
            kind, token = _morpheme(m)
            if kind == "latin":
                latin.append(token)  # keep English words English (Sudachi katakanises some)
            elif kind == "ja":
                out.append(token)
    return out + _latin_tokens(" ".join(latin))


def _morpheme(m) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    """("latin", surface) for an ASCII word, ("ja", normalised form) for a content word, ("", "") to drop."""
    pos = m.part_of_speech()[0]
    if pos in _DROP_POS:
        return "", ""
    surface = m.surface()
    if _ASCII_ALNUM.match(surface.lower()):
        return "latin", surface
    if pos in _JA_STOP_POS:
        return "", ""
    form = m.normalized_form()
    if form and form not in JA_STOP and _LATIN_WORD.search(form):
        return "ja", form.lower()
    return "", ""


def _pieces(text: str, size: int) -> list[str]:
    if len(text) <= size:
        return [text]
    parts, buf = [], ""
    for line in text.splitlines(keepends=True):
        while len(line) > size:
            parts.append(line[:size])
            line = line[size:]
        if len(buf) + len(line) > size:
            parts.append(buf)
            buf = ""
        buf += line
    return parts + ([buf] if buf else [])


def analyze(text: str) -> list[str]:
    """Search tokens of `text` (documents and queries alike)."""
    text = unicodedata.normalize("NFKC", text)
    if _CJK.search(text):
        return _japanese_tokens(text)
    return _latin_tokens(text)


def words(text: str) -> list[tuple[str, list[str]]]:
    """The words of `text` as written, each with its search tokens (empty for stop words and punctuation), in
    order: what a refusal names when the documents never contain a word of the question."""
    text = unicodedata.normalize("NFKC", text)
    if not _CJK.search(text):
        return [(w, _latin_tokens(w)) for w in _LATIN_WORD.findall(text)]
    out: list[tuple[str, list[str]]] = []
    for piece in _pieces(text, 4000):
        for m in _sudachi().tokenize(piece):
            kind, token = _morpheme(m)
            out.append((m.surface(), [token] if kind == "ja" else _latin_tokens(token) if kind == "latin" else []))
    return out


def file_tokens(files: Iterable[str]) -> frozenset[str]:
    """The search tokens of files' names, folders and extension left out, separators read as spaces
    (vodafone.xlsx → vodafon; stanley-cups_2023.csv → stanley, cup, 2023; 就業規則.pdf → 就業, 規則): people name a
    document by its file ("the Vodafone figures"), which its text may never say."""
    out: set[str] = set()
    for f in files:
        stem = os.path.splitext(re.split(r"[\\/]", f)[-1])[0]
        out.update(analyze(re.sub(r"[_\-.+]+", " ", stem)))
    return frozenset(out)


# Capitalised English words that are not names of what a question is about (dates, languages, question words).
_NOT_NAMES = frozenset(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november",
     "december", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "english",
     "japanese", "ok", "faq", "q", "a", "id", "pdf", "ii", "iii", "iv"]
)
_EN_WORD = re.compile(r"[A-Za-z][A-Za-z'’]*")


def names(text: str) -> list[tuple[str, list[str]]]:
    """The proper names a question mentions, as written, each with its search tokens: runs of Sudachi's 固有名詞
    in Japanese text (フランス, 徳川家康, FIFA); in English text, runs of capitalised words past the first word
    and acronyms (France, FIFA World Cup), months, weekdays and language names aside. Text in title case (every
    word but stop words capitalised) names nothing: its capitals say nothing."""
    text = unicodedata.normalize("NFKC", text)
    runs: list[tuple[str, list[str]]] = []
    last_end = -1  # where the last name ended: a name right after it (only spaces between) continues its run

    def add(surface: str, tokens: list[str], start: int, end: int, glue: str) -> None:
        nonlocal last_end
        if runs and text[last_end:start].strip() == "":
            runs[-1] = (runs[-1][0] + glue + surface, runs[-1][1] + tokens)
        else:
            runs.append((surface, tokens))
        last_end = end

    if _CJK.search(text):
        offset = 0
        for piece in _pieces(text, 4000):
            for m in _sudachi().tokenize(piece):
                if m.part_of_speech()[1] != "固有名詞" or m.surface().lower() in _NOT_NAMES:
                    continue
                kind, token = _morpheme(m)
                tokens = [token] if kind == "ja" else _latin_tokens(token) if kind == "latin" else []
                if tokens:
                    add(m.surface(), tokens, offset + m.begin(), offset + m.end(), "")
            offset += len(piece)
        return runs
    found = list(_EN_WORD.finditer(text))
    content = [m.group() for m in found if m.group().lower() not in EN_STOP]
    if len(content) >= 2 and all(w[0].isupper() for w in content):
        return []
    for i, m in enumerate(found):
        w, start = m.group(), m.start()
        acronym = len(w) >= 2 and w.isupper()
        after_stop = text[:start].rstrip()[-1:] in (".", "?", "!", ":")
        capital = w[0].isupper() and i > 0 and not after_stop
        if not (acronym or capital) or w.lower() in EN_STOP or w.lower() in _NOT_NAMES or len(w) < 2:
            continue
        tokens = _latin_tokens(w)
        if tokens:
            add(w, tokens, start, m.end(), " ")
    return runs

