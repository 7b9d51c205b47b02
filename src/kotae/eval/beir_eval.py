"""`kotae eval beir`: index a BEIR corpus (one chunk per entry) and score each search mode on its qrels."""
from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from kotae.eval.beir import BeirData
from kotae.eval.memo import MemoEmbedder
from kotae.eval.metrics import graded_metrics, mean_metrics, percentile
from kotae.facade import Kotae
from kotae.types import Record

Progress = Callable[[str, int], None]  # see kotae.pipeline

DEPTH = 100  # ranks retrieved per query: recall@100 needs them all
DEFAULT_MODES = ("dense", "keyword", "hybrid")
COLUMNS = ("ndcg@10", "mrr@10", "recall@1", "recall@5", "recall@10", "recall@100")


def default_index(dataset: str, model: str, root: str = ".kotae-beir") -> str:
    """`.kotae-beir/<dataset>/<model>`, the model name made safe for a folder name."""
    return os.path.join(root, dataset, re.sub(r"[^A-Za-z0-9._-]+", "_", model))


@dataclass
class BeirRun:
    settings: dict[str, Any]
    index: dict[str, Any]
    modes: dict[str, dict[str, float]] = field(default_factory=dict)  # mode → metric → mean
    timings: dict[str, dict[str, float]] = field(default_factory=dict)  # mode → latency stats
    per_query: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def to_json(self, per_query: bool = False) -> dict[str, Any]:
        from kotae.eval.report import settings_hash

        out = {"settings": self.settings, "settings_hash": settings_hash(self.settings), "index": self.index,
               "metrics": self.modes, "timings": self.timings}
        if per_query:
            out["queries"] = self.per_query
        return out


def evaluate_beir(data: BeirData, kotae: Kotae, modes: Sequence[str] = DEFAULT_MODES,
                  progress: Progress | None = None,
                  on_query: Callable[[str, int], None] | None = None) -> BeirRun:
    """Index `data.corpus` into `kotae`'s index (reusing cached embeddings), then rank every query in each mode."""
    t0 = time.perf_counter()
    records = [Record(d.id, d.passage, d.title) for d in data.corpus]
    rep = kotae.index_records(records, data.name, progress)
    index_s = time.perf_counter() - t0
    embedder = kotae.embedder
    memo = MemoEmbedder(embedder)  # each query is embedded once, not once per mode
    search = replace(kotae.settings.search, top_k=DEPTH)
    searcher = kotae.using(embedder=memo, settings=replace(kotae.settings, search=search))
    run = BeirRun(
        settings={"dataset": data.name, "split": data.split, "modes": list(modes), "depth": DEPTH,
                  "queries": len(data.queries), "corpus": len(data.corpus), "model": embedder.model_id,
                  "candidates": search.candidates, "rrf_k": search.rrf_k},
        index={"version": kotae.index_version(), "location": kotae.location, "batches": rep.batches,
               "batches_written": rep.written, "embedded": rep.embedded, "seconds": round(index_s, 1)},
    )
    for mode in modes:
        rows: list[dict[str, Any]] = []
        latencies: list[float] = []
        t_mode = time.perf_counter()
        for i, (qid, text) in enumerate(data.queries, 1):
            t1 = time.perf_counter()
            res = searcher.search(text, mode=mode, top_k=DEPTH)
            latencies.append((time.perf_counter() - t1) * 1000)
            ranked = [h.chunk.file for h in res.hits]
            rows.append({"id": qid, **graded_metrics(ranked, data.qrels[qid]), "top": ranked[:10]})
            if on_query:
                on_query(mode, i)
        run.per_query[mode] = rows
        run.modes[mode] = {k: round(v, 4) for k, v in mean_metrics(
            [{m: r[m] for m in COLUMNS} for r in rows]).items()}
        run.timings[mode] = {"seconds": round(time.perf_counter() - t_mode, 1),
                             "p50_ms": round(percentile(latencies, 50), 1),
                             "p95_ms": round(percentile(latencies, 95), 1)}
    return run


def beir_table(runs: Sequence[BeirRun]) -> str:
    """One markdown row per (data set, mode)."""
    cols = ["data set", "split", "mode", "queries", *COLUMNS, "p50 ms"]
    lines = ["| " + " | ".join(cols) + " |", "|---" * len(cols) + "|"]
    for run in runs:
        s = run.settings
        for mode, m in run.modes.items():
            cells = [s["dataset"], s["split"], mode, str(s["queries"])]
            cells += [f"{m.get(c, 0.0):.3f}" for c in COLUMNS]
            cells.append(f"{run.timings[mode]['p50_ms']:.1f}")
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)
