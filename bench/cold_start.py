"""One-shot `kotae ask` from a fresh process: wall time, this tree against another checkout, interleaved.

    python bench/cold_start.py [--before /work/main/src] [--rounds 5] [--docs samples/docs]

Each source tree indexes `--docs` once into its own temporary index (an index keeps the model id it was built
with), asks once untimed (so the user caches exist, as after a first question), then the trees take turns: each
round runs `python -m kotae --index IDX ask Q` once per tree and question, in a new process. Reports the median
and fastest wall time per tree and their ratio (the machine is shared: compare the ratio, see the load average),
and one `-X importtime` / cProfile-free breakdown of this tree's run: import of kotae.facade, Kotae.open, the
first ask. Writes bench/results/cold_start.{json,md}.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import machine, write

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QUESTIONS = ("有給休暇は何日ありますか", "How do I file an expense claim?")
STAGES = """
import sys, time
t0 = time.perf_counter()
import kotae.facade as f
t1 = time.perf_counter()
k = f.Kotae.open(sys.argv[1])
t2 = time.perf_counter()
k.ask(sys.argv[2])
t3 = time.perf_counter()
k.close()
print(f"{t1 - t0:.4f} {t2 - t1:.4f} {t3 - t2:.4f}")
"""


def run(src: str, args: list[str]) -> float:
    env = {**os.environ, "PYTHONPATH": src, "OPENBLAS_NUM_THREADS": "1"}
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "kotae", *args], env=env, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def stages(src: str, index: str, question: str) -> list[float]:
    env = {**os.environ, "PYTHONPATH": src, "OPENBLAS_NUM_THREADS": "1"}
    out = subprocess.run([sys.executable, "-c", STAGES, index, question], env=env, check=True,
                         capture_output=True, text=True).stdout
    return [float(x) for x in out.split()]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--before", default=os.path.join(ROOT, "..", "..", "main", "src"),
                    help="the src folder of the checkout to compare with (default: /work/main/src)")
    ap.add_argument("--docs", default=os.path.join(ROOT, "samples", "docs"))
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    trees = {"this tree": os.path.join(ROOT, "src")}
    if os.path.isdir(args.before):
        trees["before"] = os.path.abspath(args.before)
    load0 = os.getloadavg()
    times: dict[str, list[float]] = {t: [] for t in trees}
    parts: dict[str, list[list[float]]] = {t: [] for t in trees}
    with tempfile.TemporaryDirectory() as tmp:
        index = {t: os.path.join(tmp, f"idx{i}") for i, t in enumerate(trees)}
        for t, src in trees.items():
            run(src, ["--index", index[t], "index", args.docs])
            run(src, ["--index", index[t], "ask", QUESTIONS[0]])  # user caches in place, as after a first ask
        for _ in range(args.rounds):
            for q in QUESTIONS:
                for t, src in trees.items():
                    times[t].append(run(src, ["--index", index[t], "ask", q]))
            for t, src in trees.items():
                parts[t].append(stages(src, index[t], QUESTIONS[0]))
    mc = machine()
    res = {t: {"median_s": statistics.median(v), "min_s": min(v), "runs": v,
               "import_open_ask_s": [statistics.median(p[i] for p in parts[t]) for i in range(3)]}
           for t, v in times.items()}
    rows = [f"| {t} | {r['median_s']:.2f} | {r['min_s']:.2f} | "
            + " | ".join(f"{x:.2f}" for x in r["import_open_ask_s"]) + " |" for t, r in res.items()]
    ratio = (f"\n\nthis tree / before: median {res['this tree']['median_s'] / res['before']['median_s']:.2f}×, "
             f"fastest {res['this tree']['min_s'] / res['before']['min_s']:.2f}×." if "before" in res else "")
    md = (f"`kotae ask` in a new process on `{os.path.relpath(args.docs, ROOT)}`, {len(QUESTIONS)} questions × "
          f"{args.rounds} interleaved rounds per tree (before: `{args.before}`). Machine: {mc['cpu']}, "
          f"{mc['cores']} cores, load average {load0[0]:.1f} at start, {os.getloadavg()[0]:.1f} at the end "
          "(a shared machine: read the ratio). Command: `python bench/cold_start.py`.\n\n"
          "| tree | median s | fastest s | import kotae.facade s | Kotae.open s | first ask s |\n"
          "|---|---|---|---|---|---|\n" + "\n".join(rows) + ratio)
    write("cold_start", {"machine": mc, "loadavg_start": load0, "loadavg_end": os.getloadavg(), "trees": trees,
                         "results": res}, md)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
