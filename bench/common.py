"""Shared by the bench scripts: machine facts and result writing (JSON + markdown)."""
from __future__ import annotations

import hashlib
import json
import os
import platform
import subprocess
import sys
from datetime import UTC, datetime
from typing import Any

RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")


def machine() -> dict[str, Any]:
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), "")
    except OSError:
        pass
    import kotae

    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                check=False).stdout.strip()
    except OSError:
        commit = ""
    return {"cpu": cpu, "cores": os.cpu_count(), "python": sys.version.split()[0], "platform": platform.platform(),
            "kotae": kotae.__version__, "commit": commit,
            "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS"),
            "loadavg_1_5_15": [round(x, 2) for x in os.getloadavg()],  # other jobs on the machine
            "date": datetime.now(UTC).isoformat(timespec="seconds")}


def write(name: str, payload: dict[str, Any], markdown: str) -> None:
    os.makedirs(RESULTS, exist_ok=True)
    with open(os.path.join(RESULTS, f"{name}.json"), "w", encoding="utf-8") as f:
        json.dump(payload, f, ensure_ascii=False, indent=2)
    with open(os.path.join(RESULTS, f"{name}.md"), "w", encoding="utf-8") as f:
        f.write(markdown.rstrip() + "\n")
    print(markdown)
    print(f"wrote bench/results/{name}.json and .md")


def golden_splits(path: str) -> dict[str, str]:
    """id → split ("fit" / "held-out") of a golden file's items (those that carry one)."""
    out = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.strip() and not line.lstrip().startswith("//"):
                d = json.loads(line)
                if "split" in d:
                    out[str(d.get("id") or n)] = d["split"]
    return out


def hash_split(item_id: str) -> str:
    """A golden item's split from its id alone: "fit" when the first byte of sha1(id) is even, else
    "held-out". Deterministic, independent of file order, and stable when items are added."""
    return "fit" if hashlib.sha1(item_id.encode("utf-8")).digest()[0] % 2 == 0 else "held-out"


def alternate_splits(path: str) -> dict[str, str]:
    """id → split of every item of a golden file: its own `split` field where it has one, else the golden-users
    rule (samples/check_golden_users.py): fit / held-out alternately within each category, in file order (the
    first of a category is fit). Deterministic; golden-ja/en carry no field and are split by the rule."""
    out: dict[str, str] = {}
    seen: dict[str, int] = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.strip() and not line.lstrip().startswith("//"):
                d = json.loads(line)
                cat = str(d.get("category"))
                rule = ("fit", "held-out")[seen.get(cat, 0) % 2]
                seen[cat] = seen.get(cat, 0) + 1
                out[str(d.get("id") or n)] = d.get("split", rule)
    return out
