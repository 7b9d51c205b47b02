"""OCR engines for Japanese: RapidOCR (PP-OCRv6 small det/rec ONNX models inside the `rapidocr` wheel) against
Tesseract (Debian tesseract-ocr + jpn, jpn_vert, as kotae runs it: jpn+jpn_vert, English re-read).

    python bench/ocr_engines.py [--data ../shared/data] [--max-pages 2]

Pages, all handed to both engines as the same image:
- generated (tests/scanned.py, 300 dpi, IPA Gothic via fontconfig): Japanese horizontal 12 pt and 8 pt,
  vertical 14 pt and 9 pt, English 12 pt; the reference is the text that was drawn;
- samples/unstructured/img/jpn-vert.jpeg (vertical Japanese); reference transcribed by hand (bench/ocr.py);
- samples/pdfminer/ja/*.pdf, the first --max-pages pages rendered at kotae's OCR resolution; the reference
  is the page's own text layer (kampo.pdf is left out: its layer's font map is broken, so there is nothing
  to score against).

CER: edit distance / reference length after NFKC, whitespace removed (tests/scanned.py), of the text in the
engine's reading order, so a wrong order costs; bag error: the reference characters the engine did not
produce, order aside. RapidOCR's lines are put in reading order here: tall boxes (vertical text) right to
left, others top to bottom. s/page: wall time per page, one thread per engine (tesseract OMP_THREAD_LIMIT=1,
onnxruntime intra-op threads 1), pages one after another. Writes bench/results/ocr_engines.{json,md}.
"""
from __future__ import annotations

import argparse
import glob
import os
import sys
import time
from typing import Any

os.environ.setdefault("OMP_THREAD_LIMIT", "1")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
import numpy as np
from common import machine, write
from PIL import Image

from kotae.ingest.ocr import DPI, find_engine, recognise
from scanned import (
    ENGLISH,
    JAPANESE,
    VERTICAL,
    bag_error,
    cer,
    horizontal_page,
    ja_font,
    latin_font,
    text_of,
    vertical_page,
)

JPN_VERT_TEXT = ("元来日本語は漢文に倣い、文字を上から下へ、また行を右から左へと進めて表記を行っていた。"
                 "漢字と仮名の筆順も縦書きを前提としており、横書き不能な書体も存在する。")


def ordered(boxes: Any, txts: Any) -> str:
    """RapidOCR's lines in reading order: vertical lines (boxes taller than wide) right to left, else top down."""
    if boxes is None or txts is None or not len(txts):
        return ""
    items = []
    for box, text in zip(boxes, txts, strict=True):
        b = np.asarray(box)
        x0, y0, x1, y1 = b[:, 0].min(), b[:, 1].min(), b[:, 0].max(), b[:, 1].max()
        items.append((x0, y0, x1, y1, text))
    tall = sum((y1 - y0) > 1.5 * (x1 - x0) for x0, y0, x1, y1, _ in items)
    if tall > len(items) / 2:
        items.sort(key=lambda i: (-i[2], i[1]))
    else:
        items.sort(key=lambda i: (round(i[1] / 10), i[0]))
    return "\n".join(i[4] for i in items)


def ink_crop(image: Image.Image, margin: int = 40) -> Image.Image:
    """The page cut to the box of its dark pixels plus a margin: PP-OCR's detector found nothing on whole
    pages where a little text sits in much white (issue-449-*.pdf), and found it on the crop."""
    a = np.asarray(image.convert("L"))
    ys, xs = np.where(a < 200)
    if not len(xs):
        return image
    return image.crop((max(0, int(xs.min()) - margin), max(0, int(ys.min()) - margin),
                       min(a.shape[1], int(xs.max()) + margin), min(a.shape[0], int(ys.max()) + margin)))


