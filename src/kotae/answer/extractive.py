"""Extractive answers: the sentences of the top passages that best answer the question.

A sentence's score is its cosine similarity to the question (e5 query vs passage) plus a bonus for the
IDF-weighted share of the question's content words it contains and a smaller one for the share of its own words
that are not the question's (a sentence that only restates the question says nothing); a small prior favours
better-ranked passages. The weights were fitted on the answer sets' fit halves (bench/answer_weights.py). Pure: vectors and token statistics come in as arguments.
"""
from __future__ import annotations

import itertools
import math
import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from kotae.chunking import split_sentences
from kotae.ingest.headings import heading_of, is_caption, is_structural

if TYPE_CHECKING:
    from kotae.search.rerank import Reranker

KEYWORD_WEIGHT = 0.15
NOVELTY_WEIGHT = 0.05
SYNONYM_CREDIT = 0.5  # a question word found in a sentence only as a synonym (ゴルフ for "golf") counts half
RANK_PRIOR = 0.01  # per rank step; breaks near-ties in favour of the better passage
MIN_CHARS = 6
KEEP_RATIO = 0.92  # a runner-up sentence scoring within this ratio of the best is quoted too (`pick`)…
CLOSE_RATIO = 0.97  # …after those within this one (near-equal to the best), which come in reading order


_CJK = "\u3000-\u30ff\u3400-\u9fff\uff00-\uffef"
_CJK_BREAK = re.compile(f"(?<=[{_CJK}])\\s*\\n\\s*(?=[{_CJK}])")
_CJK_CHAR = re.compile(f"[{_CJK}]")
_ENDS_LINE = "。．）」』】"  # a line ending so (a sentence, a heading like 第10条（賃金）) is not wrapped
_HYPHEN_BREAK = re.compile(r"(?<=[a-z])-\n(?=[a-z])")
_STARTS_ITEM = "#（(・•●○■□◆◇※①②③④⑤⑥⑦⑧⑨⑩第"  # a line starting so is a new item or heading, not a wrap


def tidy(text: str) -> str:
    """One line for display: PDF line breaks inside Japanese vanish, others become one space."""
    return " ".join(_CJK_BREAK.sub("", text).split())


def unwrap(text: str, heading: Sequence[str] = ()) -> str:
    """A passage for a prompt: lines kept (lists stay lists), wrapped Japanese lines joined, blank lines
    and lines that only repeat the heading path (Markdown `## Remote work`) dropped."""
    heads = {" ".join(h.split()) for h in heading}
    out: list[str] = []
    for line in text.splitlines():
        line = " ".join(line.split())
        if not line or line.lstrip("#").strip() in heads:
            continue
        wrapped = (out and not out[-1].startswith("#") and line[0] not in _STARTS_ITEM
                   and out[-1][-1] not in _ENDS_LINE and _CJK_CHAR.match(out[-1][-1]) and _CJK_CHAR.match(line[0]))
        if wrapped:
            out[-1] += line
        else:
            out.append(line)
    return "\n".join(out)


# an FAQ's answer marker opening a Japanese sentence (「A. 従業員用のSSIDは…」, 「A. PCと…」): part of the sentence as
# scored, not of the answer ("A. Smith said so." is English and keeps it)
_ANSWER_MARK = re.compile(r"^[AＡ][.．:：]\s*(?=\S)")


def shown(sentence: str) -> str:
    """A quoted sentence as the answer shows it: without an FAQ's answer marker ("A. ") before Japanese text."""
    return _ANSWER_MARK.sub("", sentence) if _CJK_CHAR.search(sentence) else sentence


EXCERPT_CHARS = 400


def readable(text: str, heading: Sequence[str] = ()) -> str:
    """A passage as a person reads it (the UI's source panel, the API's hits): `unwrap`ped, so a word a PDF
    broke across lines is whole again (「支\n払う」 → 「支払う」, "employ-\nees" → "employees") while list items
    keep their own lines."""
    return _HYPHEN_BREAK.sub("", unwrap(text, heading))


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    """A source's passage as shown under the answer: tidied, cut at `limit` characters."""
    text = tidy(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True)
class Candidate:
    text: str
    source: int  # index into the hits (0-based)
    start: int  # offset inside the hit's chunk text
    end: int = -1  # where the sentence ends in that text (-1: not known)


# Latin-script only: wrapped Japanese lines also lack final punctuation, and Japanese headings are
# recognised by the readers (第N条 …) before they get here.
_TITLE_LINE = re.compile(r"^[^\n.!?。！？:：,、\u3000-\u9fff\uff00-\uffef]{1,60}\n(?=[A-Z0-9\"“])")


