"""Ruled lines taken out of a page image before OCR: the mask (pure), and a scanned table read whole."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from kotae.ingest import read_document
from kotae.ingest.ocr import find_engine
from kotae.ingest.ocr_rules import rule_mask, without_rules
from scanned import TABLE_EN, bag_error, horizontal_page, latin_font, ruled_page, save_pdf, table_text

HAVE_TESSERACT = shutil.which("tesseract") is not None and not isinstance(find_engine("tesseract"), str)
tesseract = pytest.mark.skipif(
    not HAVE_TESSERACT, reason="tesseract is not installed (sudo apt-get install tesseract-ocr tesseract-ocr-jpn "
                               "tesseract-ocr-jpn-vert tesseract-ocr-eng; CI installs it)")


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
    cleaned = without_rules(_page())
    assert cleaned is not None and cleaned.dtype == np.uint8
    assert (cleaned[50:52, 40:560] == 255).all() and (cleaned[100:112, 60:66] == 0).all()
    assert (cleaned[120:140, 400:520] == 255).all()  # the tint is background, so text on it stays dark on white


@pytest.mark.slow
@tesseract
def test_a_scanned_table_is_read_cell_by_cell(tmp_path: Path):
    path = save_pdf(tmp_path / "table.pdf", [ruled_page(TABLE_EN, latin_font()),
                                              horizontal_page(["Notes on the table above."], latin_font())])
    doc = read_document(str(path))
    assert bag_error(table_text(TABLE_EN), doc.pages[0]) < 0.05, doc.pages[0]
    assert "Commuting allowance" in doc.pages[0] and "Actual cost" in doc.pages[0]
    assert doc.pages[1].startswith("Notes on the table above")
