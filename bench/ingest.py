"""Ingest speed end to end, the share of each stage, and the pipeline's overhead over the embedder alone.

    python bench/ingest.py                       # samples, the PDFs of ../shared/data/samples, 300 SciFact abstracts
    python bench/ingest.py --scifact 1000 --ocr auto

For each corpus, in one run: a fresh index (pages/s, chunks/s, seconds per stage: hash, read = parse +
clean (+ OCR), chunk = sentence split + token counting, embed, analyze = keyword tokens, write), then the
embedder alone on exactly the texts that were embedded (the overhead ratio: end-to-end time / embedder
time; target ≤ 1.1), then a second run over the unchanged files (skipped by content hash), then a forced
re-index (every file re-read and re-chunked; embeddings come from the cache by text hash).
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import machine, write

from kotae.config import IndexSettings
from kotae.embed import DEFAULT_ENGINES, get_embedder
from kotae.pipeline import embed_text, index_paths
from kotae.store import open_store

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STAGES = ("hash", "read", "chunk", "embed", "analyze", "write")


def corpora(data: str, scifact: int, tmp: str) -> dict[str, list[str]]:
    out = {"samples": [os.path.join(ROOT, "samples", "docs")]}
    pdfs = sorted(glob.glob(os.path.join(data, "samples", "**", "*.pdf"), recursive=True))
    if pdfs:
        out["shared sample PDFs"] = pdfs
    corpus = os.path.join(data, "scifact", "corpus.jsonl")
    if scifact and os.path.exists(corpus):
        folder = os.path.join(tmp, "scifact")
        os.makedirs(folder)
        with open(corpus, encoding="utf-8") as f:
            for i, line in zip(range(scifact), f, strict=False):
                d = json.loads(line)
                with open(os.path.join(folder, f"{d['_id']}.md"), "w", encoding="utf-8") as g:
                    g.write(f"# {d['title']}\n\n{d['text']}\n")
        out[f"SciFact abstracts ({scifact})"] = [folder]
    else:
        print(f"skipping SciFact: {corpus} not found", file=sys.stderr)
    return out


def measure(name: str, paths: list[str], embedder, settings: IndexSettings,  # type: ignore[no-untyped-def]
            repeats: int) -> dict:
    # warm the engine with full-size batches (its first ones grow buffers): a one-time cost, not the pipeline's
    embedder.passages([f"warm-up passage {i}. " + "Revenue grew in the north. " * 40 for i in range(64)])
    total = alone = float("inf")
    for _ in range(repeats):  # pipeline and embedder alone interleaved, the fastest of each kept
        tmp = tempfile.mkdtemp(prefix="kotae-ingest-")
        try:
            store = open_store(tmp)
            t0 = time.perf_counter()
            run = index_paths(paths, store, embedder, settings)
            if time.perf_counter() - t0 < total:
                total, first = time.perf_counter() - t0, run
            rows = [r for r, _ in store.chunk_texts()]
            chunks = store.chunks(rows)
            texts = list(dict.fromkeys(embed_text(chunks[r]) for r in rows))  # what was embedded (unique texts)
            t0 = time.perf_counter()
            embedder.passages(texts)
            alone = min(alone, time.perf_counter() - t0)
            t0 = time.perf_counter()
            index_paths(paths, store, embedder, settings)
            unchanged = time.perf_counter() - t0
            t0 = time.perf_counter()
            forced = index_paths(paths, store, embedder, settings, force=True)
            forced_s = time.perf_counter() - t0
            store.close()
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    pages = sum(d.pages for d in first.indexed)
    n_chunks = sum(d.chunks for d in first.indexed)
    tokens = sum(embedder.count_tokens(t) for t in texts)
    return {"corpus": name, "files": len(first.indexed), "failed": [m for _, m in first.failed], "pages": pages,
            "chunks": n_chunks, "embedded_texts": len(texts), "tokens": tokens, "total_s": round(total, 2),
            "pages_per_s": round(pages / total, 2), "chunks_per_s": round(n_chunks / total, 2),
            "stages_s": {k: round(first.seconds.get(k, 0.0), 3) for k in STAGES},
            "embedder_alone_s": round(alone, 2), "overhead_ratio": round(total / alone, 3),
            "unchanged_rerun_s": round(unchanged, 3), "unchanged_ratio": round(unchanged / total, 4),
            "forced_reindex_s": round(forced_s, 2), "forced_ratio": round(forced_s / total, 4),
            "forced_stages_s": {k: round(forced.seconds.get(k, 0.0), 3) for k in STAGES}}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data"))
    ap.add_argument("--model", default=DEFAULT_ENGINES[0])
    ap.add_argument("--repeats", type=int, default=3, help="runs of each measurement; the fastest is kept")
    ap.add_argument("--scifact", type=int, default=300, help="SciFact abstracts as Markdown files (0: none)")
    ap.add_argument("--ocr", default="off", choices=("off", "auto", "always"),
                    help="OCR of pages without text (default off: the text pipeline alone)")
    args = ap.parse_args()
    embedder = get_embedder(args.model)
    settings = IndexSettings(ocr=args.ocr)
    m = machine()
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, paths in corpora(args.data, args.scifact, tmp).items():
            r = measure(name, paths, embedder, settings, args.repeats)
            results.append(r)
            print(json.dumps(r, ensure_ascii=False), file=sys.stderr)
    lines = ["| corpus | files | pages | chunks | total s | pages/s | chunks/s | " + " | ".join(STAGES)
             + " | embedder alone s | overhead | unchanged rerun | forced re-index |", "|---" * 17 + "|"]
    for r in results:
        share = " | ".join(f"{100 * r['stages_s'][k] / r['total_s']:.1f} %" for k in STAGES)
        lines.append(f"| {r['corpus']} | {r['files']} | {r['pages']} | {r['chunks']} | {r['total_s']} | "
                     f"{r['pages_per_s']} | {r['chunks_per_s']} | {share} | {r['embedder_alone_s']} | "
                     f"**{r['overhead_ratio']}×** | {100 * r['unchanged_ratio']:.2f} % | "
                     f"{100 * r['forced_ratio']:.1f} % |")
    md = (f"Ingest, model {embedder.model_id}, OCR {args.ocr}, default chunking, engine warmed up first, fastest of "
          f"{args.repeats} interleaved runs (pipeline, embedder alone). Stage "
          f"columns: share of the end-to-end time. Overhead = end-to-end / embedder alone on the same texts (same run). Reruns: "
          f"time as a share of the first run. Machine: {m['cpu']}, {m['cores']} cores, load average at start "
          f"{m['loadavg_1_5_15'][0]}. Command: `python bench/ingest.py --scifact {args.scifact} --ocr {args.ocr} --repeats {args.repeats}"
          f"{'' if args.model == DEFAULT_ENGINES[0] else ' --model ' + args.model}`.\n\n"
          + "\n".join(lines))
    name = "ingest" if args.model == DEFAULT_ENGINES[0] else f"ingest_{args.model}"
    write(name, {"settings": vars(args), "machine": m, "results": results}, md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
