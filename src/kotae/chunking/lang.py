"""Which language a piece of text is in, by counting its letters: "ja", "en", "mixed" or "other"."""

from __future__ import annotations

# A language is "substantial" when its letters make up at least this share of all letters.
MIXED_SHARE = 0.2


def _is_japanese(o: int) -> bool:
    return (
        0x3040 <= o <= 0x30FF  # hiragana, katakana (incl. ー)
        or 0x31F0 <= o <= 0x31FF  # katakana phonetic extensions
        or 0xFF66 <= o <= 0xFF9F  # half-width katakana
        or 0x4E00 <= o <= 0x9FFF  # CJK unified ideographs
        or 0x3400 <= o <= 0x4DBF  # extension A
        or 0xF900 <= o <= 0xFAFF  # compatibility ideographs
        or 0x20000 <= o <= 0x2FFFF  # extensions B and later
        or o in (0x3005, 0x3006, 0x3007)  # 々 〆 〇
    )


def _is_latin(ch: str, o: int) -> bool:
    return (
        ("a" <= ch <= "z")
        or ("A" <= ch <= "Z")
        or (0xC0 <= o <= 0x24F and ch.isalpha())  # accented Latin
        or (0xFF21 <= o <= 0xFF3A)  # full-width A-Z
        or (0xFF41 <= o <= 0xFF5A)  # full-width a-z
    )


def letter_counts(text: str) -> tuple[int, int, int]:
    """(Japanese, Latin, other) letter counts of `text`; digits, spaces and punctuation are not letters."""
    ja = latin = other = 0
    for ch in text:
        o = ord(ch)
        if o < 0x80:
            if ch.isalpha():
                latin += 1
        elif _is_japanese(o):
            ja += 1
        elif _is_latin(ch, o):
            latin += 1
        elif ch.isalpha():
            other += 1
    return ja, latin, other


def detect_lang(text: str) -> str:
    """The language of `text` by its letters.

    "ja" when kana/kanji are most letters, "en" when Latin letters are, "mixed" when each is at
    least 20% of the letters, "other" when there are no letters or another script dominates.
    """
    ja, latin, other = letter_counts(text)
    total = ja + latin + other
    if total == 0:
        return "other"
    if ja >= MIXED_SHARE * total and latin >= MIXED_SHARE * total:
        return "mixed"
    if ja * 2 > total:
        return "ja"
    if latin * 2 > total:
        return "en"
    return "other"


# Japanese grammar: a question with a particle or an inflection in hiragana is asked in Japanese, whatever Latin
# names and terms it holds (`question_lang`); the bench/README section "A question's language" measures it.
QUESTION_HIRAGANA = True


def question_lang(text: str) -> str:
    """The language a question is asked in: `detect_lang`, except that a "mixed" question holding hiragana is
    Japanese ("Aozora LabsのPCは何分操作しないと画面ロックされますか。": its Latin letters are names and terms,
    its grammar is Japanese), so it is searched, translated and gated as a Japanese question."""
    lang = detect_lang(text)
    if lang == "mixed" and QUESTION_HIRAGANA and any("\u3041" <= ch <= "\u309f" for ch in text):
        return "ja"
    return lang
