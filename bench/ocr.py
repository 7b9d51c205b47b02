"""OCR: pages per second and character error rate, per rendering resolution, and per language setting.

    python bench/ocr.py [--dpi 150,200,300] [--workers N] [--max-pages 12]

Pages:
- generated: the scanned test pages of tests/test_ocr.py (English 12 pt, Japanese 12 pt, vertical Japanese
  14 pt) and the same at small print (8 pt, 8 pt, 9 pt), drawn with Pillow at 300 dpi and wrapped in an
  image-only PDF; the reference is the text that was drawn;
- ../shared/data/samples/unstructured/img/jpn-vert.jpeg (169×350 px, vertical Japanese); the reference
  is its text, transcribed by hand below;
- ../shared/data/samples/pdfminer/ja/*.pdf (real PDFs with a text layer, the first --max-pages pages of
  each), OCR'd with --ocr always; the reference is the page's own cleaned text layer. Text layers of
  vertical pages list lines in an order that is not the reading order, so next to the CER (ordered)
  the bag-of-characters error (order-free: share of the reference's characters OCR did not produce)
  is reported.

CER: edit distance / reference length, after NFKC with all whitespace removed (tests/scanned.py).
Pages/s: wall time of read_document with OCR over all pages of a file, pages in parallel on --workers
threads (default: every core), one tesseract process each.
"""
from __future__ import annotations

import argparse
import glob
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
from common import machine, write
from PIL import Image

from kotae.errors import DocumentError
from kotae.ingest import read_document
from kotae.ingest.ocr import DPI, PSM, OcrOptions, find_engine, read_pass
from scanned import (
    ENGLISH,
    JAPANESE,
    VERTICAL,
    bag_error,
    cer,
    horizontal_page,
    ja_font,
    latin_font,
    save_pdf,
    text_of,
    vertical_page,
)

SAMPLES = os.path.join(ROOT, "..", "shared", "data", "samples")
JPN_VERT = os.path.join(SAMPLES, "unstructured", "img", "jpn-vert.jpeg")
JPN_VERT_TEXT = ("元来日本語は漢文に倣い、文字を上から下へ、また行を右から左へと進めて表記を行っていた。"
                 "漢字と仮名の筆順も縦書きを前提としており、横書き不能な書体も存在する。")
LANG_SETTINGS = ("eng", "jpn", "jpn_vert", "jpn+jpn_vert")


def generated(folder: str) -> tuple[str, list[tuple[str, str]]] | None:
    ja = ja_font()
    if ja is None:
        print("no Japanese font (fc-match :lang=ja); generated pages skipped", file=sys.stderr)
        return None
    latin = latin_font()
    pages = [
        ("English 12 pt", horizontal_page(ENGLISH, latin), text_of(ENGLISH)),
        ("Japanese 12 pt", horizontal_page(JAPANESE, ja), text_of(JAPANESE)),
        ("vertical 14 pt", vertical_page(VERTICAL, ja), text_of(VERTICAL)),
        ("English 8 pt", horizontal_page(ENGLISH, latin, pt=8), text_of(ENGLISH)),
        ("Japanese 8 pt", horizontal_page(JAPANESE, ja, pt=8), text_of(JAPANESE)),
        ("vertical 9 pt", vertical_page(VERTICAL, ja, pt=9), text_of(VERTICAL)),
    ]
    path = save_pdf(Path(folder) / "generated.pdf", [p[1] for p in pages])
    return str(path), [(name, ref) for name, _, ref in pages]


def ocr_file(path: str, options: OcrOptions, max_pages: int) -> tuple[list[str], float]:
    """OCR'd page texts and the wall time; PDFs longer than max_pages are cut to their first pages."""
    source = path
    if path.endswith(".pdf"):
        import pypdfium2 as pdfium  # type: ignore[import-untyped]

        pdf = pdfium.PdfDocument(path)
        if len(pdf) > max_pages:
            cut = pdfium.PdfDocument.new()
            cut.import_pages(pdf, list(range(max_pages)))
            source = os.path.join(tempfile.mkdtemp(), os.path.basename(path))
            cut.save(source)
    t0 = time.perf_counter()
    doc = read_document(source, ocr=options)
    return list(doc.pages), time.perf_counter() - t0


def layer_pages(path: str, max_pages: int) -> list[str]:
    try:
        return list(read_document(path, ocr="off").pages[:max_pages])
    except DocumentError:
        return []


def _mean(xs: list[float]) -> float | None:
    return round(sum(xs) / len(xs), 4) if xs else None