def _drop_title_lines(sentence: str) -> str:
    """Drop short leading lines without final punctuation that a sentence swallowed from a PDF
    ("Meal allowance\nThe daily meal allowance is …" → "The daily meal allowance is …")."""
    while True:
        m = _TITLE_LINE.match(sentence)
        if not m or len(m.group(0).split()) > 8 or len(sentence) - m.end() < MIN_CHARS:
            return sentence
        sentence = sentence[m.end():]


# a counter after the number means the number is part of the sentence (「2 名以上」), not a clause number
_COUNTERS = "名人日年月回件時分秒円社個週歳割倍%％か箇ヶカ枚台部冊号条項"
# (an ideographic space after the number marks a clause whatever follows: 「3　年次有給休暇は…」, 「3　36協定に…」)
_CLAUSE_NUMBER = re.compile(f"^[0-9０-９]{{1,2}}(?:\u3000[ \u3000]*(?=[0-9０-９]*[{_CJK}])|[ ]+(?![{_COUNTERS}])(?=[{_CJK}]))")


def _heading_only(line: str) -> bool:
    """Whether `line` is an article's or chapter's heading and nothing else (第31条（基本給）, 第7章 安全衛生): alone it
    is no answer (a heading of the passage's own path is left out already)."""
    if not is_structural(line):  # 「2. 自宅から最寄り駅までの経路図」 reads as a numbered English heading: a list item
        return False
    found = heading_of(line)
    return found is not None and " ".join(found[1].split()) == " ".join(line.split())


def _clause_number(sentence: str) -> str:
    """Drop a Japanese clause number that opens a sentence (「2 前項の…」 → 「前項の…」): in an answer it reads as
    a stray digit."""
    return _CLAUSE_NUMBER.sub("", sentence)


# a sentence that ends inside brackets (「検査（以下「ストレスチェック」という。）」) goes on with a particle
_GOES_ON = re.compile(r"^[をにがはとのでもへや]")


def _spans(text: str, table: bool = False) -> list[tuple[int, int]]:
    """Sentence spans, with a sentence cut at 。 inside brackets or a list
    item wrapped onto the next line (「…転換できない等、\n就業に適さないとき」) rejoined; in prose, a table's row ("column:
    value | …", `ROW`: a table brought by its lead-in) is one span, whatever stops it holds. A `table`'s own passage is
    read as sentences: rows that end in no stop run together, and a statement's chunk is quoted whole (a question
    asking for several rows gets them all; rows one by one answered fewer 10-Q questions)."""
    if table or not (TABLE_ROWS and ROW.search(text)):
        return _sentence_spans(text)
    out: list[tuple[int, int]] = []
    prose = 0  # where the text since the last row begins
    for a, b in _lines(text):
        if ROW.search(text[a:b]):
            out += [(prose + x, prose + y) for x, y in _sentence_spans(text[prose:a])]
            lead = len(text[a:b]) - len(text[a:b].lstrip())
            out.append((a + lead, a + len(text[a:b].rstrip())))
            prose = b
    return out + [(prose + x, prose + y) for x, y in _sentence_spans(text[prose:])]


def _sentence_spans(text: str) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for a, b in split_sentences(text):
        if out and _GOES_ON.match(text[a:b]) and text[out[-1][1] - 1] in "）)」』":
            out[-1] = (out[-1][0], b)
            continue
        prev = text[out[-1][0]:out[-1][1]] if out else ""
        if (prev and ITEM.match(prev) and prev[-1] not in _ENDS_LINE + ".:：" and not ITEM.match(text[a:b])
                and not _CLAUSE_NUMBER.match(text[a:b])  # 「3　年次有給休暇は…」 after the last item opens a clause
                and not is_structural(text[a:b])  # and 「第31条（基本給）」 an article
                and text[out[-1][1]:a].count("\n") == 1 and _CJK_CHAR.match(prev[-1])):  # an item wrapped by a PDF
            out[-1] = (out[-1][0], b)
            continue
        out.append((a, b))
    return out


