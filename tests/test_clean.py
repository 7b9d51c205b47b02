"""The pure cleaning passes of kotae.ingest.clean, on Japanese and English text."""

from __future__ import annotations

import pytest

from kotae.ingest import clean
from kotae.ingest.headings import classify_lines, heading_of

# --- line endings, control characters, spaces -------------------------------------------------


def test_normalize_newlines_turns_crlf_and_cr_into_lf():
    assert clean.normalize_newlines("第1条\r\n本文\rEnd\n") == "第1条\n本文\nEnd\n"
    assert clean.normalize_newlines("") == ""


def test_remove_control_chars_keeps_tab_and_newline():
    text = "日本\x00語\x07の\tテキスト\nline\x1b two\x7f\x85\ufeff"
    assert clean.remove_control_chars(text) == "日本語の\tテキスト\nline two"


def test_remove_control_chars_turns_form_feed_into_a_line_break():
    assert clean.remove_control_chars("page one\fpage two") == "page one\npage two"


def test_mark_line_end_hyphens_restores_pdfium_marker_and_soft_hyphens():
    assert clean.mark_line_end_hyphens("inter\ufffenational") == "inter-\nnational"
    assert clean.mark_line_end_hyphens("inter\u00ad\nnational") == "inter-\nnational"
    assert clean.mark_line_end_hyphens("hy\u00adphen\u00adation") == "hyphenation"
    assert clean.mark_line_end_hyphens("日本語") == "日本語"


def test_collapse_spaces_collapses_runs_and_strips_line_ends_but_keeps_ideographic_space():
    assert (
        clean.collapse_spaces("  Total   amount \t 300  \n第1条\u3000目的  ")
        == "Total amount 300\n第1条\u3000目的"
    )
    assert clean.collapse_spaces("") == ""


def test_strip_trailing_spaces_keeps_indentation():
    assert clean.strip_trailing_spaces("    code  \n本文\t \n") == "    code\n本文\n"


def test_squeeze_blank_lines():
    assert clean.squeeze_blank_lines("\n\na\n\n\n\nb\n\n") == "a\n\nb"


def test_clean_layout_text_chains_the_passes():
    raw = "第1章 総則\r\nThe inter\ufffenational   rules\x00\r\n\r\n\r\n\r\nEnd  "
    assert clean.clean_layout_text(raw) == "第1章 総則\nThe inter-\nnational rules\n\nEnd"


# --- hyphenation ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("inter-\nnational", "international"),
        ("The inter-\nnational body", "The international body"),
        ("Jean-\nPaul", "Jean-\nPaul"),  # upper case next: a real hyphenated name
        ("pages 10-\n12", "pages 10-\n12"),  # digits are not words
        ("well -\nknown", "well -\nknown"),
        ("naïve-\nté", "naïveté"),
        ("日本-\nご", "日本-\nご"),  # kana has no case: never joined
        ("", ""),
    ],
)
def test_rejoin_hyphens(text, expected):
    assert clean.rejoin_hyphens(text) == expected


# --- width and mojibake -------------------------------------------------------------------------


def test_normalize_width_folds_full_and_half_width():
    assert clean.normalize_width("ＡＢＣ１２３") == "ABC123"
    assert clean.normalize_width("ｶﾀｶﾅ") == "カタカナ"
    assert clean.normalize_width("English text") == "English text"
    assert clean.normalize_width("") == ""


@pytest.mark.parametrize(
    "broken, fixed",
    [
        ("cafÃ©", "café"),
        ("â€œquotedâ€\x9d", "\u201cquoted\u201d"),
        ("ã\x81\x82ã\x81\x84", "あい"),  # UTF-8 Japanese read as Latin-1
    ],
)
def test_fix_mojibake_repairs_wrong_codec(broken, fixed):
    assert clean.fix_mojibake(broken) == fixed


@pytest.mark.parametrize("text", ["日本語のテキスト。ＡＢＣ１２３ ｶﾀｶﾅ", "“curly” quotes &amp; ﬁne", ""])
def test_fix_mojibake_leaves_correct_text_alone(text):
    assert clean.fix_mojibake(text) == text