def languages(engine, images: list[tuple[str, Image.Image, str]]) -> dict[str, dict[str, float]]:  # type: ignore[no-untyped-def]
    """CER of each single tesseract pass (no English re-read) on each page: why jpn+jpn_vert is the first pass."""
    out: dict[str, dict[str, float]] = {}
    for name, image, ref in images:
        out[name] = {lang: round(cer(ref, read_pass(image.convert("L"), engine, lang).text), 4)
                     for lang in LANG_SETTINGS}
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dpi", default="150,200,300")
    ap.add_argument("--workers", type=int, default=0, help="OCR threads (default: one per core)")
    ap.add_argument("--max-pages", type=int, default=12, help="pages read from each sample PDF")
    args = ap.parse_args()
    engine = find_engine(os.environ.get("KOTAE_TESSERACT", "tesseract"))
    if isinstance(engine, str):
        print(f"bench/ocr.py: {engine}", file=sys.stderr)
        return 1
    load = [round(x, 2) for x in os.getloadavg()]  # other work on the machine slows tesseract down
    tmp = tempfile.mkdtemp()
    gen = generated(tmp)
    samples = sorted(glob.glob(os.path.join(SAMPLES, "pdfminer", "ja", "*.pdf")))
    if not samples:
        print(f"no PDFs in {SAMPLES}/pdfminer/ja; skipped", file=sys.stderr)
    has_vert = os.path.exists(JPN_VERT)
    if not has_vert:
        print(f"{JPN_VERT} not found; skipped", file=sys.stderr)
    per_dpi: dict[int, dict] = {}  # type: ignore[type-arg]
    for dpi in (int(x) for x in args.dpi.split(",")):
        options = OcrOptions("always", workers=args.workers, dpi=dpi)
        result: dict[str, dict] = {}  # type: ignore[type-arg]
        if gen:
            texts, secs = ocr_file(gen[0], options, args.max_pages)
            result["generated"] = {"pages": len(texts), "seconds": round(secs, 2),
                                   "pages_per_s": round(len(texts) / secs, 3),
                                   "cer": {name: round(cer(ref, t), 4) for (name, ref), t in zip(gen[1], texts)}}
        for path in samples:
            refs = layer_pages(path, args.max_pages)
            texts, secs = ocr_file(path, options, args.max_pages)
            pairs = [(r, t) for r, t in zip(refs, texts) if r.strip()]
            result[os.path.basename(path)] = {
                "pages": len(texts), "seconds": round(secs, 2), "pages_per_s": round(len(texts) / secs, 3),
                "cer": _mean([cer(r, t) for r, t in pairs]), "bag_error": _mean([bag_error(r, t) for r, t in pairs]),
            }
        per_dpi[dpi] = result
        print(f"{dpi} dpi done", file=sys.stderr)
    image_result = None
    if has_vert:
        texts, secs = ocr_file(JPN_VERT, OcrOptions("auto", workers=args.workers), args.max_pages)
        image_result = {"seconds": round(secs, 2), "cer": round(cer(JPN_VERT_TEXT, texts[0]), 4), "text": texts[0]}
    lang_images = []
    if gen:
        import pypdfium2 as pdfium

        pdf = pdfium.PdfDocument(gen[0])
        lang_images = [(name, pdf[i].render(scale=DPI / 72, grayscale=True).to_pil(), ref)
                       for i, (name, ref) in enumerate(gen[1][:3])]
    if has_vert:
        lang_images.append(("jpn-vert.jpeg", Image.open(JPN_VERT), JPN_VERT_TEXT))
    langs = languages(engine, lang_images)
    payload = {"settings": {"dpi": list(per_dpi), "chosen_dpi": DPI, "psm": PSM, "first_pass": engine.first,
                            "english_pass": engine.english, "workers": args.workers or os.cpu_count(),
                            "max_pages": args.max_pages},
               "machine": {**machine(), "load_average_at_start": load}, "per_dpi": per_dpi, "jpn_vert_jpeg": image_result, "languages": langs}
    note = (f"\n\n{os.cpu_count()} cores, {payload['settings']['workers']} OCR threads; load average at start "
            f"{load[0]} (pages/s falls when other work shares the cores).")
    write("ocr", payload, markdown(per_dpi, image_result, langs) + note)
    return 0


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def markdown(per_dpi, image_result, langs) -> str:  # type: ignore[no-untyped-def]
    lines = ["### OCR by resolution (`--ocr always`, PSM 3, first pass jpn+jpn_vert, eng re-read for Latin pages)",
             "", "| dpi | document | pages | pages/s | CER | bag-of-chars error |", "|---|---|---|---|---|---|"]
    for dpi, result in per_dpi.items():
        for name, r in result.items():
            if name == "generated":
                cers = r["cer"]
                lines.append(f"| {dpi} | generated (6 pages) | {r['pages']} | {r['pages_per_s']} | "
                             + ", ".join(f"{k} {_pct(v)}" for k, v in cers.items()) + " | |")
            else:
                lines.append(f"| {dpi} | {name} | {r['pages']} | {r['pages_per_s']} | {_pct(r['cer'])} | "
                             f"{_pct(r['bag_error'])} |")
    if image_result:
        lines += ["", f"jpn-vert.jpeg (image, read as is): CER {_pct(image_result['cer'])} in {image_result['seconds']} s"]
    if langs:
        lines += ["", "### CER of one tesseract pass per language setting (PSM 3)", "",
                  "| page | " + " | ".join(LANG_SETTINGS) + " |", "|---|" + "---|" * len(LANG_SETTINGS)]
        for name, row in langs.items():
            lines.append(f"| {name} | " + " | ".join(_pct(row[k]) for k in LANG_SETTINGS) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
