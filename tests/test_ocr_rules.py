"""Ruled lines taken out of a page image before OCR: the mask (pure), and a scanned table read whole."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kotae.ingest import read_document
from kotae.ingest.ocr_rules import rule_mask, without_rules
from kotae.ingest.pdf_ruled import Rule
from ocr_marks import JA_FONT, japanese, tesseract
from scanned import (
    TABLE_EN,
    TABLE_JA,
    bag_error,
    horizontal_page,
    latin_font,
    ruled_page,
    save_pdf,
    table_text,
)


def _page() -> np.ndarray:
    page = np.full((400, 600), 255, np.uint8)
    page[50:52, 40:560] = 0  # a horizontal rule
    page[50:350, 300:302] = 30  # a vertical rule
    page[100:112, 60:66] = 0  # a letter's stroke: short
    page[200:212, 350:352] = 0  # under RUN × 400 = 16 px
    page[120:140, 400:520] = 170  # a tinted cell: not ink
    page[300:340, 40:560] = 0  # a filled bar (a slide's band): no rule
    return page


def test_the_mask_holds_the_rules_and_not_the_strokes():
    mask = rule_mask(_page())
    assert mask[50:52, 40:560].all() and mask[50:350, 300:302].all()
    assert not mask[100:112, 60:66].any() and not mask[200:212, 350:352].any()
    assert not mask[300:340, 40:300].any() and not mask[300:340, 302:560].any()
    assert mask.sum() == 2 * 520 + 2 * 300 - 4  # the crossing counted once


def test_a_page_without_rules_is_left_alone_and_one_with_rules_is_cleaned():
    plain = _page()
    plain[50:52, :] = 255
    plain[:, 300:302] = 255
    assert without_rules(plain) is None  # strokes, a tint and a bar
    found = without_rules(_page())
    assert found is not None
    cleaned, rules = found
    assert cleaned.dtype == np.uint8
    assert sorted(rules, key=lambda r: r.horizontal) == [Rule(False, 300.5, 50.0, 350.0), Rule(True, 50.5, 40.0, 560.0)]
    assert (cleaned[50:52, 40:560] == 255).all() and (cleaned[100:112, 60:66] == 0).all()
    assert (cleaned[120:140, 400:520] == 255).all()  # the tint is background, so text on it stays dark on white


@pytest.mark.slow
@tesseract
def test_a_scanned_table_is_read_whole_and_as_rows(tmp_path: Path):
    path = save_pdf(tmp_path / "table.pdf", [ruled_page(TABLE_EN, latin_font()),
                                              horizontal_page(["Notes on the table above."], latin_font())])
    doc = read_document(str(path))
    assert bag_error(table_text(TABLE_EN), doc.pages[0]) < 0.05, doc.pages[0]
    assert [s.text for s in doc.sections if s.kind == "rows"] == [
        "Item: Housing allowance | Amount: 20,000 yen | Due: 25th of each month",
        "Item: Commuting allowance | Amount: Actual cost | Due: 25th of each month",
        "Item: Family allowance | Amount: 10,000 yen | Due: 25th of each month"]
    assert doc.pages[1].startswith("Notes on the table above")


@pytest.mark.slow
@tesseract
@japanese
def test_a_scanned_japanese_table_becomes_rows_whatever_order_ocr_read_its_cells(tmp_path: Path):
    doc = read_document(str(save_pdf(tmp_path / "table.pdf", [ruled_page(TABLE_JA, JA_FONT)])))
    rows = [s for s in doc.sections if s.kind == "rows"]
    # Tesseract reads the cells column by column; the drawn grid puts each value beside its label
    assert [s.text.split(" | ")[0] for s in rows] == ["区分: 住宅手当", "区分: 通勤手当", "区分: 家族手当", "区分: 役職手当"]
    assert rows[1].text == "区分: 通勤手当 | 支給額: 実費 | 支給日: 毎月25日"
    assert all(s.ocr for s in rows)


@pytest.mark.slow
@tesseract
def test_a_photographed_table_image_becomes_rows(tmp_path: Path):
    path = tmp_path / "table.png"
    ruled_page(TABLE_EN, latin_font()).save(path)
    doc = read_document(str(path))
    assert [s.text for s in doc.sections if s.kind == "rows"][1] == \
        "Item: Commuting allowance | Amount: Actual cost | Due: 25th of each month"
