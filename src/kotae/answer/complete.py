"""Complete extractive answers: each part of the question answered, or named as what the documents lack.

Pure: candidate sentences and their scores for each part come in (kotae.answer.ask embeds and scores them).
A part is
- "answered" by its best sentences; when it asks for a kind of expression (checks.asked_type: an amount, a
  rate, a time, a number, a date) the sentences holding one come first, and one must be among those scoring
  within extractive.CLOSE_RATIO of the best (runners-up further down are quoted, not counted); a
  sentence holding the finer expression asked (checks.asked_detail: a deadline, a person) is preferred;
- "blank" when what answers it is a form field left blank (「支給額：月額　　円」): reported as blank, never
  as a value;
- "missing" when no sentence holds what it asks for, or (for a second or later part) most of its words occur
  nowhere in the documents.
An answer is "complete" when every part is answered, "blank" when every part is blank, else "partial" with
the missing parts named.
"""
from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from kotae.answer import checks, extractive
from kotae.answer.extractive import CLOSE_RATIO, LEAD_IN, Candidate, pick
from kotae.search.analyze import analyze
from kotae.search.gate import ASKING

TYPE_BONUS = 0.1  # a sentence holding the asked kind of expression outranks one that does not, at near-equal scores
KEY_BONUS = 0.1  # a list's item or a table's row holding the key the question names (checks.keys: 「3年6か月」,
# "EX-203"): the key selects a row, not a sentence that happens to say 「2週間」 too (bench/answers.py --constant
# kotae.answer.complete.KEY_BONUS=0)
DETAIL_BONUS = 0.05  # one holding the finer expression asked (a deadline, a person)
LIST_BONUS = 0.05  # for a question asking for several things, a sentence that introduces a list does
ABSENT_SHARE = 0.5  # a later part whose words are mostly absent from the documents is missing
# a sentence that introduces a list (「次の割増率により…支払う。」) holds the asked kind when its items do: quoted, it
# comes with them (extractive.with_items), so the rates answer 「休日に出勤したら割増率は？」 from the lead-in on
TYPED_ITEMS = True

__all__ = ["Composed", "Part", "answer_part", "compose", "repeats"]


@dataclass(frozen=True)
class Part:
    text: str
    kind: str | None
    status: str  # "answered" | "blank" | "missing"
    chosen: tuple[Candidate, ...] = ()
    blank: Candidate | None = None  # the blank form field, when status is "blank"
    label: str = ""  # that field's label
    absent: tuple[str, ...] = ()  # words of the part no document contains