def candidates(passages: Sequence[str], headings: Sequence[Sequence[str]] = (),
               limit_per_passage: int = 16, records: Sequence[bool] = (),
               tables: Sequence[bool] = ()) -> list[Candidate]:
    """Sentences of each passage; heading lines and fragments left out. A passage of records (`records`: a
    spreadsheet's or CSV's rows, one a line, each about its own thing) gives one candidate a row; a table's own
    passage (`tables`) is read as sentences (`_spans`)."""
    out: list[Candidate] = []
    for i, text in enumerate(passages):
        heads = {tidy(h) for h in (headings[i] if i < len(headings) else ())}
        record = i < len(records) and records[i]
        spans = _lines(text) if record else _spans(text, i < len(tables) and tables[i])
        sents = [(a, b, tidy(_clause_number(_drop_title_lines(text[a:b])))) for a, b in spans]
        titles = {a for (a, _, t), (_, _, nxt) in itertools.pairwise(sents)
                  if LIST_TITLES and list_title(t, nxt)}
        sents = [(a, b, t) for a, b, t in sents
                 if (len(t) >= MIN_CHARS or a in titles) and not t.startswith("#") and t.strip() not in heads
                 and not _heading_only(t)]
        out += [Candidate(t, i, a, b) for a, b, t in sents[:max(limit_per_passage, RECORD_LIMIT) if record
                                                           else limit_per_passage]]
    return out


RECORD_LIMIT = 64  # rows of one record passage that become candidates (a chunk packs short rows by the dozen)


def _lines(text: str) -> list[tuple[int, int]]:
    """The spans of a text's non-blank lines."""
    out, at = [], 0
    for line in text.split("\n"):
        if line.strip():
            out.append((at, at + len(line)))
        at += len(line) + 1
    return out


def score(query_vec: np.ndarray, sentence_vecs: np.ndarray, query_tokens: Sequence[str],
          sentence_tokens: Sequence[Sequence[str]], sources: Sequence[int], df: Mapping[str, int],
          n_chunks: int, query_groups: Mapping[str, frozenset[int]] | None = None,
          sentence_groups: Sequence[frozenset[int]] | None = None) -> np.ndarray:
    """Cosine plus KEYWORD_WEIGHT × the IDF-weighted share of the question's words the sentence holds (a word
    the sentence holds only through its synonym group — `query_groups`: the groups of each question word,
    `sentence_groups`: those of each sentence's entries — counts SYNONYM_CREDIT of it) plus NOVELTY_WEIGHT × its
    `novelty`, less RANK_PRIOR per passage rank."""
    sims, held, synonym = score_terms(query_vec, sentence_vecs, query_tokens, sentence_tokens, df, n_chunks,
                                      query_groups, sentence_groups)
    novel = np.array([novelty(toks, query_tokens) for toks in sentence_tokens])
    return (sims + KEYWORD_WEIGHT * (held + SYNONYM_CREDIT * synonym) + NOVELTY_WEIGHT * novel
            - RANK_PRIOR * np.asarray(sources, dtype=float))


def novelty(sentence_tokens: Sequence[str], query_tokens: Sequence[str]) -> float:
    """The share of a sentence's distinct words that are not the question's: a caption or title that only restates
    the question ("Figure 3-5 Special registers and adopted authority") says nothing new."""
    own = set(sentence_tokens)
    return len(own - set(query_tokens)) / len(own) if own else 0.0


# A chosen sentence that mostly restates the question (「再現率は十分ではない。」 for 再現率がいまいちなのはなんで？, "The
# word processor … changed culture." for "How did word processors change who can publish?") is followed in the answer
# by the sentence right after it in its passage, which is where such a passage says why, how or how much.
FOLLOW_NOVELTY = 0.5  # …when at most half of its distinct words are not the question's (0: never; bench/answers.py)
FOLLOW_GAP = 1  # "right after": at most one character between the two (a space or a line break; a blank line is a new paragraph)
# A sentence's proviso comes with it, whatever its words: 「賞与は7月及び12月に支給する。ただし、…支給しないことがある。」
# quoted without its ただし sentence says more than the rules do (bench/answers.py, PROVISOS column).
PROVISOS = True
PROVISO = re.compile(r"^\s*(?:(?:ただし|但し)(?!書)|もっとも、|Otherwise|However,|Except |Unless |This does not apply)")


