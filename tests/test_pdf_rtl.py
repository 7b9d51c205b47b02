"""Right-to-left pages (kotae.ingest.pdf_rtl): pure, on generated character boxes."""

from kotae.ingest.pdf_chars import Char
from kotae.ingest.pdf_layout import analyse
from kotae.ingest.pdf_rtl import fix_ligatures, is_rtl, rtl_text


def _word(text: str, x1: float, y: float, width: float = 30.0) -> Char:
    return Char(text, x1 - width, y, x1, y + 10)


def _page() -> list[Char]:
    # a label at the right and its value at the left of one row, then a line with a number and a Latin run
    return [_word("النموذج", 300, 700), _word("اسم", 340, 700), _word("20300", 100, 700),
            _word("رقم", 340, 680), _word("Page", 200, 680), _word("7", 240, 680, 10), _word("الصفحة", 300, 680)]


def test_a_right_to_left_page_reads_each_line_from_the_right_and_keeps_latin_runs_in_order() -> None:
    chars = _page()
    assert is_rtl(chars)
    assert rtl_text(chars).split("\n") == ["اسم النموذج 20300", "رقم الصفحة Page 7"]
    assert analyse(chars).text == rtl_text(chars)


def test_a_left_to_right_page_is_not_right_to_left() -> None:
    assert not is_rtl([_word("Revenue", 100, 700), _word("grew", 200, 700), _word("مرحبا", 300, 700)])


def test_an_alef_lam_pair_drawn_as_one_glyph_becomes_lam_alef() -> None:
    text = "کاالی الف"  # the first alef+lam is one ligature glyph (same box), the second two letters
    fixed = fix_ligatures(text, lambda i, j: i == 2)
    assert fixed == "کالای الف"
