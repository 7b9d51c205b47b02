"""Peak memory and time of indexing each hostile file, one subprocess per case (psutil samples its RSS).

Cases: every case of tests/hostile_cases.py (generated, fixed seeds) plus large ones a test cannot afford
(a 10 MB one-line Markdown file, a 200 MB one-line CSV, a CSV with a million columns, a 1,000-frame TIFF,
100,000-deep HTML, a text file just under index.limits.max_chars). Each case runs `index_paths` in a fresh
process with the FakeEmbedder (reading, cleaning, chunking and storing are measured, not the model);
"over baseline" is the peak RSS minus the RSS after imports. Tesseract runs as a child process: its memory
is not counted. Also measured: the cost of reading in a child process (`kotae.isolate`) per small file, and
SQLite synchronous=FULL against NORMAL per document.

    python bench/hostile.py [--only ID ...] [--skip-large]
writes bench/results/hostile.{json,md}. No data set is needed: every input is generated.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:0] = [HERE, os.path.join(ROOT, "tests"), os.path.join(ROOT, "src")]

from common import machine, write

CAP_MB = 256  # the target: no single file takes more than this over the baseline

CHILD = r"""
import json, os, resource, sys, threading, time
sys.path[:0] = {paths!r}
import psutil
from conftest import FakeEmbedder
from kotae.config import IndexSettings, LimitSettings
from kotae.pipeline import index_paths
from kotae.store.sqlite import SQLiteStore
import kotae.ingest, kotae.plugins
kotae.plugins.load()
proc = psutil.Process()
base = proc.memory_info().rss
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")  # resets VmHWM, the peak RSS, to the RSS now
peak = [base]
stop = threading.Event()
def sample():
    while not stop.is_set():
        peak[0] = max(peak[0], proc.memory_info().rss)
        time.sleep(0.005)
threading.Thread(target=sample, daemon=True).start()
limits = LimitSettings(**json.loads(sys.argv[3]))
t = time.perf_counter()
report = index_paths([sys.argv[1]], SQLiteStore(sys.argv[2]), FakeEmbedder(), IndexSettings(limits=limits))
seconds = time.perf_counter() - t
stop.set()
with open("/proc/self/status") as f:
    hwm = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmHWM"))
peak_rss = max(peak[0], hwm)
print(json.dumps({{"seconds": seconds, "baseline_mb": base / 2**20, "over_mb": (peak_rss - base) / 2**20,
                  "outcome": "indexed" if report.indexed else "failed",
                  "message": report.failed[0][1] if report.failed else ""}}))