def follow_on(chosen: Sequence[Candidate], cands: Sequence[Candidate],
              novelty_of: Callable[[Candidate], float]) -> list[Candidate]:
    """`chosen` with, right after each sentence that restates the question (its `novelty` at most FOLLOW_NOVELTY),
    or after the first when its proviso follows it (`PROVISO`: ただし…, Otherwise…; a runner-up's would only
    lengthen what is not the answer), and that announces no list or table (its items come with it anyway), the sentence
    that follows it in its passage, unless that one is chosen already or is a noise line."""
    out: list[Candidate] = []
    for i, c in enumerate(chosen):
        if c in out:
            continue
        out.append(c)
        if c.end < 0 or LEAD_IN.search(c.text) or (names_table(c.text) and items_of(c, cands)):
            continue
        nxt = [x for x in cands if x.source == c.source and c.end <= x.start <= c.end + FOLLOW_GAP]
        proviso = i == 0 and bool(nxt) and PROVISOS and bool(PROVISO.match(nxt[0].text))
        if not proviso and novelty_of(c) > FOLLOW_NOVELTY:
            continue
        if nxt and nxt[0] not in chosen and nxt[0] not in out and not noise(nxt[0].text):
            out.append(nxt[0])
    return out


def score_terms(query_vec: np.ndarray, sentence_vecs: np.ndarray, query_tokens: Sequence[str],
                sentence_tokens: Sequence[Sequence[str]], df: Mapping[str, int], n_chunks: int,
                query_groups: Mapping[str, frozenset[int]] | None = None,
                sentence_groups: Sequence[frozenset[int]] | None = None,
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What `score` weighs, per sentence: the cosine, the IDF-weighted share of the question's words it holds, and
    the share it holds only through a synonym group."""
    sims = sentence_vecs @ query_vec if len(sentence_vecs) else np.zeros(0)
    terms = set(query_tokens)
    idf = {t: math.log(1 + (n_chunks + 1) / (df.get(t, 0) + 0.5)) for t in terms}
    total = sum(idf.values()) or 1.0
    qg = query_groups or {}
    held = np.zeros(len(sentence_tokens))
    synonym = np.zeros(len(sentence_tokens))
    for i, toks in enumerate(sentence_tokens):
        found = terms & set(toks)
        sg = sentence_groups[i] if sentence_groups is not None else frozenset()
        held[i] = sum(idf[t] for t in found) / total
        synonym[i] = sum(idf[t] for t in terms - found if qg.get(t, frozenset()) & sg) / total
    return sims, held, synonym


NOISE_PENALTY = 0.1  # a sentence score is a cosine (~0.8–0.95) plus a keyword share: this puts a noise line last
_LEADERS = re.compile(r"(?:[.．·・…‥]\s?){4,}")
_FIGURE = re.compile(r"[-+−]?[\d.,]+%?")


def noise(text: str) -> bool:
    """A line that is no sentence, read out of a page's graphics or navigation: a chart's axis ticks ("0 0.2 0.4
    0.6 0.8 1 0.1 0.2 …": eight figures or more, three fifths of its words or more; a statement's row of six
    quarters' figures is not one) or a table of contents' dot leaders (a third of its characters or more). A
    table row rendered "column: value | …" is neither."""
    words = text.split()
    figures = sum(bool(_FIGURE.fullmatch(w)) for w in words)
    if figures >= 8 and 5 * figures >= 3 * len(words):
        return True
    visible = sum(not c.isspace() for c in text)
    leaders = sum(sum(not c.isspace() for c in m.group()) for m in _LEADERS.finditer(text))
    return visible > 0 and 3 * leaders >= visible


CAPTION_PENALTY = 0.05  # a figure's or table's caption is quoted only when nothing else scores near it (bench/answers.py)
_ASKS_FIGURE = re.compile(r"\b(?:figure|fig|table|chart|exhibit|diagram|listing)s?\b|[図表]", re.IGNORECASE)


def caption(text: str) -> bool:
    """Whether a sentence is a figure's or table's caption: it names what a figure shows, it does not say it."""
    return is_caption(text)


def asks_figure(question: str) -> bool:
    """Whether a question asks about a figure or table itself (then its caption may answer)."""
    return bool(_ASKS_FIGURE.search(question))


def translated_cosine(scores: np.ndarray, sentence_vecs: np.ndarray, query_vec: np.ndarray,
                      translation_vec: np.ndarray, weight: float, other: np.ndarray) -> np.ndarray:
    """`scores` with the cosine part of each sentence in the corpus' other language (`other`) taken against the
    question's vector plus `weight` × its translated words' (normalised), as the dense search ranks those
    chunks (`search.translation_dense`): e5 rates a question's own language higher, so an English question
    otherwise quotes an English sentence of a lower passage over the Japanese one that answers it."""
    mixed = query_vec + weight * translation_vec
    mixed = mixed / (np.linalg.norm(mixed) or 1.0)
    lift = np.where(other, sentence_vecs @ mixed - sentence_vecs @ query_vec, 0.0) if len(sentence_vecs) else 0.0
    return scores + lift


def reranked(scores: np.ndarray, texts: Sequence[str], question: str, reranker: Reranker, weight: float,
             pool: int) -> np.ndarray:
    """`scores` plus `weight` × the softmax of a cross-encoder's scores over the `pool` best-scored sentences:
    the question and each sentence read together, which picks the sentence that answers over one that restates
    the question's words."""
    if weight <= 0 or not len(scores):
        return scores
    top = np.argsort(-scores, kind="stable")[:pool]
    ce = np.asarray(reranker.score(question, [texts[i] for i in top]), dtype=float)
    p = np.exp(ce - ce.max())
    out = scores.astype(float).copy()
    out[top] += weight * p / p.sum()
    return out


def pick(cands: Sequence[Candidate], scores: np.ndarray, max_sentences: int = 2,
         keep_ratio: float | None = None, first: Callable[[Candidate], bool] | None = None) -> list[Candidate]:
    """The best sentence, plus runners-up scoring within `keep_ratio` (default KEEP_RATIO) of it: those within
    CLOSE_RATIO in reading order, then the others (and, before all, those for which `first` holds, e.g. the ones
    holding the asked amount); a sentence that introduces a list (次の…/以下の…/as follows/:) comes with its items,
    and an item chosen first comes after its list's lead-in (`lead_in_of`).
    A sentence that repeats a chosen one (the same letters and digits: the same line in two passages, or in a PDF
    and its DOCX copy) is left out."""
    if not len(cands):
        return []
    keep = KEEP_RATIO if keep_ratio is None else keep_ratio
    order = np.argsort(-scores, kind="stable")
    best = scores[order[0]]
    chosen: list[Candidate] = []
    close: set[Candidate] = set()
    seen: set[str] = set()
    for i in order:
        if len(chosen) == max_sentences or scores[i] < best * keep:
            break
        said = _said(cands[i].text)
        if said not in seen:
            seen.add(said)
            chosen.append(cands[i])
            if scores[i] >= best * CLOSE_RATIO:
                close.add(cands[i])
    ordered = sorted(chosen, key=lambda c: (first is not None and not first(c), c not in close, c.source, c.start))
    lead = lead_in_of(ordered[0], cands) if ITEM_LEAD_IN and ordered else None
    if lead is not None and lead not in ordered:  # the list's lead-in before it, not its other items
        return [lead, *with_items(ordered, cands)]
    return with_items(ordered, cands)


# An item quoted first comes after its list's lead-in: 「（4）配偶者、子又は父母が死亡したとき 5日」 alone does not say
# what the 5 days are (bench/answers.py --constant kotae.answer.extractive.ITEM_LEAD_IN=false)
ITEM_LEAD_IN = True


def lead_in_of(item: Candidate, cands: Sequence[Candidate]) -> Candidate | None:
    """The sentence that introduces the list `item` belongs to (a LEAD_IN sentence right before its run of items in
    the same passage), or None when `item` is no item or its list has no lead-in among `cands`."""
    if not ITEM.match(item.text):
        return None
    before = sorted((x for x in cands if x.source == item.source and x.start < item.start), key=lambda x: -x.start)
    for x in before[:MAX_ITEMS]:
        if ITEM.match(x.text):
            continue
        return x if LEAD_IN.search(x.text) else None
    return None


def said(text: str) -> str:
    """What a text says, its letters and digits alone (`_said`)."""
    return _said(tidy(text))


def _said(text: str) -> str:
    """What a sentence says, for telling repeats apart: its letters and digits alone (the same line in a PDF and
    in its DOCX copy differs in a dash, a quote or a space)."""
    return _NOT_WORD.sub("", unicodedata.normalize("NFKC", text)).lower()


_NOT_WORD = re.compile(r"[\W_]+")


# A sentence that announces what follows, and the lines that are its items.
LEAD_IN = re.compile(r"(次の|以下の|下記の?|左記の?|次に掲げる|as follows|the following)|[:：]\s*$", re.IGNORECASE)
ITEM = re.compile(r"^\s*(?:[（(]\s*(?:[0-9０-９]{1,2}|[a-zA-Zア-ン一二三四五六七八九十]{1,2})\s*[）)]|[0-9０-９]{1,2}[.)．）]\s"
                  r"|[①-⑳]|[・•●○■□◆◇▪‐\-–*]\s?)")
MAX_ITEMS = 8
# A sentence naming a table, or a lead-in, over the table's rows (each "column: value | column: value", as the readers
# render them) comes with the rows as with a list's items: bench/answers.py --constant kotae.answer.extractive.TABLE_ROWS=false
TABLE_ROWS = True
TABLE_NAMED = re.compile(r"\b(?:Table|Tab\.)\s+[A-Z]?\d+(?:[-.]\d+)*\b|表\s*[0-9０-９]+(?:[-‐－.．][0-9０-９]+)*(?![0-9０-９])")
ROW = re.compile(r"\S \| \S")


# A slide's or a document's title line over a bulleted list (「今後の課題」 over 「• 類似度の計算方法の改善 …」) introduces
# the list as a lead-in sentence does: quoted, it comes with its items (bench/answers.py, LIST_TITLES column).
LIST_TITLES = True
LIST_TITLE_CHARS = 40  # longer lines without a sentence ending are wrapped text, not titles


def list_title(line: str, following: str) -> bool:
    """Whether `line`, followed by `following`, is the title of a list: a short line that is no item and no
    sentence (no final punctuation), over a line that is an item."""
    line = line.strip()
    return (0 < len(line) <= LIST_TITLE_CHARS and line[-1] not in _ENDS_LINE + ".!?！？、,"
            and not ITEM.match(line) and bool(ITEM.match(following)) and not LEAD_IN.search(line))


def _titles(c: Candidate, cands: Sequence[Candidate]) -> bool:
    """Whether `c` is a list's title (`list_title`) directly over its first item."""
    if not LIST_TITLES:
        return False
    after = _following(c, cands)
    return bool(after) and list_title(c.text, after[0].text)


def with_items(chosen: Sequence[Candidate], cands: Sequence[Candidate]) -> list[Candidate]:
    """`chosen` with, after each lead-in sentence (and after the first chosen, when it is a list's title), the item
    sentences that follow it in its passage (an item chosen for itself comes after its lead-in too, not before
    it). A runner-up title is left out: alone it says nothing, and another slide's list is not what was asked."""
    items = {c: items_of(c, cands) for i, c in enumerate(chosen)
             if LEAD_IN.search(c.text) or (i == 0 and _titles(c, cands)) or names_table(c.text)}
    owned = {x for run in items.values() for x in run}
    owned |= {cap for c, run in items.items() if run and (cap := _caption_over(c, cands)) is not None}  # said already
    out: list[Candidate] = []
    for i, c in enumerate(chosen):
        if c in out or (c in owned and c not in items) or (i > 0 and c not in items and _titles(c, cands)):
            continue
        out.append(c)
        out += [x for x in items.get(c, ()) if x not in out]
    return out


def items_of(lead_in: Candidate, cands: Sequence[Candidate]) -> list[Candidate]:
    """The item sentences right after `lead_in` in its passage (up to MAX_ITEMS), or the table rows ("column: value
    | …") there, a caption between passed over."""
    after = _following(lead_in, cands)
    if _caption_over(lead_in, cands, after) is not None:
        after = after[1:]
    rows = TABLE_ROWS and bool(after) and bool(ROW.search(after[0].text)) and not ITEM.match(after[0].text)
    run = []
    for x in after[:MAX_ITEMS]:
        if not (ROW.search(x.text) if rows else ITEM.match(x.text)):
            break
        run.append(x)
    return run


def _following(c: Candidate, cands: Sequence[Candidate]) -> list[Candidate]:
    """The candidates after `c` in its passage, in reading order."""
    return sorted((x for x in cands if x.source == c.source and x.start > c.start), key=lambda x: x.start)


def _caption_over(lead_in: Candidate, cands: Sequence[Candidate],
                  after: Sequence[Candidate] | None = None) -> Candidate | None:
    """The table caption right after `lead_in` in its passage (`after`: the candidates following it, when known),
    over the table's first row, or None."""
    after = _following(lead_in, cands) if after is None else after
    if TABLE_ROWS and len(after) > 1 and caption(after[0].text) and ROW.search(after[1].text):
        return after[0]
    return None


def rows_only(text: str) -> bool:
    """Whether a passage is a table's own: every line but a title line over them is a row ("column: value | …")."""
    lines = [x for x in text.split("\n") if x.strip()]
    return bool(lines) and all(ROW.search(x) for x in lines[1:] or lines)


def names_table(sentence: str) -> bool:
    """Whether a sentence names a table ("Table 2-1 describes the columns…", 「表1のとおり」): followed by the table's
    rows, it introduces them as a lead-in does."""
    return TABLE_ROWS and bool(TABLE_NAMED.search(sentence))