def pages(data: str, max_pages: int) -> list[tuple[str, Image.Image, str, str]]:
    """(name, image, reference, kind) for every page; kind "drawn" (exact reference) or "layer"."""
    out: list[tuple[str, Image.Image, str, str]] = []
    ja = ja_font()
    if ja is None:
        print("no Japanese font (fc-match :lang=ja): generated pages skipped", file=sys.stderr)
    else:
        latin = latin_font()
        out += [("generated Japanese 12 pt", horizontal_page(JAPANESE, ja), text_of(JAPANESE), "drawn"),
                ("generated Japanese 8 pt", horizontal_page(JAPANESE, ja, pt=8), text_of(JAPANESE), "drawn"),
                ("generated vertical 14 pt", vertical_page(VERTICAL, ja), text_of(VERTICAL), "drawn"),
                ("generated vertical 9 pt", vertical_page(VERTICAL, ja, pt=9), text_of(VERTICAL), "drawn"),
                ("generated English 12 pt", horizontal_page(ENGLISH, latin), text_of(ENGLISH), "drawn")]
    vert = os.path.join(data, "samples", "unstructured", "img", "jpn-vert.jpeg")
    if os.path.exists(vert):
        out.append(("jpn-vert.jpeg", Image.open(vert).convert("L"), JPN_VERT_TEXT, "drawn"))
    import pypdfium2 as pdfium  # type: ignore[import-untyped]

    from kotae.ingest import read_document

    for path in sorted(glob.glob(os.path.join(data, "samples", "pdfminer", "ja", "*.pdf"))):
        if os.path.basename(path) == "kampo.pdf":  # its text layer's font map is broken: no reference to score
            continue
        layer = read_document(path, ocr="off").pages
        pdf = pdfium.PdfDocument(path)
        for i in range(min(max_pages, len(pdf))):
            if layer[i].strip():
                image = pdf[i].render(scale=DPI / 72, grayscale=True).to_pil()
                out.append((f"{os.path.basename(path)} p.{i + 1}", image, layer[i], "layer"))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data"))
    ap.add_argument("--max-pages", type=int, default=2)
    args = ap.parse_args()
    tesseract = find_engine(os.environ.get("KOTAE_TESSERACT", "tesseract"))
    if isinstance(tesseract, str):
        print(f"bench/ocr_engines.py: {tesseract}", file=sys.stderr)
        return 1
    from rapidocr import RapidOCR

    rapid = RapidOCR(params={"EngineConfig.onnxruntime.intra_op_num_threads": 1,
                             "EngineConfig.onnxruntime.inter_op_num_threads": 1, "Global.log_level": "error"})
    load = [round(x, 2) for x in os.getloadavg()]
    rows = []
    for name, image, ref, kind in pages(args.data, args.max_pages):
        row: dict[str, Any] = {"page": name, "reference": kind, "chars": len(ref)}
        t0 = time.perf_counter()
        try:
            text = recognise(image, tesseract).text
        except RuntimeError as exc:  # pytesseract's timeout (ocr.TIMEOUT_S): the page counts as unread
            print(f"{name}: tesseract {exc}", file=sys.stderr)
            text = ""
        row["tesseract"] = {"s": round(time.perf_counter() - t0, 2), "cer": round(cer(ref, text), 4),
                            "bag": round(bag_error(ref, text), 4), "text": text[:200]}
        for key, img in (("rapidocr", image), ("rapidocr_crop", ink_crop(image))):
            t0 = time.perf_counter()
            result = rapid(np.asarray(img.convert("RGB")))
            text = ordered(result.boxes, result.txts)
            row[key] = {"s": round(time.perf_counter() - t0, 2), "cer": round(cer(ref, text), 4),
                        "bag": round(bag_error(ref, text), 4), "text": text[:200]}
        rows.append(row)
        print(name, row["tesseract"]["cer"], row["rapidocr"]["cer"], row["rapidocr_crop"]["cer"], file=sys.stderr)
    write("ocr_engines", {"machine": {**machine(), "load_average_at_start": load}, "dpi": DPI,
                          "max_pages": args.max_pages, "pages": rows}, markdown(rows, load))
    return 0


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def markdown(rows: list[dict[str, Any]], load: list[float]) -> str:
    engines = ("tesseract", "rapidocr", "rapidocr_crop")
    lines = ["# OCR engines: Tesseract (jpn+jpn_vert, eng re-read) against RapidOCR (PP-OCRv6 small, in the wheel)", "",
             "CER / bag-of-characters error / seconds per page; rapidocr_crop: the page cut to its ink first.", "",
             "| page | reference | " + " | ".join(engines) + " |", "|---|---|" + "---|" * len(engines)]

    def cell(m: dict[str, float]) -> str:
        return f"{_pct(m['cer'])} / {_pct(m['bag'])} / {m['s']:.2f}"

    for r in rows:
        lines.append(f"| {r['page']} | {r['reference']} | " + " | ".join(cell(r[e]) for e in engines) + " |")
    for group in ("drawn", "layer"):
        part = [r for r in rows if r["reference"] == group]
        if part:
            mean = {e: {k: sum(r[e][k] for r in part) / len(part) for k in ("cer", "bag", "s")} for e in engines}
            lines.append(f"| **mean, {group} ({len(part)} pages)** | | " + " | ".join(cell(mean[e]) for e in engines)
                         + " |")
    lines += ["", ("drawn: reference is the text drawn (generated) or transcribed (jpn-vert.jpeg); layer: the PDF's own "
                   "text layer (its order and its errors included). One thread per engine, load average at start "
                   f"{load[0]} on a shared machine: the seconds compare the engines only with each other.")]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
