"""Skip marks for the tests that need tesseract or a Japanese font, shared by the OCR test modules."""

from __future__ import annotations

import shutil

import pytest

from kotae.ingest.ocr import find_engine
from scanned import ja_font

HAVE_TESSERACT = shutil.which("tesseract") is not None and not isinstance(find_engine("tesseract"), str)
tesseract = pytest.mark.skipif(
    not HAVE_TESSERACT, reason="tesseract is not installed (sudo apt-get install tesseract-ocr tesseract-ocr-jpn "
                               "tesseract-ocr-jpn-vert tesseract-ocr-eng; CI installs it)")
JA_FONT = ja_font()
japanese = pytest.mark.skipif(JA_FONT is None, reason="no Japanese font (sudo apt-get install fonts-ipafont-gothic; "
                                                       "CI installs it)")
