"""OCR of pages that draw rules, with the rules kept and taken out (kotae.ingest.ocr_rules), and what the check
costs on pages without rules.

    python bench/ocr_rules.py --data ../shared/data            # → bench/results/ocr_rules.{json,md}

Each page image, at kotae's OCR resolution, is read by `kotae.ingest.ocr.recognise` twice in one process:
"kept" with the rule pass switched off (`ocr_rules.without_rules` returning None: the code before), "shipped"
as kotae reads it (a page with rules is read again without them and the reading with more confidently read text
is kept). Pages: tables drawn with a full grid and a tinted header (tests/scanned.py `ruled_page`, Japanese and
English; reference: the drawn cells), unstructured's image-only table (table-multi-row-column-cells.pdf;
reference: its -actual.csv), and pages without a table: the generated scans of tests/test_ocr.py, the first two
pages of each pdfminer/ja PDF (reference: the page's text layer; kampo.pdf left out, its layer is broken) and
unstructured's jpn-vert.jpeg. CER after NFKC without whitespace, and the order-free bag-of-characters error.
Needs tesseract (jpn, jpn_vert, eng) and a Japanese font; absent data is skipped with a message.
"""
from __future__ import annotations

import argparse
import csv as csvlib
import glob
import io
import os
import sys
import tempfile
import time
import unicodedata

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np
from common import machine, write
from PIL import Image

from kotae.ingest import ocr, ocr_rules
from scanned import (
    ENGLISH,
    JAPANESE,
    TABLE_EN,
    TABLE_JA,
    VERTICAL,
    bag_error,
    cer,
    horizontal_page,
    ja_font,
    latin_font,
    ruled_page,
    table_text,
    text_of,
    vertical_page,
)

JPN_VERT_TEXT = ("元来日本語は漢文に倣い、文字を上から下へ、また行を右から左へと進めて表記を行っていた。"
                 "漢字と仮名の筆順も縦書きを前提としており、横書き不能な書体も存在する。")


def pages(data: str) -> list[tuple[str, str, Image.Image, str, list[list[str]] | None]]:
    """(group, name, image, reference, the table's body rows or None) for every page of the bench."""
    dpi = ocr.DPI
    out: list[tuple[str, str, Image.Image, str, list[list[str]] | None]] = []
    ja, en = ja_font(), latin_font()
    if ja is None:
        print("no Japanese font: the Japanese generated pages are skipped (sudo apt-get install fonts-ipafont-gothic)")
    else:
        out.append(("ruled", "generated table, Japanese", ruled_page(TABLE_JA, ja, dpi=dpi), table_text(TABLE_JA),
                    TABLE_JA[1:]))
    out.append(("ruled", "generated table, English", ruled_page(TABLE_EN, en, dpi=dpi), table_text(TABLE_EN),
                TABLE_EN[1:]))
    samples = os.path.join(data, "samples")
    import pypdfium2 as pdfium  # type: ignore[import-untyped]

    table_pdf = os.path.join(samples, "unstructured", "pdf", "table-multi-row-column-cells.pdf")
    csv = os.path.join(samples, "unstructured", "table-multi-row-column-cells-actual.csv")
    if os.path.exists(table_pdf) and os.path.exists(csv):
        image = pdfium.PdfDocument(table_pdf)[0].render(scale=dpi / 72, grayscale=True).to_pil()
        with open(csv, encoding="utf-8") as f:
            text = f.read()
        body = [[c for c in row if c] for row in csvlib.reader(io.StringIO(text))][2:]
        out.append(("ruled", "table-multi-row-column-cells.pdf", image, text.replace(",", " ").replace('"', ""), body))
    else:
        print(f"{table_pdf} or its CSV is missing: skipped")
    out.append(("no table", "generated, English", horizontal_page(ENGLISH, en, dpi=dpi), text_of(ENGLISH), None))
    if ja is not None:
        out.append(("no table", "generated, Japanese", horizontal_page(JAPANESE, ja, dpi=dpi), text_of(JAPANESE), None))
        out.append(("no table", "generated, vertical", vertical_page(VERTICAL, ja, dpi=dpi), text_of(VERTICAL), None))
    for path in sorted(glob.glob(os.path.join(samples, "pdfminer", "ja", "*.pdf"))):
        if os.path.basename(path) == "kampo.pdf":
            continue
        pdf = pdfium.PdfDocument(path)
        for i in range(min(2, len(pdf))):
            page = pdf[i]
            layer = page.get_textpage().get_text_range()
            if layer.strip():
                image = page.render(scale=dpi / 72, grayscale=True).to_pil()
                out.append(("no table", f"{os.path.basename(path)} p.{i + 1}", image, layer, None))
    vert = os.path.join(samples, "unstructured", "img", "jpn-vert.jpeg")
    if os.path.exists(vert):
        out.append(("no table", "jpn-vert.jpeg", Image.open(vert), JPN_VERT_TEXT, None))
    return out


def _norm(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).split())


