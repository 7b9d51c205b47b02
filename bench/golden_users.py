"""Retrieval on the "as users ask" golden sets, per category and per split, every search mode.

    python bench/golden_users.py                         # writes bench/results/golden_users.{json,md}
    python bench/golden_users.py --shared /path/to/data  # the folder holding samples/ (default ../shared/data)

Sets: samples/golden-users-ja.jsonl and golden-users-en.jsonl over one index of samples/docs, and
bench/golden/users-real.jsonl over a second index of just the real files it names (under <shared>/samples,
indexed under their relative paths). Default settings and the bundled e5 model; retrieval only (top 10),
answerable questions only. Hit rule "either" (evidence page or phrase, as bench/golden.py) and, stricter,
"phrase" (the chunk holds a must_contain phrase: on a one-page CSV every chunk is on the evidence page).
The split field says which half a tuner may fit on ("fit") and which half it reports ("held-out").
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import defaultdict
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import machine, write

from kotae import Kotae
from kotae.config import Settings
from kotae.embed import DEFAULT_ENGINES, get_embedder
from kotae.eval import load_golden, run_golden

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLE_SETS = {"users-ja": "samples/golden-users-ja.jsonl", "users-en": "samples/golden-users-en.jsonl"}
REAL_SET = {"users-real": "bench/golden/users-real.jsonl"}
MODES = ("dense", "keyword", "hybrid")
METRICS = ("hit@1", "hit@5", "ndcg@10")


def splits_of(path: str) -> dict[str, str]:
    with open(path, encoding="utf-8") as f:
        return {d["id"]: d["split"] for d in map(json.loads, filter(str.strip, f))}


def score(rows: list[dict[str, Any]], strict: list[dict[str, Any]]) -> dict[str, Any]:
    """Means of METRICS (rule either) and hit@1 under the phrase rule over answerable rows."""
    out: dict[str, Any] = {"n": len(rows)}
    for m in METRICS:
        out[m] = round(sum(r[m] for r in rows) / len(rows), 4) if rows else None
    out["hit@1 phrase"] = round(sum(r["hit@1"] for r in strict) / len(strict), 4) if strict else None
    return out


def evaluate(path: str, searcher: Kotae) -> dict[str, Any]:
    """{mode: {group: scores}} with groups 'all', 'fit', 'held-out', '<category>', '<category>/<split>'."""
    items = [it for it in load_golden(os.path.join(ROOT, path)) if it.answerable]
    split = splits_of(os.path.join(ROOT, path))
    lang = {it.id: ("ja" if it.id.startswith(("uja", "rja")) else "en") for it in items}
    result: dict[str, Any] = {}
    for mode in MODES:
        either = run_golden(items, searcher, mode=mode, answers=False).per_question
        phrase = run_golden(items, searcher, mode=mode, answers=False, rule="phrase").per_question
        groups: dict[str, list[tuple[dict, dict]]] = defaultdict(list)
        for e, p in zip(either, phrase, strict=True):
            s = split[e["id"]]
            for g in ("all", s, e["category"], f"{e['category']}/{s}", f"lang:{lang[e['id']]}/{s}"):
                groups[g].append((e, p))
        result[mode] = {g: score([e for e, _ in rs], [p for _, p in rs]) for g, rs in sorted(groups.items())}
    return result


def real_files(path: str) -> list[str]:
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return sorted({d["file"] for d in map(json.loads, filter(str.strip, f)) if d.get("file")})


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", default=os.path.join(ROOT, "..", "shared", "data"))
    ap.add_argument("--model", default=DEFAULT_ENGINES[0])
    args = ap.parse_args()
    embedder = get_embedder(args.model)
    results: dict[str, Any] = {}
    seconds: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp, Kotae.open(tmp, settings=Settings(), embedder=embedder) as k:
        t0 = time.perf_counter()
        k.index([os.path.join(ROOT, "samples", "docs")])
        seconds["index samples/docs"] = time.perf_counter() - t0
        for name, path in SAMPLE_SETS.items():
            results[name] = evaluate(path, k)
    samples = os.path.join(args.shared, "samples")
    files = real_files(REAL_SET["users-real"])
    missing = [f for f in files if not os.path.isfile(os.path.join(samples, f))]
    if missing:
        print(f"users-real skipped: {len(missing)} files missing under {samples} (pass --shared)", file=sys.stderr)
    else:
        with tempfile.TemporaryDirectory() as tmp, Kotae.open(tmp, settings=Settings(), embedder=embedder) as k:
            paths = {os.path.join(samples, f): f for f in files}
            t0 = time.perf_counter()
            report = k.index(list(paths), names=paths)
            seconds["index users-real files"] = time.perf_counter() - t0
            if report.failed:
                print(f"users-real: {len(report.failed)} files failed to index: {report.failed}", file=sys.stderr)
            results["users-real"] = evaluate(REAL_SET["users-real"], k)
    write("golden_users", {"machine": machine(), "model": embedder.model_id, "index_seconds": seconds,
                           "results": results}, markdown(results, embedder.model_id, seconds))
    return 0


def markdown(results: dict[str, Any], model: str, seconds: dict[str, float]) -> str:
    m = machine()
    lines = [f"Golden sets \"as users ask\" (samples/golden-users-ja/en.jsonl over samples/docs; "
             f"bench/golden/users-real.jsonl over its {len(real_files(REAL_SET['users-real']))} real files). "
             f"Default settings, {model}, top 10, answerable questions, no tuning. Indexing: "
             + ", ".join(f"{k} {v:.0f} s" for k, v in seconds.items())
             + f". Machine: {m['cpu']}, {m['cores']} cores. Command: `python bench/golden_users.py`.", "",
             ("hit@1 / hit@5 / nDCG@10 use the hit rule 'either' (evidence page or phrase); 'hit@1 phr' counts "
              "only chunks holding a must_contain phrase."), "",
             "## Overall, per split", "",
             "| set | split | n | " + " | ".join(f"{mode} {c}" for mode in MODES
                                                for c in ("hit@1", "hit@5", "nDCG@10", "hit@1 phr")) + " |",
             "|---|---|---" + "|---" * 4 * len(MODES) + "|"]
    for name, res in results.items():
        for group in ("fit", "held-out", "all"):
            lines.append(_row([name, group], res, group))
    lines += ["", "## Per category and split", ""]
    for name, res in results.items():
        lines += [f"### {name}", "",
                  "| category | split | n | " + " | ".join(f"{mode} {c}" for mode in MODES
                                                         for c in ("hit@1", "hit@5", "nDCG@10", "hit@1 phr"))
                  + " |", "|---|---|---" + "|---" * 4 * len(MODES) + "|"]
        categories = sorted(g for g in res["hybrid"] if "/" not in g and g not in ("all", "fit", "held-out"))
        for cat in categories:
            for split in ("fit", "held-out"):
                if f"{cat}/{split}" in res["hybrid"]:
                    lines.append(_row([cat, split], res, f"{cat}/{split}"))
        if name == "users-real":
            for lang in ("ja", "en"):
                for split in ("fit", "held-out"):
                    lines.append(_row([f"(all {lang})", split], res, f"lang:{lang}/{split}"))
        lines.append("")
    return "\n".join(lines)


def _row(head: list[str], res: dict[str, Any], group: str) -> str:
    n = res["hybrid"][group]["n"]
    cells = [_f(res[mode][group][c]) for mode in MODES for c in ("hit@1", "hit@5", "ndcg@10", "hit@1 phrase")]
    return "| " + " | ".join([*head, str(n), *cells]) + " |"


def _f(v: object) -> str:
    return "–" if v is None else f"{v:.2f}"


if __name__ == "__main__":
    sys.exit(main())