# --- running headers/footers and page numbers ---------------------------------------------------


def _pages(n: int) -> list[str]:
    return [f"社内規程集 2024年版\n第{i}条（目的）\n本文 {i} の内容です。\n- {i} -" for i in range(1, n + 1)]


def test_find_running_lines_detects_header_and_numbered_footer():
    found = clean.find_running_lines(_pages(4))
    assert found == {"社内規程集 2024年版", "社内規程集 #年版", "- # -"}


def test_find_running_lines_needs_three_pages():
    assert clean.find_running_lines(_pages(2)) == set()
    assert clean.find_running_lines([]) == set()


def test_find_running_lines_requires_half_of_the_pages():
    pages = ["Draft\nbody one", "body two", "body three", "Draft\nbody four", "body five"]
    assert clean.find_running_lines(pages) == set()  # 2 of 5
    assert clean.find_running_lines(pages + ["Draft\nbody six"]) == {"Draft"}  # 3 of 6


def test_find_running_lines_ignores_long_lines():
    long = "x" * 61
    assert clean.find_running_lines([long] * 4) == set()


PROOF = ("The type and rule above prints on all proofs including departmental reproduction proofs. MUST be "
         "removed before printing.")


def test_a_long_line_on_every_page_is_kept_once():
    pages = [f"{PROOF}\nBody of page {i} about taxes.\nMore text {i}." for i in range(1, 11)]
    found = clean.find_repeated_lines(pages)
    assert found == {PROOF}
    kept = clean.drop_repeats(pages, found)
    assert kept[0] == pages[0]  # said once
    assert all(PROOF not in p and f"Body of page {i}" in p for i, p in enumerate(kept[1:], 2))


def test_a_long_line_on_most_pages_only_or_inside_the_page_is_body_text():
    pages = [f"{PROOF}\nBody {i}." for i in range(8)] + [f"Body {i}." for i in range(8, 10)]
    assert clean.find_repeated_lines(pages) == set()  # 8 of 10 pages, under 0.9
    inner = [f"a {i}\nb {i}\nc {i}\n{PROOF}\nd {i}\ne {i}\nf {i}" for i in range(5)]
    assert clean.find_repeated_lines(inner) == set()  # not at an edge
    assert clean.find_repeated_lines([PROOF, PROOF]) == set()  # needs three pages


def test_page_x_of_y_counts_as_one_line():
    pages = [f"Annual Report\nbody {i}\nPage {i} of 10" for i in range(1, 4)]
    found = clean.find_running_lines(pages)
    assert "Page # of #" in found
    assert clean.drop_running_lines(pages, found) == ["body 1", "body 2", "body 3"]


def test_running_keys_ignore_digits_only_in_outermost_non_heading_lines():
    assert clean.running_keys("- 3 -", outermost=True) == {"- 3 -", "- # -"}
    assert clean.running_keys("第1条（目的）", outermost=True) == {"第1条(目的)"}
    assert clean.running_keys("Total 300", outermost=False) == {"Total 300"}


def test_body_lines_differing_by_a_number_are_not_running_lines():
    pages = [
        f"Report\n本文 {i} の内容です。\nmore text\nTotal {i}00\nend of page\n- {i} -" for i in range(1, 5)
    ]
    assert clean.find_running_lines(pages) == {"Report", "- # -", "more text", "end of page"}


def test_drop_running_lines_removes_only_edge_lines():
    pages = _pages(3)
    dropped = clean.drop_running_lines(pages, clean.find_running_lines(pages))
    assert dropped == [f"第{i}条（目的）\n本文 {i} の内容です。" for i in range(1, 4)]
    body = "\n".join(f"line {i}" for i in range(10))
    middle = body.replace("line 5", "Draft")
    assert clean.drop_running_lines([middle], {"Draft"}) == [middle]