def answer_part(text: str, cands: Sequence[Candidate], scores: np.ndarray, tokens: Sequence[str],
                cand_tokens: Sequence[Sequence[str]], *, first: bool = True, absent: Sequence[str] = (),
                absent_share: float = 0.0) -> Part:
    """One part of the question (`tokens`: its search tokens) against the candidate sentences scored for it.

    A blank form field answers the part when it scores best, or when its label's words are all words of the
    part and no filled sentence that holds those words also holds what the part asks for."""
    kind = checks.asked_type(text)
    unit = checks.asked_unit(text) if kind == "number" else None
    if not first and absent and absent_share >= ABSENT_SHARE:
        return Part(text, kind, "missing", absent=tuple(absent))
    if not len(cands):
        return Part(text, kind, "missing")
    labels = [checks.blank_field(c.text) for c in cands]
    typed = np.array([kind is not None and checks.holds(c.text, kind, unit) for c in cands])
    if kind is not None and TYPED_ITEMS:
        typed = typed | np.array([not typed[i] and bool(LEAD_IN.search(c.text))
                                  and any(checks.holds(x.text, kind, unit) for x in extractive.items_of(c, cands))
                                  for i, c in enumerate(cands)], dtype=bool)
    lead_in = np.array([bool(LEAD_IN.search(c.text)) for c in cands]) if checks.asks_list(text) else 0.0
    detail = checks.asked_detail(text)
    detailed = np.array([detail is not None and bool(detail.search(unicodedata.normalize("NFKC", c.text)))
                         for c in cands])
    asked_keys = checks.keys(text) if KEY_BONUS > 0 else []
    keyed = np.array([bool(extractive.ITEM.match(c.text) or extractive.ROW.search(c.text))
                      and checks.holds_key(c.text, asked_keys) for c in cands]) if asked_keys else 0.0
    adjusted = scores + TYPE_BONUS * typed + LIST_BONUS * lead_in + DETAIL_BONUS * detailed + KEY_BONUS * keyed
    filled = [i for i, lab in enumerate(labels) if not lab]
    blank = [i for i, lab in enumerate(labels) if lab]
    best_filled = max((adjusted[i] for i in filled), default=-np.inf)
    top = max(blank, key=lambda i: scores[i], default=None)
    if top is not None and scores[top] >= best_filled:
        return Part(text, kind, "blank", blank=cands[top], label=labels[top] or "")
    # a later part ("…, and how much is it for domestic trips?") is answered only by a sentence holding one of its
    # own words: its context words were said in the part before, so a sentence without any is about something else;
    # the words that only ask (何日 of 「何日かかるか」, 教えてください) are no such words
    about = _topic(text, kind) if not first else set(tokens)
    holding = {cands[i] for i in filled if typed[i] and (first or not about or about & set(cand_tokens[i]))}
    chosen = pick([cands[i] for i in filled], adjusted[filled], first=holding.__contains__ if kind else None)
    index = {c: i for i, c in enumerate(cands)}
    chosen = extractive.follow_on(chosen, cands, lambda c: extractive.novelty(cand_tokens[index[c]], tokens))
    sure = set(pick([cands[i] for i in filled], adjusted[filled], keep_ratio=CLOSE_RATIO))
    givers = [(scores[i], cand_tokens[i]) for i in filled if kind is None or typed[i]]
    named = _named_blank(blank, labels, scores, set(tokens), givers)
    given = [cand_tokens[i] for i in filled if cands[i] in sure and cands[i] in holding]
    # a chosen amount answers, unless the question names a blank field and no chosen amount mentions that field
    # (about the same thing: `_same_topic`)
    field = set(analyze(labels[named] or "")) if named is not None else set()
    mentions = named is None or any(field & set(t) and _same_topic(set(t), set(tokens) - field) for t in given)
    if given and mentions:
        return Part(text, kind, "answered", chosen=tuple(chosen))
    if named is not None:  # a form's blank field named by the question, whose value no chosen sentence mentions
        return Part(text, kind, "blank", blank=cands[named], label=labels[named] or "")
    if kind is not None or not chosen:
        return Part(text, kind, "missing", chosen=tuple(chosen))
    return Part(text, kind, "answered", chosen=tuple(chosen))


def _topic(text: str, kind: str | None) -> set[str]:
    """The search tokens of a question part without its asking words: the question word of the asked kind (何日,
    いくら, how many) and the request words (教えて, ください)."""
    asked = checks.without_asking(text)
    if kind is not None:
        asked = checks.TYPES[kind][0].sub(" ", unicodedata.normalize("NFKC", asked))
    return set(analyze(asked)) - ASKING


def _named_blank(blank: Sequence[int], labels: Sequence[str | None], scores: np.ndarray, asked: set[str],
                 givers: Sequence[tuple[float, Sequence[str]]]) -> int | None:
    """The best-scored blank field whose label's words are all words of the part, when no filled sentence that
    could give its value (`givers`: score and tokens of those holding the asked kind of expression) holds all
    of them and scores above it."""
    for i in sorted(blank, key=lambda i: -scores[i]):
        terms = set(analyze(labels[i] or ""))
        if terms and terms <= asked and not any(sc >= scores[i] and terms <= set(t) and _same_topic(set(t), asked - terms)
                                                for sc, t in givers):
            return i
    return None


