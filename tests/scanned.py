"""Scanned test documents built from scratch: text drawn with Pillow at scanner resolution, wrapped in a PDF.

Used by tests/test_ocr.py and bench/ocr.py. Japanese text needs a Japanese font: `ja_font()` finds one
with fontconfig (CI installs fonts-ipafont-gothic), or returns None so the caller can skip.
"""
from __future__ import annotations

import shutil
import subprocess
import unicodedata
from collections import Counter
from pathlib import Path

from PIL import Image, ImageDraw, ImageFilter, ImageFont

SCAN_DPI = 300  # the "scanner" resolution of the generated page images
A5 = (5.83, 8.27)  # inches; small pages keep the OCR tests quick

ENGLISH = [
    "Annual Maintenance Report",
    "The cooling pumps in building B were replaced in",
    "March after the inspection found worn bearings.",
    "Each pump now runs for at most twelve hours a day",
    "and the spare unit is tested every Monday morning.",
    "Contact the facilities office before any repair.",
]
JAPANESE = [
    "就業規則の改定について",
    "有給休暇の申請は取得日の五日前までに所属長へ",
    "提出してください。緊急の場合は電話で連絡し、",
    "出勤後に申請書を提出してください。",
    "在宅勤務は週に三日まで認められます。",
]
VERTICAL = [
    "雨の日の通勤について",
    "大雨警報が出た場合は自宅で待機し",
    "上司の指示に従って出勤してください",
    "交通費は実費を精算します",
]


def ja_font() -> str | None:
    """A font file with Japanese glyphs, found by fontconfig; None when there is none."""
    if not shutil.which("fc-match"):
        return None
    out = subprocess.run(["fc-match", "-f", "%{file}", ":lang=ja"], capture_output=True, text=True, check=False)
    path = out.stdout.strip()
    if not path or not Path(path).exists():
        return None
    font = ImageFont.truetype(path, 20)
    return path if font.getbbox("日")[2] > font.getbbox(".")[2] else None  # a real CJK glyph, not a box


def latin_font() -> str:
    out = subprocess.run(["fc-match", "-f", "%{file}", "serif:lang=en"], capture_output=True, text=True,
                         check=False) if shutil.which("fc-match") else None
    return out.stdout.strip() if out and out.stdout.strip() else ""


def _canvas(dpi: int) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    img = Image.new("L", (round(A5[0] * dpi), round(A5[1] * dpi)), 255)
    return img, ImageDraw.Draw(img)


def _font(path: str, px: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.truetype(path, px) if path else ImageFont.load_default(px)


def _scanned(img: Image.Image) -> Image.Image:
    """A touch of blur, as a flatbed scanner gives."""
    return img.filter(ImageFilter.GaussianBlur(0.6))


def horizontal_page(lines: list[str], font: str, *, dpi: int = SCAN_DPI, pt: float = 12) -> Image.Image:
    """Lines left to right, top to bottom, at `pt` points."""
    img, draw = _canvas(dpi)
    px = round(pt * dpi / 72)
    f = _font(font, px)
    x, y = round(0.6 * dpi), round(0.7 * dpi)
    for line in lines:
        draw.text((x, y), line, font=f, fill=0)
        y += round(px * 1.7)
    return _scanned(img)


_SMALL_KANA = set("、。")


def vertical_page(columns: list[str], font: str, *, dpi: int = SCAN_DPI, pt: float = 14) -> Image.Image:
    """Japanese 縦書き: characters top to bottom, columns right to left."""
    img, draw = _canvas(dpi)
    px = round(pt * dpi / 72)
    f = _font(font, px)
    x = img.width - round(0.7 * dpi) - px
    for column in columns:
        y = round(0.6 * dpi)
        for ch in column:
            if ch in _SMALL_KANA:  # vertical punctuation sits in the upper right of its cell
                draw.text((x + px * 0.55, y - px * 0.45), ch, font=f, fill=0)
            else:
                draw.text((x, y), ch, font=f, fill=0)
            y += round(px * 1.08)
        x -= round(px * 1.8)
    return _scanned(img)


TABLE_JA = [["区分", "支給額", "支給日"], ["住宅手当", "月額20,000円", "毎月25日"], ["通勤手当", "実費", "毎月25日"],
            ["家族手当", "月額10,000円", "毎月25日"], ["役職手当", "月額30,000円", "毎月25日"]]
TABLE_EN = [["Item", "Amount", "Due"], ["Housing allowance", "20,000 yen", "25th of each month"],
            ["Commuting allowance", "Actual cost", "25th of each month"],
            ["Family allowance", "10,000 yen", "25th of each month"]]


def ruled_page(rows: list[list[str]], font: str, *, dpi: int = SCAN_DPI, pt: float = 11,
               header_fill: int = 190) -> Image.Image:
    """A table drawn with a full grid of rules (1 pt) and a tinted header row, as a form or a scanned table is."""
    img, draw = _canvas(dpi)
    px = round(pt * dpi / 72)
    f = _font(font, px)
    left, top = round(0.4 * dpi), round(0.8 * dpi)
    widths = [max(f.getbbox(row[c])[2] for row in rows) + px for c in range(len(rows[0]))]
    height, rule = round(px * 2.2), max(1, round(dpi / 72))
    xs = [left + sum(widths[:c]) for c in range(len(widths) + 1)]
    draw.rectangle([xs[0], top, xs[-1], top + height], fill=header_fill)
    for r, row in enumerate(rows):
        y = top + r * height
        for c, text in enumerate(row):
            draw.text((xs[c] + px // 2, y + round(px * 0.55)), text, font=f, fill=0)
    for r in range(len(rows) + 1):
        draw.rectangle([xs[0], top + r * height, xs[-1], top + r * height + rule], fill=0)
    for x in xs:
        draw.rectangle([x, top, x + rule, top + len(rows) * height + rule], fill=0)
    return _scanned(img)


def table_text(rows: list[list[str]]) -> str:
    return "\n".join(" ".join(row) for row in rows)


def save_pdf(path: Path, images: list[Image.Image], *, dpi: int = SCAN_DPI) -> Path:
    """Wrap page images into an image-only PDF (no text layer), one page per image."""
    first, *rest = [im.convert("RGB") for im in images]
    first.save(path, "PDF", resolution=dpi, save_all=True, append_images=rest)
    return path


def text_of(lines: list[str]) -> str:
    return "\n".join(lines)


def _normal(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).split())


def cer(reference: str, hypothesis: str) -> float:
    """Character error rate: edit distance over the reference length, after NFKC and with all
    whitespace removed (OCR's line breaks and the spaces it puts between Japanese words are not errors)."""
    ref, hyp = _normal(reference), _normal(hypothesis)
    previous = list(range(len(hyp) + 1))
    for i, a in enumerate(ref, start=1):
        current = [i]
        for j, b in enumerate(hyp, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a != b)))
        previous = current
    return previous[-1] / max(1, len(ref))


def bag_error(reference: str, hypothesis: str) -> float:
    """Share of the reference's characters (as a multiset) that the hypothesis lacks: order-free, for
    text layers whose order differs from the reading order (e.g. vertical pages)."""
    ref, hyp = Counter(_normal(reference)), Counter(_normal(hypothesis))
    return 1 - sum((ref & hyp).values()) / max(1, sum(ref.values()))