def test_a_books_running_lines_with_rising_page_numbers_are_dropped():
    # left pages: number first; right pages: the chapter's name, number last; front matter numbered in roman
    pages = ["© Copyright ACME Corp. 2014. All rights reserved. iii\nContents\nPreface . . . xi",
             "© Copyright ACME Corp. 2014. All rights reserved. xi\nPreface\nThis paper is about tables.",
             "© Copyright ACME Corp. 2014. All rights reserved. 1\nChapter 1. Tables\nA table has rows.",
             "2 Reading Tables in Scanned Documents\nRows have cells.",
             "Chapter 2. Cells and rows 5\nA cell holds a value.",
             "6 Reading Tables in Scanned Documents\nValues are numbers or words.",
             "Chapter 2. Cells and rows 7\nNumbers line up right.",
             "12 Reading Tables in Scanned Documents\nWords line up left.",
             "Chapter 2. Cells and rows 13\nThe end of the chapter."]
    found = clean.find_running_lines(pages)
    assert {"<§Reading Tables in Scanned Documents", ">§Chapter 2. Cells and rows",
            ">§© Copyright ACME Corp. 2014. All rights reserved."} <= found
    kept = clean.drop_running_lines(pages, found)
    assert kept[1:5] == ["Preface\nThis paper is about tables.", "Chapter 1. Tables\nA table has rows.",
                         "Rows have cells.", "A cell holds a value."]


def test_a_number_that_does_not_rise_or_a_short_label_is_no_running_line():
    falling = [f"{n} Reading Tables in Scanned Documents\nbody {n}" for n in (9, 7, 5)]
    others = ["alpha", "beta", "gamma", "delta"]
    assert clean.find_running_lines(falling + others) == set()
    figures = [f"body {n}\nFigure {n}" for n in (1, 2, 3)] + others  # a caption's label, not a folio
    assert clean.find_running_lines(figures) == set()
    assert clean.folio("civil war in the north and south") is None  # a word of roman letters is no numeral
    assert clean.folio("Chapter 3. Row and Column Access Control 15") == (
        ">§Chapter 3. Row and Column Access Control", "arabic", 15)
    assert clean.folio("All rights reserved here. xiv") == (">§All rights reserved here.", "roman", 14)


def test_drop_running_lines_without_lines_is_identity():
    assert clean.drop_running_lines(["a", "b"], set()) == ["a", "b"]


@pytest.mark.parametrize(
    "line", ["3", "- 3 -", "— 3 —", "Page 3", "page 3 of 10", "3 / 10", "p. 3", "－３－", "12ページ"]
)
def test_is_page_number(line):
    assert clean.is_page_number(line)


@pytest.mark.parametrize("line", ["3 apples", "第3条", "Chapter 3", "2024年版", "", "1.2 Scope"])
def test_is_not_page_number(line):
    assert not clean.is_page_number(line)


def test_drop_page_numbers_only_as_first_or_last_line():
    assert clean.drop_page_numbers("本文です。\n続きです。\n- 3 -") == "本文です。\n続きです。"
    assert clean.drop_page_numbers("Page 4\nBody text.\n\n") == "Body text."
    assert clean.drop_page_numbers("３\n本文\n３ / １０") == "本文"
    table = "Year\nCount\n2022\n12\n2023\n7\nEnd of table."
    assert clean.drop_page_numbers(table) == table  # numbers inside the page are data
    assert clean.drop_page_numbers("") == ""
    assert clean.drop_page_numbers("7") == ""


def test_utf16_halves_from_pdfium_become_characters():
    # PDFium reports a character outside the BMP as two halves; UTF-8 refuses them, so a page holding one
    # (normal_4pages.pdf: a private-use bracket) failed the whole document at indexing
    assert clean.join_surrogates("\ud842\udfb7野家") == "𠮷野家"
    assert clean.join_surrogates("a\udb82\udc54b") == "a\U000f0854b"
    assert clean.join_surrogates("x\ud800y\udc00") == "x\ufffdy\ufffd"  # a half without its partner
    assert clean.join_surrogates("plain text") == "plain text"
    page = clean.clean_layout_text("\udb82\udc54이슈와 논점\udb82\udc55은")
    page.encode("utf-8")  # storable
    assert page == "\U000f0854이슈와 논점\U000f0855은"


