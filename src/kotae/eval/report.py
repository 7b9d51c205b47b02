"""Reports of a golden-set run: results.json (settings, their hash, index version, rows, summary),
report.md (the table and the settings) and a per-category chart."""
from __future__ import annotations

import hashlib
import json
import os
from typing import Any

from kotae.eval.runner import EvalRun, markdown_table

CHART_METRICS = ("hit@1", "hit@3", "mrr@10", "ndcg@10")


def canonical_json(value: Any) -> str:
    """Sorted keys, no spaces, UTF-8 kept: the same settings always give the same text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def settings_hash(settings: dict[str, Any]) -> str:
    """sha1 of the canonical JSON of the settings: two runs with equal hashes ran the same way."""
    return hashlib.sha1(canonical_json(settings).encode("utf-8")).hexdigest()


def results_payload(run: EvalRun, extra_settings: dict[str, Any], index_version: str) -> dict[str, Any]:
    """What results.json (and `eval run --out`) holds."""
    settings = {**run.settings, **extra_settings}
    return {"settings": settings, "settings_hash": settings_hash(settings), "index_version": index_version,
            "summary": run.summary(), "questions": run.per_question}


def report_markdown(payload: dict[str, Any], charts: list[str] | None = None) -> str:
    lines = ["# kotae eval run", "", markdown_table(payload["summary"]), "", "## Settings", ""]
    lines += [f"- {k}: `{canonical_json(v)}`" for k, v in sorted(payload["settings"].items())]
    lines += [f"- settings hash: `{payload['settings_hash']}`", f"- index version: `{payload['index_version']}`"]
    for c in charts or []:
        lines += ["", f"![{os.path.splitext(c)[0]}]({c})"]
    return "\n".join(lines) + "\n"


def write_json(path: str, payload: Any) -> None:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(payload, f, ensure_ascii=False, indent=2)


def write_report(out_dir: str, payload: dict[str, Any]) -> list[str]:
    """Write results.json, categories.png and report.md into `out_dir`; returns the paths written."""
    from kotae.eval.plots import category_bars

    os.makedirs(out_dir, exist_ok=True)
    paths = [os.path.join(out_dir, "results.json")]
    write_json(paths[0], payload)
    chart = os.path.join(out_dir, "categories.png")
    category_bars(payload["summary"], chart, CHART_METRICS)
    paths.append(chart)
    md = os.path.join(out_dir, "report.md")
    with open(md, "w", encoding="utf-8") as f:
        f.write(report_markdown(payload, [os.path.basename(chart)]))
    paths.append(md)
    return paths
