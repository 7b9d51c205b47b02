"""PDF tables as rows: page hit@1/@5 on the 10-Q golden set, with and without table rows, and pages/s.

    python bench/pdf_tables.py [--data ../shared/data] [--variants off,on,heading,context] [--name pdf_tables]

All 20 filings of sec-10q/ go into one temporary index per variant (default settings, bundled e5 model,
hybrid search, top 5). "off" reads PDFs with table detection switched off (the reader before tables),
"on" with it (row chunks embedded and keyword-indexed as their text alone), "heading" with row chunks
after their heading path (the statement's title), "context" (the default now) with the filing's
registrant, form and period first in that path (kotae.ingest.cover). Variants run in one process share
one memo of embeddings (the same text is embedded once) and the table variants one reading of each filing
("on" and "heading" take the context back out of the row headings), so only the first variant's index s
and pages/s are end to end. Results are written after each variant. A question hits at k when one of the first k passages is on one of its pages (`pages`, or
the pages of an `also` file). Reported per split of bench/golden/sec10q.jsonl: fit (tuned on) and
held-out (reported). Writes bench/results/pdf_tables.{json,md}.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import machine, write
from reading import KeywordOnly  # the real tokenizer with one constant vector, for --keyword-only

from kotae import Kotae, pipeline
from kotae.embed import DEFAULT_ENGINES, get_embedder
from kotae.embed.base import Embedder, Kind
from kotae.ingest import pdf, pdf_table_pages
from kotae.types import Chunk, ParsedDocument

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLDEN = os.path.join(ROOT, "bench", "golden", "sec10q.jsonl")


def _targets(q: dict) -> set[tuple[str, int]]:
    out = {(os.path.basename(q["file"]), p) for p in q["pages"]}
    for extra in q.get("also", []):
        out |= {(os.path.basename(extra["file"]), p) for p in extra["pages"]}
    return out


class Memo(Embedder):
    """The real embedder with a memo: a text embedded for one variant is not embedded again for the next."""

    def __init__(self, real: Embedder) -> None:
        self.real, self.name, self.version, self.dim = real, real.name, real.version, real.dim
        self.batch_size = real.batch_size
        self.seen: dict[tuple[str, str], np.ndarray] = {}

    def count_tokens(self, text: str) -> int:
        return self.real.count_tokens(text)

    def embed_batch(self, texts: Sequence[str], kind: Kind) -> np.ndarray:
        todo = [t for t in dict.fromkeys(texts) if (kind, t) not in self.seen]
        if todo:
            for t, v in zip(todo, self.real.embed_batch(todo, kind), strict=True):
                self.seen[(kind, t)] = v
        return np.stack([self.seen[(kind, t)] for t in texts])


REAL_EMBED_TEXT = pipeline.embed_text
REAL_CONTEXT = pdf.filing_context


def _text_only(chunk: Chunk, contextual_prefix: bool = False) -> str:  # rows as their text alone (variant "on")
    return REAL_EMBED_TEXT(chunk, contextual_prefix) if contextual_prefix or chunk.rows is None else \
        pipeline.normalize_width(chunk.text)


READ = pipeline._read
DOCS: dict[str, ParsedDocument] = {}  # each filing read once for the table variants (reading is a fixed cost)


def _read_once(variant: str) -> Callable[[str, Any, Any], ParsedDocument]:
    def read(path: str, settings: Any, progress: Any) -> ParsedDocument:
        if path not in DOCS:
            DOCS[path] = READ(path, settings, progress)
        doc = DOCS[path]
        context = REAL_CONTEXT(doc.pages)
        if variant == "context" or not context:
            return doc
        return replace(doc, sections=tuple(replace(sec, heading=sec.heading[1:]) if sec.kind == "rows"
                                           and sec.heading[:1] == (context,) else sec for sec in doc.sections))

    return read


def run(variant: str, files: list[str], questions: list[dict], embedder: Embedder, mode: str = "hybrid") -> dict:
    real = pdf_table_pages.read_tables
    if variant == "off":
        pdf_table_pages.read_tables = lambda *a, **k: []  # the reader as it was before tables
        pdf.filing_context = lambda pages: ""  # type: ignore[assignment]
    else:
        pipeline._read = _read_once(variant)  # type: ignore[assignment]
    if variant in ("off", "on"):
        pipeline.embed_text = _text_only  # type: ignore[assignment]
    try:
        with tempfile.TemporaryDirectory() as tmp, \
                Kotae.open(os.path.join(tmp, "index.db"), embedder=embedder) as kotae:
            started = time.perf_counter()
            kotae.index(files)
            seconds = time.perf_counter() - started
            pages = sum(d.pages for d in kotae.documents())
            rows = []
            for q in questions:
                hits = kotae.search(q["question"], mode=mode, top_k=5).hits
                found = [(os.path.basename(h.chunk.file), h.chunk.page) for h in hits]
                want = _targets(q)
                rows.append({"id": q["id"], "split": q["split"], "category": q["category"],
                             "hit@1": found[:1] != [] and found[0] in want, "hit@5": any(f in want for f in found),
                             "top": found[:5]})
    finally:
        pdf_table_pages.read_tables = real
        pdf.filing_context = REAL_CONTEXT  # type: ignore[assignment]
        pipeline.embed_text = REAL_EMBED_TEXT  # type: ignore[assignment]
        pipeline._read = READ  # type: ignore[assignment]
    summary = {}
    for split in ("fit", "held-out"):
        part = [r for r in rows if r["split"] == split]
        summary[split] = {k: round(sum(r[k] for r in part) / max(1, len(part)), 3) for k in ("hit@1", "hit@5")}
        summary[split]["n"] = len(part)
    return {"variant": variant, "index_seconds": round(seconds, 1), "pages": pages,
            "pages_per_s": round(pages / seconds, 2), "summary": summary, "questions": rows}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data"))
    parser.add_argument("--variants", default="on,heading,context")
    parser.add_argument("--name", default="pdf_tables", help="results file name (one per variant run apart)")
    parser.add_argument("--keyword-only", action="store_true",
                        help="keyword search alone, nothing embedded (chunks cut by the real model's tokenizer)")
    args = parser.parse_args()
    folder = os.path.join(args.data, "sec-10q")
    files = sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".pdf"))
    with open(GOLDEN, encoding="utf-8") as f:
        questions = [json.loads(line) for line in f if line.strip()]
    questions = [q for q in questions if q.get("answerable", True)]
    real = get_embedder(DEFAULT_ENGINES[0])
    embedder: Embedder = KeywordOnly(real) if args.keyword_only else Memo(real)
    mode = "keyword" if args.keyword_only else "hybrid"
    results = []
    for v in args.variants.split(","):
        results.append(run(v, files, questions, embedder, mode))
        write(args.name, {"machine": machine(), "data": folder, "mode": mode, "results": results}, table(results, mode))
    return 0


def table(results: list[dict], mode: str) -> str:
    lines = [f"# PDF tables as rows: sec-10q page hit ({mode}, top 5, all 20 filings in one index)", "",
             "| variant | fit hit@1 | fit hit@5 | held-out hit@1 | held-out hit@5 | pages | index s | pages/s |",
             "|---|---|---|---|---|---|---|---|"]
    for r in results:
        s = r["summary"]
        lines.append(f"| {r['variant']} | {s['fit']['hit@1']} | {s['fit']['hit@5']} | {s['held-out']['hit@1']} | "
                     f"{s['held-out']['hit@5']} | {r['pages']} | {r['index_seconds']} | {r['pages_per_s']} |")
    lines += ["", ("Questions: bench/golden/sec10q.jsonl (answerable ones; n per split in the JSON). "
                   "pages/s: indexing end to end (read, chunk, embed, store); after the first variant, "
                   "texts embedded before are not embedded again and filings read before are not read again.")]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
