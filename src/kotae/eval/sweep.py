"""`kotae eval sweep`: the golden set over chunk size × overlap × search mode (× answer top-k).

Each (chunk size, overlap) builds its own index in a temporary folder. One `MemoEmbedder` is shared by
all of them, so a passage whose text is unchanged between settings is embedded once (the store's own
cache cannot help here: every setting starts from an empty index).
"""
from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from kotae.config import ChunkSettings, IndexSettings, Settings
from kotae.errors import KotaeError
from kotae.eval.golden import GoldenItem
from kotae.eval.memo import MemoEmbedder
from kotae.eval.runner import answer_fields, retrieval_row, summarise
from kotae.facade import Embedder, Kotae

RETRIEVAL_K = 10  # retrieval metrics go to @10 whatever top-k the answer sees
CHART_PANELS = (("paraphrase", "hit@3"), ("overall", "mrr@10"))


@dataclass(frozen=True)
class SweepGrid:
    max_tokens: tuple[int, ...] = (128, 192, 256, 384)
    overlaps: tuple[int, ...] = (0, 32, 64)
    modes: tuple[str, ...] = ("dense", "keyword", "hybrid")
    top_ks: tuple[int, ...] = (3, 5, 10)


@dataclass
class SweepResult:
    settings: dict[str, Any]
    rows: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    embedded: int = 0  # passages the model really embedded
    requested: int = 0  # passages asked for (by the indexes, and by answers when they are built)

    def to_json(self) -> dict[str, Any]:
        from kotae.eval.report import settings_hash

        return {"settings": self.settings, "settings_hash": settings_hash(self.settings), "rows": self.rows,
                "skipped": self.skipped,
                "embedding": {"requested": self.requested, "embedded": self.embedded}}


def sweep(items: Sequence[GoldenItem], docs: str, embedder: Embedder, grid: SweepGrid, *, rule: str = "either",
          retrieval_only: bool = True, log: Callable[[str], None] | None = None) -> SweepResult:
    """Score every setting of `grid`; with `retrieval_only` the top-k dimension is skipped (no answers)."""
    if not items:
        raise KotaeError("the sweep needs at least one golden question")
    memo = MemoEmbedder(embedder)
    result = SweepResult({"docs": docs, "model": embedder.model_id, "rule": rule, "retrieval_only": retrieval_only,
                          "max_tokens": list(grid.max_tokens), "overlaps": list(grid.overlaps),
                          "modes": list(grid.modes), "top_ks": None if retrieval_only else list(grid.top_ks),
                          "retrieval_k": RETRIEVAL_K, "questions": len(items)})
    for size in grid.max_tokens:
        for overlap in grid.overlaps:
            if overlap >= size:
                result.skipped.append(f"max_tokens={size} overlap={overlap}: overlap must be below the chunk size")
                continue
            chunk = ChunkSettings(max_tokens=size, overlap_tokens=overlap)
            t0 = time.perf_counter()
            with tempfile.TemporaryDirectory(prefix="kotae-sweep-") as tmp:
                kotae = Kotae.open(tmp, settings=Settings(index=IndexSettings(chunk=chunk)), embedder=memo)
                try:
                    report = kotae.index([docs])
                    for path, msg in report.failed:
                        result.skipped.append(f"max_tokens={size} overlap={overlap}: {path}: {msg}")
                    chunks = sum(d.chunks for d in report.indexed)
                    texts = kotae.store.chunk_texts()
                    mean_chars = round(sum(len(t) for _, t in texts) / len(texts)) if texts else 0
                    for mode in grid.modes:
                        base = {"max_tokens": size, "overlap": overlap, "mode": mode, "chunks": chunks,
                                "mean_chars": mean_chars}
                        rows = [retrieval_row(it, kotae, mode=mode, top_k=RETRIEVAL_K, rule=rule) for it in items]
                        if retrieval_only:
                            result.rows.append({**base, "top_k": None, "summary": summarise(rows)})
                            continue
                        for k in grid.top_ks:
                            full = [{**r, **answer_fields(it, kotae, mode=mode, answer_k=k, rule=rule)}
                                    for it, r in zip(items, rows, strict=True)]
                            result.rows.append({**base, "top_k": k, "summary": summarise(full)})
                finally:
                    kotae.close()
            if log:
                log(f"max_tokens={size} overlap={overlap}: {chunks} chunks, "
                    f"{time.perf_counter() - t0:.1f} s")
    result.requested, result.embedded = memo.requested, memo.embedded
    return result


def sweep_table(result: SweepResult, category: str = "paraphrase") -> str:
    """One markdown row per setting: overall retrieval metrics, the category's hit@3, answer metrics."""
    answers = not result.settings["retrieval_only"]
    cols = ["max_tokens", "overlap", "mode", "top_k", "chunks", "mean chars", "hit@1", "hit@3", "mrr@10", "ndcg@10",
            f"{category} hit@3"] + (["correct", "false_refusal", "abstained"] if answers else [])
    lines = ["| " + " | ".join(cols) + " |", "|---" * len(cols) + "|"]
    for r in result.rows:
        o = r["summary"]["overall"]
        cat = r["summary"]["categories"].get(category, {})
        cells = [str(r["max_tokens"]), str(r["overlap"]), r["mode"],
                 "–" if r["top_k"] is None else str(r["top_k"]), str(r["chunks"]), str(r.get("mean_chars", "–"))]
        cells += [_f(o.get(m)) for m in ("hit@1", "hit@3", "mrr@10", "ndcg@10")] + [_f(cat.get("hit@3"))]
        if answers:
            cells += [_f(o.get(m)) for m in ("correct", "false_refusal", "abstained")]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _f(v: float | None) -> str:
    return "–" if v is None else f"{v:.3f}"
