"""What kotae reads from real spreadsheets, decks and CSVs, and what hostile zip containers cost.

    python bench/office.py                      # ../shared/data/samples (unstructured + docling CSVs)
    python bench/office.py --data DIR --rows 50000

1. Every .xlsx/.xlsm/.pptx/.csv/.tsv under the data folder: kind, pages, sections, warnings, seconds, and
   the first lines of each page with their heading path and rows (the page and the citation a user sees).
2. Hostile and large containers, each read in a fresh subprocess (peak RSS above the process's baseline
   after importing kotae, from ru_maxrss): a 256 KB DOCX whose document.xml inflates to 256 MB (refused from
   the central directory), the same under a raised ratio cap but the default size cap (refused too), and a
   generated workbook of --rows rows × 8 columns read in read-only mode (pages, sections, RSS, seconds).
Writes bench/results/office.{json,md}.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile
import time
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import machine, write

from kotae.errors import DocumentError
from kotae.ingest import read_document

TYPES = (".xlsx", ".xlsm", ".pptx", ".csv", ".tsv")

PROBE = r"""
import json, resource, sys, time
from kotae.ingest import read_document
from kotae.ingest.zipcap import ZipLimits
import kotae.plugins; kotae.plugins.load()
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
limits = ZipLimits(**json.loads(sys.argv[2]))
try:
    doc = read_document(sys.argv[1], zip_limits=limits)
    out = {"ok": True, "pages": len(doc.pages), "sections": len(doc.sections), "chars": sum(map(len, doc.pages))}
except Exception as e:
    out = {"ok": False, "error": f"{type(e).__name__}: {e}"}