def rows_found(image: Image.Image, body: list[list[str]], rules: bool) -> float:
    """Share of the table's body rows whose every cell stands on one line of the page as kotae reads the scan
    (an image-only PDF through read_document: OCR, then the drawn table's rows)."""
    from kotae.ingest import read_document

    original = ocr_rules.without_rules
    if not rules:
        ocr_rules.without_rules = lambda gray: None
    try:
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "scan.pdf")
            image.convert("RGB").save(path, "PDF", resolution=ocr.DPI)
            text = read_document(path).pages[0]
    finally:
        ocr_rules.without_rules = original
    lines = [_norm(line) for line in text.split("\n")]
    return sum(any(all(_norm(c) in line for c in row) for line in lines) for row in body) / len(body)


def _machine() -> str:
    m = machine()
    return f"{m.get('cpu')} × {m.get('cores')}, load {m.get('loadavg_1_5_15')}, {m.get('date', '')}"


def read(image: Image.Image, engine: ocr.Engine, rules: bool) -> tuple[ocr.OcrPage, float]:
    original = ocr_rules.without_rules
    if not rules:
        ocr_rules.without_rules = lambda gray: None  # the code before: no rule pass
    try:
        start = time.perf_counter()
        page = ocr.recognise(image, engine)
        return page, time.perf_counter() - start
    finally:
        ocr_rules.without_rules = original


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data"))
    args = ap.parse_args()
    engine = ocr.find_engine("tesseract")
    if isinstance(engine, str):
        print(engine)
        return 1
    rows = []
    for group, name, image, reference, body in pages(args.data):
        gray = np.asarray(image.convert("L"))
        share = float(ocr_rules.rule_mask(gray).mean())
        kept, t_kept = read(image, engine, rules=False)
        shipped, t_shipped = read(image, engine, rules=True)
        row = {"group": group, "page": name, "rule_share": round(share, 4),
               "cleaned_read": share >= ocr_rules.MIN_SHARE and shipped.text != kept.text,
               "kept": {"cer": round(cer(reference, kept.text), 4), "bag": round(bag_error(reference, kept.text), 4),
                        "s": round(t_kept, 2)},
               "shipped": {"cer": round(cer(reference, shipped.text), 4),
                           "bag": round(bag_error(reference, shipped.text), 4), "s": round(t_shipped, 2)}}
        if body:
            row["kept"]["rows"] = round(rows_found(image, body, rules=False), 3)
            row["shipped"]["rows"] = round(rows_found(image, body, rules=True), 3)
        rows.append(row)
        print(f"{group:9} {name:40} rules {share:.4f}  kept CER {row['kept']['cer']:.3f} bag {row['kept']['bag']:.3f} "
              f"{t_kept:.1f} s | shipped CER {row['shipped']['cer']:.3f} bag {row['shipped']['bag']:.3f} "
              f"{t_shipped:.1f} s", flush=True)
    lines = ["# OCR of ruled pages: rules kept against taken out (kotae.ingest.ocr_rules)", "",
             (f"Command: `python bench/ocr_rules.py`. OCR at {ocr.DPI} dpi, tesseract psm {ocr.PSM}. Machine: "
              f"{_machine()}. Rows: share of the table's body rows whose every cell stands on one line of the page "
              "as `read_document` reads the scan (OCR, then the drawn table's rows)."), "",
             "| group | page | rule share | kept CER / bag / s / rows | shipped CER / bag / s / rows | read without rules |",
             "|---|---|---|---|---|---|"]

    def cell(arm: dict) -> str:
        rows = f" / {arm['rows']:.2f}" if "rows" in arm else ""
        return f"{arm['cer']:.3f} / {arm['bag']:.3f} / {arm['s']}{rows}"

    for r in rows:
        lines.append(f"| {r['group']} | {r['page']} | {r['rule_share']} | {cell(r['kept'])} | {cell(r['shipped'])} | "
                     f"{'yes' if r['cleaned_read'] else ''} |")
    for group in ("ruled", "no table"):
        part = [r for r in rows if r["group"] == group]
        if part:
            def mean(key: str, arm: str, part: list = part) -> float:
                values = [r[arm][key] for r in part if key in r[arm]]
                return sum(values) / len(values) if values else float("nan")
            def extra(arm: str, group: str = group, mean=mean) -> str:  # type: ignore[no-untyped-def]
                return f" / {mean('rows', arm):.2f}" if group == "ruled" else ""
            lines.append(f"| **{group}, mean** ({len(part)}) | | | {mean('cer', 'kept'):.3f} / {mean('bag', 'kept'):.3f} / "
                         f"{mean('s', 'kept'):.2f}{extra('kept')} | {mean('cer', 'shipped'):.3f} / "
                         f"{mean('bag', 'shipped'):.3f} / {mean('s', 'shipped'):.2f}{extra('shipped')} | |")
    write("ocr_rules", {"machine": machine(), "dpi": ocr.DPI, "psm": ocr.PSM, "pages": rows}, "\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