# A filled sentence gives a named blank field's value only when it is about what the question is about besides the
# field: "approval: 部長" in an expense code's row does not say who approved the equipment loan ("Approved by: ____").
BLANK_SAME_TOPIC = True  # bench/trust.py; bench/answers.py --constant kotae.answer.complete.BLANK_SAME_TOPIC=false


def _same_topic(held: set[str], about: set[str]) -> bool:
    """Whether a sentence's tokens `held` include one of the question's words `about` (those beside the blank
    field's label); true when the question has none."""
    return not BLANK_SAME_TOPIC or not (about - ASKING) or bool(held & (about - ASKING))


@dataclass(frozen=True)
class Composed:
    sentences: tuple[Candidate, ...]  # cited answer sentences, in answer order
    notes: tuple[tuple[str, int | None], ...]  # (sentence, source index it cites or None), after the sentences
    completeness: str  # "complete" | "partial" | "blank"
    missing: tuple[str, ...]  # what the documents lack, in plain words


def compose(answered: Sequence[Part], lang: str) -> Composed:
    """The answer from its parts: answered parts' sentences, then a note for each blank or missing part.

    A missing part with no answered part beside it still shows its closest sentences (marked partial): the
    documents' nearest words help more than a bare refusal, and the note says what they do not contain."""
    ja = lang in ("ja", "mixed")
    sentences: list[Candidate] = []
    notes: list[tuple[str, int | None]] = []
    missing: list[str] = []
    ok = [p for p in answered if p.status == "answered"]
    for p in answered:
        if p.status == "answered" or (p.status == "missing" and not ok and p.chosen):
            for c in p.chosen:
                if c not in sentences and not repeats(c.text, [x.text for x in sentences]):
                    sentences.append(c)
        if p.status == "blank" and p.blank is not None:
            notes.append((_blank_note(p.label, ja), p.blank.source))
            missing.append(f"{p.label}（空欄）" if ja else f"{p.label}: blank")
        elif p.status == "missing":
            notes.append((_missing_note(p, ja), None))
            missing.append(", ".join(p.absent) if p.absent else p.text)
    if not missing:
        completeness = "complete"
    elif all(p.status == "blank" for p in answered):
        completeness = "blank"
    else:
        completeness = "partial"
    return Composed(tuple(sentences), tuple(notes), completeness, tuple(missing))


REPEAT_CHARS = 12  # a sentence at least this long, said again inside another (or holding it), is quoted once


def _plain(text: str) -> str:
    """Text as compared for repeats: NFKC, markdown's backslash escapes gone, whitespace collapsed, lower case."""
    return " ".join(unicodedata.normalize("NFKC", text).replace("\\", "").split()).lower()


def repeats(text: str, said: Sequence[str]) -> bool:
    """Whether `text` says again what one of `said` says (one holds the other, the shorter at least REPEAT_CHARS):
    the same passage indexed twice (a PDF and its Word or Markdown copy) gives the same sentence twice."""
    t = _plain(text)
    for other in map(_plain, said):
        short, long = (t, other) if len(t) <= len(other) else (other, t)
        if len(short) >= REPEAT_CHARS and short in long:
            return True
    return False


def _blank_note(label: str, ja: bool) -> str:
    if ja:
        return f"「{label}」の欄は空欄です（記入用の様式で、値は書かれていません）。"
    return f"“{label}” is left blank in the document (a form to fill in); it gives no value."


def _missing_note(p: Part, ja: bool) -> str:
    if p.absent:
        if ja:
            return "資料には" + "".join(f"「{w}」" for w in p.absent) + "についての記載がありません。"
        return "The documents never mention " + ", ".join(f"“{w}”" for w in p.absent) + "."
    text = p.text.rstrip("?？。.!！ ")
    if ja:
        return f"資料には「{text}」に答える記載が見つかりません。"
    return f"The documents do not answer “{text}”."