out["seconds"] = round(time.perf_counter() - t0, 3)
out["peak_rss_mb_above_baseline"] = round((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024, 1)
print(json.dumps(out))
"""


def survey(root: str, lines: int = 3) -> list[dict]:
    files = sorted(p for p in glob.glob(os.path.join(root, "**", "*"), recursive=True)
                   if os.path.splitext(p)[1].lower() in TYPES)
    out = []
    for path in files:
        t0 = time.perf_counter()
        try:
            doc = read_document(path)
        except DocumentError as e:
            out.append({"file": os.path.relpath(path, root), "error": str(e)})
            continue
        pages = []
        for number, text in enumerate(doc.pages, start=1):
            secs = [s for s in doc.sections if s.page == number][:lines]
            pages.append({"page": number, "lines": [{"heading": " › ".join(s.heading), "rows": s.rows,
                                                     "text": s.text[:160]} for s in secs]})
        out.append({"file": os.path.relpath(path, root), "kind": doc.kind, "pages": len(doc.pages),
                    "sections": len(doc.sections), "warnings": list(doc.warnings),
                    "seconds": round(time.perf_counter() - t0, 3), "first": pages})
    return out


def ratios(root: str) -> list[dict]:
    """Each real DOCX/XLSX/PPTX's XML part with the highest compression ratio (what the 100× cap must allow)."""
    out = []
    for path in sorted(glob.glob(os.path.join(root, "**", "*"), recursive=True)):
        if os.path.splitext(path)[1].lower() in (".docx", ".xlsx", ".xlsm", ".pptx"):
            with zipfile.ZipFile(path) as z:
                parsed = [i for i in z.infolist() if i.filename.lower().endswith((".xml", ".rels", ".vml"))]
                worst = max(parsed or z.infolist(), key=lambda i: i.file_size / max(1, i.compress_size))
                out.append({"file": os.path.relpath(path, root), "member": worst.filename,
                            "inflated": worst.file_size, "ratio": round(worst.file_size / max(1, worst.compress_size), 1),
                            "total_inflated": sum(i.file_size for i in z.infolist())})
    return out


def bomb(path: str, inflated_mb: int) -> str:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        with z.open("word/document.xml", "w") as f:
            f.write(b'<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>')
            for _ in range(inflated_mb):
                f.write(b" " * (1 << 20))
            f.write(b"</w:body></w:document>")
    return path


def big_sheet(path: str, rows: int) -> str:
    import openpyxl

    book = openpyxl.Workbook(write_only=True)
    sheet = book.create_sheet("台帳")
    sheet.append(["番号", "日付", "部署", "科目", "金額", "税", "承認者", "備考"])
    for i in range(1, rows + 1):
        sheet.append([i, f"2024-{i % 12 + 1:02d}-{i % 28 + 1:02d}", f"部署{i % 17}", f"科目{i % 31}",
                      i * 37 % 100000, (i * 37 % 100000) // 10, f"承認者{i % 5}", "備考" if i % 9 == 0 else None])
    book.save(path)
    return path


def probe(path: str, limits: dict) -> dict:
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    r = subprocess.run([sys.executable, "-c", PROBE, path, json.dumps(limits)], capture_output=True, text=True,
                       env=env, check=True)
    return json.loads(r.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--data", default=os.path.join(here, "..", "..", "shared", "data", "samples"))
    ap.add_argument("--rows", type=int, default=50_000, help="rows of the generated large workbook")
    args = ap.parse_args()
    files = survey(os.path.abspath(args.data))
    real = ratios(os.path.abspath(args.data))
    cases = []
    with tempfile.TemporaryDirectory() as tmp:
        b = bomb(os.path.join(tmp, "bomb.docx"), 256)
        size_kb = os.path.getsize(b) / 1024
        cases.append({"case": f"DOCX {size_kb:.0f} KB → 256 MB, default caps", **probe(b, {})})
        cases.append({"case": f"DOCX {size_kb:.0f} KB → 256 MB, max_ratio raised to 5000",
                      **probe(b, {"max_ratio": 5000})})
        t0 = time.perf_counter()
        x = big_sheet(os.path.join(tmp, "big.xlsx"), args.rows)
        made = time.perf_counter() - t0
        cases.append({"case": f"XLSX {args.rows:,} rows × 8 columns ({os.path.getsize(x) / 2**20:.1f} MB, "
                              f"written in {made:.0f} s)", **probe(x, {})})
    payload = {"data": os.path.abspath(args.data), "machine": machine(), "files": files, "containers": cases,
               "real_ratios": real}
    md = ["# Office files and zip containers (bench/office.py)", "",
          f"Data: `{args.data}` (every {', '.join(TYPES)}). Machine: {machine()}.",
          "Times are wall-clock on that machine at its load average (shared by other jobs).", "",
          "## What kotae reads", "", "| file | kind | pages | sections | s | first line of page 1 (heading › rows) |",
          "|---|---|---|---|---|---|"]
    for f in files:
        if "error" in f:
            md.append(f"| {f['file']} | error | | | | {f['error']} |")
            continue
        first = f["first"][0]["lines"][0] if f["first"] and f["first"][0]["lines"] else None
        shown = (f"{first['heading']} · rows {first['rows']} · `{first['text'][:90]}`" if first else "—")
        md.append(f"| {f['file']} | {f['kind']} | {f['pages']} | {f['sections']} | {f['seconds']} | "
                  f"{shown.replace('|', '¦').replace(chr(10), ' ⏎ ')} |")
    md += ["", "## Hostile and large containers (fresh process each)", "",
           "| case | result | s | peak RSS above baseline (MB) |", "|---|---|---|---|"]
    for c in cases:
        result = (f"read: {c['pages']} page(s), {c['sections']:,} sections" if c["ok"]
                  else "refused: " + c["error"].split(".docx: ", 1)[-1].split("; ")[0])
        md.append(f"| {c['case']} | {result.replace('|', '¦')} | {c['seconds']} | {c['peak_rss_mb_above_baseline']} |")
    top = max(real, key=lambda r: r["ratio"]) if real else None
    if top:
        md += ["", (f"Real Office files under the data folder: {len(real)}; the highest compression ratio of an XML part "
               f"is {top['ratio']}× ({top['file']}: {top['member']}, {top['inflated']:,} bytes), the largest "
               f"inflated total {max(r['total_inflated'] for r in real) / 2**20:.1f} MB — far under the caps "
               "(100×, 256 MB).")]
    write("office", payload, "\n".join(md) + "\n")



if __name__ == "__main__":
    main()