def test_drop_folios_takes_the_pages_own_number_between_dashes_anywhere():
    # a footer centred between two columns is read between them (i1040nr.pdf): it splits a sentence
    page = "withheld on one of the dividend\n-3-\npayments at a rate of 30%.\nInstructions for Form 1040NR -3-"
    assert clean.drop_folios(page, 3) == "withheld on one of the dividend\npayments at a rate of 30%."
    assert clean.drop_folios("- 12 - Instructions for Form 1040NR\nBody.", 12) == "Body."
    # another number between dashes is text ("enter -0-"), and so is a long line ending in the folio
    text = "If zero or less, enter\n-0-\non line 16b.\n-4-"
    assert clean.drop_folios(text, 3) == text
    long_line = "This sentence is long enough to be body text and it happens to end with -3-"
    assert clean.drop_folios(long_line, 3) == long_line


# --- references ----------------------------------------------------------------------------------


def test_cut_references_from_the_last_heading_and_keeps_page_count():
    pages = ["Contents\nReferences ... 9", "Body.\nReferences\n[1] A. Author", "[2] B. Author"]
    assert clean.cut_references(pages) == ["Contents\nReferences ... 9", "Body.", ""]


def test_cut_references_japanese_and_numbered():
    assert clean.cut_references(["本文。\n参考文献\n[1] 山田"]) == ["本文。"]
    assert clean.cut_references(["Body\n7. Bibliography\nx", "y"]) == ["Body", ""]
    assert clean.cut_references(["参考文献\n[1] 山田", "[2] 田中"]) == ["", ""]


def test_cut_references_without_heading_is_identity():
    pages = ["Body mentions references in a sentence.", "More."]
    assert clean.cut_references(pages) == pages
    assert clean.cut_references([]) == []


# --- headings (pure, used for PDFs and plain text) ------------------------------------------------


@pytest.mark.parametrize(
    "line, expected",
    [
        ("第1章 総則", (1, "第1章 総則")),
        ("第２節　雇用", (2, "第２節　雇用")),
        ("第十二条（目的） この規程は、", (5, "第十二条（目的）")),
        ("第3条 この規程は全社員に適用する。", (5, "第3条")),
        ("第5条の2（特例）", (5, "第5条の2（特例）")),
        ("Chapter 3", (1, "Chapter 3")),
        ("Section 4: Scope", (2, "Section 4: Scope")),
        ("1. Introduction", (1, "1. Introduction")),
        ("1.2 Scope of Work", (2, "1.2 Scope of Work")),
        ("2.3.1 Details", (3, "2.3.1 Details")),
        ("TERMS AND CONDITIONS", (1, "TERMS AND CONDITIONS")),
    ],
)
def test_heading_of(line, expected):
    assert heading_of(line) == expected


@pytest.mark.parametrize(
    "line",
    [
        "第5条の規定により届け出る。",
        "1. the first item is lower case",
        "1.2 This line ends with a period.",
        "3 / 10",
        "2024 Annual Report",
        "USA",
        "This is an ordinary sentence without numbering",
        "",
    ],
)
def test_not_heading(line):
    assert heading_of(line) is None


def test_statute_caption_line_starts_the_article():
    found = classify_lines(["（目的）", "第一条　この法律は、…", "本文"])
    assert found == [(5, "第一条（目的）"), None, None]


def test_read_document_leaves_no_utf16_half_in_any_reader(tmp_path):
    # a plug-in reader (or a table's cells) may hand halves over: read_document joins them everywhere
    from kotae.ingest import READERS, read_document, register
    from kotae.types import ParsedDocument, Section

    @register("halves")
    def read_halves(path: str, data: bytes) -> ParsedDocument:
        text = "a\ud842\udfb7b"
        return ParsedDocument(path, "text", (text,), (Section(1, ("h\ud800",), text),), title="t\udc00")

    try:
        f = tmp_path / "x.halves"
        f.write_text("x", encoding="utf-8")
        doc = read_document(str(f))
    finally:
        del READERS["halves"]
    assert doc.pages == ("a𠮷b",) and doc.sections[0].text == "a𠮷b"
    assert doc.sections[0].heading == ("h\ufffd",) and doc.title == "t\ufffd"
