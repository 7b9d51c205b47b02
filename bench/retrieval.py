"""Retrieval benchmark: BEIR-layout data sets (SciFact train, JSQuAD valid) in the dense, keyword and hybrid
modes; writes bench/results/retrieval.json (settings, versions, machine) and bench/results/retrieval.md
(retrieval_<model>.* for a model other than the default e5-small-onnx).

    python bench/retrieval.py [--data ../shared/data] [--model e5-small] [--limit-queries N]

Runs the library code of `kotae eval beir`. Indexes live in .kotae-beir/<data set>/<model> and keep their
embeddings, so a second run embeds nothing.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from datetime import UTC, datetime

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATASETS = (("jsquad-valid", None), ("squad2-dev-half", None), ("scifact", "train"))  # (folder, split; None = the only one present)
MODES = ("dense", "keyword", "hybrid")


def machine() -> dict[str, object]:
    cpu = "?"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "?")
    except OSError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(),
            "platform": platform.platform()}


class Ticker:
    """Progress on stderr, a line every few seconds."""

    def __init__(self, name: str, total: int) -> None:
        self.name, self.total, self.embedded, self.t0, self.last = name, total, 0, time.time(), 0.0

    def __call__(self, event: str, n: int) -> None:
        if event != "embedded":
            return
        self.embedded += n
        now = time.time()
        if now - self.last > 10 or self.embedded >= self.total:
            self.last = now
            rate = self.embedded / max(now - self.t0, 1e-9)
            print(f"{self.name}: {self.embedded}/{self.total} passages ({rate:.1f}/s)", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data"), help="folder of data sets")
    p.add_argument("--model", default="e5-small-onnx")
    p.add_argument("--index-root", default=os.path.join(ROOT, ".kotae-beir"))
    p.add_argument("--limit-queries", type=int, help="only the first N queries of each data set")
    p.add_argument("--out", default=os.path.join(ROOT, "bench", "results"))
    args = p.parse_args(argv)

    import kotae
    from kotae.embed import get_embedder
    from kotae.eval.beir import load_beir
    from kotae.eval.beir_eval import beir_table, default_index, evaluate_beir
    from kotae.store import open_store

    embedder = get_embedder(args.model)
    runs, results, skipped = [], [], []
    for folder, split in DATASETS:
        path = os.path.join(args.data, folder)
        if not os.path.isdir(path):
            print(f"skipping {folder}: {path} not found", file=sys.stderr)
            skipped.append(folder)
            continue
        data = load_beir(path, split, args.limit_queries)
        for w in data.warnings:
            print(f"{folder}: warning: {w}", file=sys.stderr)
        store = open_store(default_index(data.name, args.model, args.index_root))
        t0 = time.time()
        run = evaluate_beir(data, kotae.Kotae(store, embedder), MODES, Ticker(folder, len(data.corpus)))
        total = round(time.time() - t0, 1)
        store.close()
        print(beir_table([run]), file=sys.stderr, flush=True)
        runs.append(run)
        results.append({**run.to_json(), "seconds": total, "limit_queries": args.limit_queries})
    payload = {
        "bench": "retrieval", "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "versions": {"kotae": kotae.__version__, "model": embedder.model_id},
        "machine": machine(), "skipped": skipped, "results": results,
    }
    os.makedirs(args.out, exist_ok=True)
    name = "retrieval" if args.model == "e5-small-onnx" else f"retrieval_{args.model}"  # the default engine's
    with open(os.path.join(args.out, f"{name}.json"), "w", encoding="utf-8") as f:
        json.dump(payload, f, ensure_ascii=False, indent=2)
    with open(os.path.join(args.out, f"{name}.md"), "w", encoding="utf-8") as f:
        f.write(markdown(payload, beir_table(runs)))
    print(f"wrote {os.path.join(args.out, name)}.json and .md", file=sys.stderr)
    return 0


def markdown(payload: dict, table: str) -> str:  # type: ignore[type-arg]
    m = payload["machine"]
    lines = [
        "# Retrieval benchmark", "",
        (f"kotae {payload['versions']['kotae']}, model `{payload['versions']['model']}`, {payload['date']}; "
         f"{m['cpu']}, {m['cores']} cores, Python {m['python']}."), "",
        "Each corpus entry is one chunk (title + text); candidates 50 per retriever (100 ranked), RRF k=60.", "",
        table, "",
        "| data set | corpus | queries | index version | indexing s | total s | per mode s |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in payload["results"]:
        s, ix = r["settings"], r["index"]
        per_mode = ", ".join(f"{k} {v['seconds']}" for k, v in r["timings"].items())
        lines.append(f"| {s['dataset']} ({s['split']}) | {s['corpus']} | {s['queries']} | {ix['version']} | "
                     f"{ix['seconds']} | {r['seconds']} | {per_mode} |")
    if payload["skipped"]:
        lines += ["", f"Skipped (not found): {', '.join(payload['skipped'])}."]
    lines += ["", "Reproduce: `python bench/retrieval.py` (see bench/README.md).", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