"""


def large_cases(folder: str) -> list[tuple[str, str, str]]:
    """(id, path, what it is) of the large cases, written into `folder`."""
    from PIL import Image

    out = []

    def put(name: str, writer) -> str:  # type: ignore[no-untyped-def]
        path = os.path.join(folder, name)
        with open(path, "w+b") as f:
            writer(f)
        return path

    out.append(("large-md-10mb-line-words", put("line-words.md", lambda f: f.write(b"# T\n\n" + b"word " * 2_000_000)),
                "Markdown, one 10 MB line of words"))
    out.append(("large-md-9.9mb-line-words", put("line-words-9.md", lambda f: f.write(
        b"# T\n\n" + b"word " * 1_980_000)), "Markdown, one 9.9 MB line of words (under max_chars)"))
    out.append(("large-md-10mb-line-nospace", put("line-x.md", lambda f: f.write(b"# T\n\n" + b"x" * 10_000_000)),
                "Markdown, one 10 MB line without a space"))
    out.append(("large-text-9.9m-chars", put("prose.txt", lambda f: f.write(
        b"Paid leave is twenty days per year and salaries are paid on the 25th.\n" * 140_000)),
        "plain text just under max_chars (9.9 M characters of sentences)"))

    def csv_line(f) -> None:  # type: ignore[no-untyped-def]
        f.write(b"a,b\n")
        for _ in range(200):
            f.write(b"x" * (1 << 20))
        f.write(b",1\n")
    out.append(("large-csv-200mb-line", put("line.csv", csv_line), "CSV, one 200 MB line"))
    out.append(("large-csv-1m-columns", put("cols.csv", lambda f: f.write(
        ",".join(f"c{i}" for i in range(1_000_000)).encode() + b"\n" + b"1," * 999_999 + b"1\n")),
        "CSV with a million columns (16 MB)"))

    def tiff(f) -> None:  # type: ignore[no-untyped-def]
        frame = Image.new("L", (1000, 1270), 255)
        frame.save(f, format="TIFF", save_all=True, append_images=[frame] * 999, compression="tiff_lzw")
    out.append(("large-tiff-1000-frames", put("frames.tif", tiff), "TIFF, 1,000 frames of 1000×1270"))
    out.append(("large-html-100k-deep", put("deep.html", lambda f: f.write(
        b"<html><body>" + b"<div>" * 100_000 + b"deep text here" + b"</div>" * 100_000 + b"</body></html>")),
        "HTML nested 100,000 deep"))
    return out


def run_case(path: str, limits: dict, timeout: float = 600) -> dict:  # type: ignore[type-arg]
    with tempfile.TemporaryDirectory() as index:
        code = CHILD.format(paths=[os.path.join(ROOT, "tests"), os.path.join(ROOT, "src")])
        env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
        try:
            p = subprocess.run([sys.executable, "-c", code, path, index, json.dumps(limits)], capture_output=True,
                               text=True, timeout=timeout, env=env, check=False)
        except subprocess.TimeoutExpired:
            return {"outcome": "timeout", "seconds": timeout, "over_mb": None, "message": ""}
        if p.returncode != 0:
            return {"outcome": f"crashed ({p.returncode})", "seconds": None, "over_mb": None,
                    "message": p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ""}
        return json.loads(p.stdout.strip().splitlines()[-1])


def isolation_cost(n: int = 30) -> dict:  # type: ignore[type-arg]
    """Seconds per small Markdown file read in-process and in a child process (after the forkserver starts)."""
    from hostile_cases import note
    from kotae.config import IndexSettings
    from kotae.isolate import read_isolated
    from kotae.pipeline import _read

    with tempfile.TemporaryDirectory() as d:
        paths = []
        for i in range(n):
            paths.append(os.path.join(d, f"n{i}.md"))
            with open(paths[-1], "wb") as f:
                f.write(note(f"Note {i}: paid leave is twenty days per year."))
        s = IndexSettings()
        t = time.perf_counter()
        read_isolated(paths[0], s)
        first = time.perf_counter() - t
        t = time.perf_counter()
        for p in paths:
            _read(p, s, None)
        inproc = (time.perf_counter() - t) / n
        t = time.perf_counter()
        for p in paths:
            read_isolated(p, s)
        child = (time.perf_counter() - t) / n
    return {"files": n, "first_call_s": first, "in_process_s_per_file": inproc, "child_s_per_file": child}


def sync_cost(n: int = 40) -> dict:  # type: ignore[type-arg]
    """Seconds per document written with synchronous=FULL and NORMAL (same files, FakeEmbedder)."""
    import kotae.store.sqlite as sq
    from conftest import FakeEmbedder
    from hostile_cases import note
    from kotae.config import IndexSettings
    from kotae.pipeline import index_paths

    out = {}
    with tempfile.TemporaryDirectory() as d:
        docs = os.path.join(d, "docs")
        os.makedirs(docs)
        for i in range(n):
            with open(os.path.join(docs, f"n{i}.md"), "wb") as f:
                f.write(note(f"Note {i}: paid leave is twenty days per year, salary on the 25th."))
        for mode in ("NORMAL", "FULL", "NORMAL", "FULL"):
            sq.SYNCHRONOUS = mode
            store = sq.SQLiteStore(os.path.join(d, f"index-{mode}-{len(out)}"))
            report = index_paths([docs], store, FakeEmbedder(), IndexSettings())
            out.setdefault(mode, []).append(report.seconds.get("write", 0.0) / n)
            store.close()
    sq.SYNCHRONOUS = "FULL"
    return {"documents": n, "write_s_per_document": {k: min(v) for k, v in out.items()}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", help="case ids to run (their rows replace those of the last run)")
    ap.add_argument("--skip-large", action="store_true")
    args = ap.parse_args()
    from dataclasses import asdict

    from hostile_cases import cases

    rows = []
    with tempfile.TemporaryDirectory() as d:
        todo = []
        for c in cases():
            if c.during is not None or (args.only and c.id not in args.only):
                continue  # a change while reading needs the in-process hook (tests/test_hostile.py)
            folder = os.path.join(d, c.id)
            os.makedirs(folder)
            todo.append((c.id, c.make(folder), c.expect, asdict(c.limits)))
        if not args.skip_large:
            big = os.path.join(d, "large")
            os.makedirs(big)
            todo += [(i, p, "fail or index", {}) for i, p, _ in large_cases(big) if not args.only or i in args.only]
        for case_id, path, expect, limits in todo:
            r = run_case(path, {k: v for k, v in limits.items() if v != getattr(_defaults(), k)})
            rows.append({"id": case_id, "expect": expect, "size": os.path.getsize(path) if os.path.isfile(path)
                         else None, **r})
            print(f"{case_id:32s} {r['outcome']:10s} {r.get('seconds') or 0:7.2f} s "
                  f"{r.get('over_mb') or 0:8.1f} MB  {r.get('message', '')[:90]}", flush=True)
    if args.only:  # a partial run updates the rows of the last full one
        try:
            with open(os.path.join(HERE, "results", "hostile.json"), encoding="utf-8") as f:
                old = json.load(f)["cases"]
        except (OSError, KeyError, ValueError):
            old = []
        new = {r["id"]: r for r in rows}
        rows = [new.pop(r["id"], r) for r in old] + list(new.values())
    iso, sync = isolation_cost(), sync_cost()
    worst = max((r for r in rows if r.get("over_mb") is not None), key=lambda r: r["over_mb"])
    payload = {"machine": machine(), "cap_mb": CAP_MB, "cases": rows, "isolation": iso, "synchronous": sync,
               "worst": {"id": worst["id"], "over_mb": worst["over_mb"]}}
    lines = [f"# Hostile inputs: peak RSS and time per file ({len(rows)} cases)", "",
             (f"Machine: {payload['machine']['cpu']}, {payload['machine']['cores']} cores, load "
             f"{payload['machine']['loadavg_1_5_15']}; commit {payload['machine']['commit']}. FakeEmbedder; one "
             "process per case; peak RSS sampled every 5 ms, minus the RSS after imports."), "",
             f"Worst: **{worst['id']}**, {worst['over_mb']:.0f} MB over baseline (target ≤ {CAP_MB} MB).", "",
             "| case | expected | outcome | s | MB over baseline | message |", "|---|---|---|---:|---:|---|"]
    for r in rows:
        msg = (r.get("message") or "").split(": ", 1)[-1][:100].replace("|", "/")
        over = f"{r['over_mb']:.0f}" if r.get("over_mb") is not None else "–"
        secs = f"{r['seconds']:.2f}" if r.get("seconds") is not None else "–"
        lines.append(f"| {r['id']} | {r['expect']} | {r['outcome']} | {secs} | {over} | {msg} |")
    lines += ["", (f"Reading in a child process (`kotae.isolate`, the server's uploads): first call "
              f"{iso['first_call_s']:.2f} s (forkserver start), then {iso['child_s_per_file'] * 1000:.0f} ms per "
              f"small file against {iso['in_process_s_per_file'] * 1000:.0f} ms in process ({iso['files']} files)."),
              "", "SQLite write per document (index.sqlite3, WAL): " + ", ".join(
                  f"synchronous={k} {v * 1000:.1f} ms" for k, v in sync["write_s_per_document"].items())
              + f" ({sync['documents']} small documents, best of two)."]
    write("hostile", payload, "\n".join(lines))


def _defaults():  # type: ignore[no-untyped-def]
    from kotae.config import LimitSettings

    return LimitSettings()


if __name__ == "__main__":
    main()
