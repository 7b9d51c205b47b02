"""The PostgreSQL store's HNSW build, variants side by side on one table, and the exact scan's row layout.

    nice -n 10 python bench/pg_build.py [--n 100000] [--rounds 2] [--variants base,w0,half,...] [--exact-n 10000]
        [--out pg_build]

Part 1 (--n chunks, bench/postgres.py's synthetic corpus written through the store's bulk path with no
HNSW index): each variant's index is dropped and built on the same `chunks` table, the variants
alternating for --rounds rounds (same machine state), maintenance_work_mem 1GB as the store builds it.
A variant is the index's expression and operator class (vector, or halfvec through an expression index),
m, ef_construction and max_parallel_maintenance_workers ("pg": left to the server, PostgreSQL's default
being 2). For the build, with no parallel worker, the server process's CPU seconds and bytes read/written
(/proc) against the wall time say whether it is CPU or IO bound. After each variant's last build:
recall@10 as kotae searches (50 candidates, hnsw.ef_search = max(50, ef)) against exact search (numpy),
on a fit set and a held-out set of fresh queries of the corpus distribution, and the query p50. The
chosen setting: the fastest build whose fit recall reaches --target at kotae's ef_search; reported on
the held-out set.

Part 2 (--exact-n chunks, no HNSW index: what every index below 20,000 chunks and every narrow filter
searches): the store's dense search (exact scan) and keyword search with the vector stored out of line
(PostgreSQL's default TOAST above 2 kB a row) against kept in the row (toast_tuple_target 8160, the
store's schema since migration 3), both written the same way.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import machine, write
from latency import sentences
from postgres import fresh_schema, ingest, start_postgres, synthetic, unit_vectors

from kotae.eval.metrics import percentile
from kotae.store import open_store, postgres

DIM = 384
EF = (400, 600, 800, 1000)
KOTAE_EF = 800  # store.hnsw_ef_search
# name: (column type, m, ef_construction, max_parallel_maintenance_workers or "pg")
VARIANTS: dict[str, tuple[str, int, int, int | str]] = {
    "base": ("vector", 16, 64, "pg"),  # what the store builds today
    "w0": ("vector", 16, 64, 0),
    "w1": ("vector", 16, 64, 1),
    "w3": ("vector", 16, 64, 3),
    "half": ("halfvec", 16, 64, "pg"),
    "efc48": ("vector", 16, 48, "pg"),
    "m24efc40": ("vector", 24, 40, "pg"),
    "half_efc48": ("halfvec", 16, 48, "pg"),  # what the store builds today (store.hnsw_*)
    "half_efc32": ("halfvec", 16, 32, "pg"),
    "half_m12_efc32": ("halfvec", 12, 32, "pg"),
    # sign bits (binary_quantize) in the graph, Hamming distance; the candidates (ef_search of them) re-ranked by
    # the full vectors' cosine
    "bit_efc48": ("bit", 16, 48, "pg"),
}


def expression(kind: str) -> str:
    return {"vector": "embedding", "halfvec": f"(embedding::halfvec({DIM}))",
            "bit": f"(binary_quantize(embedding)::bit({DIM}))"}[kind]


def opclass(kind: str) -> str:
    return "bit_hamming_ops" if kind == "bit" else f"{kind}_cosine_ops"


def proc(pid: int) -> tuple[float, int, int]:
    """A local server process's CPU seconds and bytes read and written (0s where /proc does not say)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        io = {}
        with open(f"/proc/{pid}/io") as f:
            for line in f:
                k, v = line.split(":")
                io[k] = int(v)
        return cpu, io.get("read_bytes", 0), io.get("write_bytes", 0)
    except (OSError, IndexError, ValueError):
        return 0.0, 0, 0


def build(conn, name: str) -> dict:  # type: ignore[no-untyped-def,type-arg]
    kind, m, efc, workers = VARIANTS[name]
    conn.execute("DROP INDEX IF EXISTS chunks_embedding_hnsw")
    conn.execute("CHECKPOINT")
    pid = conn.execute("SELECT pg_backend_pid()").fetchone()[0]
    with conn.transaction():
        conn.execute("SELECT set_config('maintenance_work_mem', '1GB', true)")
        if workers != "pg":
            conn.execute("SELECT set_config('max_parallel_maintenance_workers', %s, true)", (str(workers),))
        cpu0, r0, w0 = proc(pid)
        t0 = time.perf_counter()
        conn.execute(f"CREATE INDEX chunks_embedding_hnsw ON chunks USING hnsw ({expression(kind)} {opclass(kind)}) "
                     f"WITH (m = {m}, ef_construction = {efc})")
        wall = time.perf_counter() - t0
        cpu1, r1, w1 = proc(pid)
    size = conn.execute("SELECT pg_relation_size('chunks_embedding_hnsw')").fetchone()[0]
    return {"build_s": round(wall, 2), "leader_cpu_s": round(cpu1 - cpu0, 2),
            "leader_read_mb": round((r1 - r0) / 2**20, 1), "leader_write_mb": round((w1 - w0) / 2**20, 1),
            "index_mb": round(size / 2**20, 1)}


def recall(conn, name: str, queries: np.ndarray, exact: list[set[int]], fit: int) -> dict:  # type: ignore[no-untyped-def,type-arg]
    kind = VARIANTS[name][0]
    expr = expression(kind)
    cast = "" if kind == "vector" else f"::halfvec({DIM})"
    sql = f"SELECT rowid FROM chunks ORDER BY {expr} <=> %s::vector{cast} LIMIT 50"
    out = {}
    for ef in EF:
        found, times = [], []
        if kind == "bit":
            sql = (f"SELECT rowid FROM (SELECT rowid, embedding FROM chunks ORDER BY {expr} <~> binary_quantize(%s::vector) "
                   f"LIMIT {ef}) s ORDER BY embedding <=> %s::vector LIMIT 50")
        for q, want in zip(queries, exact, strict=True):
            t0 = time.perf_counter()
            with conn.transaction():
                conn.execute("SELECT set_config('hnsw.ef_search', %s, true)", (str(max(50, ef)),))
                got = {r[0] for r in conn.execute(sql, (q, q) if kind == "bit" else (q,)).fetchall()}
            times.append((time.perf_counter() - t0) * 1000)
            found.append(len(want & got))
        out[f"ef{ef}"] = {"fit_recall_at_10": round(sum(found[:fit]) / (10 * fit), 4),
                          "held_out_recall_at_10": round(sum(found[fit:]) / (10 * (len(found) - fit)), 4),
                          "p50_ms": round(percentile(times, 50), 2)}
    plan = "\n".join(r[0] for r in conn.execute("EXPLAIN " + sql, (queries[0],) * sql.count("%s")).fetchall())
    out["uses_index"] = "chunks_embedding_hnsw" in plan
    return out


def part_build(base_url: str, n: int, names: list[str], rounds: int, queries: int) -> dict:  # type: ignore[type-arg]
    import psycopg
    from pgvector.psycopg import register_vector

    url = fresh_schema(base_url)
    store = open_store(url)
    store.bind_model("bench:1")
    saved, postgres.HNSW_MIN = postgres.HNSW_MIN, 10**12  # rows only: the variants build the index
    try:
        rows_s = ingest(store, synthetic(n, DIM, sentences(), n, "lowrank"))
    finally:
        postgres.HNSW_MIN = saved
    m = store.dense_matrix()
    qs = unit_vectors(2 * queries, DIM, "lowrank", np.random.default_rng(n + 1))  # fit, then held out
    exact = [set(m.rowids[np.argsort(-(m.vectors @ q), kind="stable")[:10]].tolist()) for q in qs]
    out: dict = {"rows_s": round(rows_s, 1), "builds": {v: [] for v in names}, "recall": {}}  # type: ignore[type-arg]
    with psycopg.connect(url, autocommit=True) as conn:
        register_vector(conn)
        out["server"] = conn.execute("SELECT version()").fetchone()[0].split(" on ")[0]
        out["pgvector"] = conn.execute("SELECT extversion FROM pg_extension WHERE extname='vector'").fetchone()[0]
        out["max_parallel_maintenance_workers"] = conn.execute("SHOW max_parallel_maintenance_workers").fetchone()[0]
        for r in range(rounds):
            for v in names if r % 2 == 0 else names[::-1]:
                b = build(conn, v)
                out["builds"][v].append(b)
                print(r, v, b, flush=True)
                if v not in out["recall"] and r == rounds - 1:
                    out["recall"][v] = recall(conn, v, qs, exact, queries)
                    print(v, out["recall"][v], flush=True)
    store.drop()
    return out


def part_exact(base_url: str, n: int, queries: int) -> dict:  # type: ignore[type-arg]
    from latency import ROOT
    from postgres import Precomputed, query_latency

    from kotae.embed import get_embedder
    from kotae.eval import load_golden

    e5 = get_embedder("e5-small")
    questions = [it.question for g in ("golden-ja.jsonl", "golden-en.jsonl")
                 for it in load_golden(os.path.join(ROOT, "samples", g))][:60]
    embedder = Precomputed({q: e5.query(q) for q in questions + ["warm up"]})
    docs = synthetic(n, DIM, sentences(), n, "lowrank")
    qs = list(unit_vectors(queries, DIM, "lowrank", np.random.default_rng(n + 1)))
    stores = {}
    for layout in ("out_of_line", "in_row"):
        store = open_store(fresh_schema(base_url))
        store.bind_model(embedder.model_id)
        if layout == "out_of_line":
            store._run("ALTER TABLE chunks RESET (toast_tuple_target)")
        ingest_s = ingest(store, docs)
        stores[layout] = (store, ingest_s)
    out: dict = {}  # type: ignore[type-arg]
    for _ in range(2):  # alternating, the second pass reported (caches warm)
        for layout, (store, ingest_s) in stores.items():
            times = []
            for q in qs:
                t0 = time.perf_counter()
                store.dense_search(q, 50)
                times.append((time.perf_counter() - t0) * 1000)
            heap, toast = store._rows("SELECT pg_relation_size('chunks'), coalesce((SELECT pg_relation_size(reltoastrelid) "
                                      "FROM pg_class WHERE oid = 'chunks'::regclass), 0)")[0]
            lat = query_latency(store, embedder, questions)
            out[layout] = {"ingest_s": round(ingest_s, 2), "heap_mb": round(heap / 2**20, 1),
                           "toast_mb": round(toast / 2**20, 1), "dense_search_p50_ms": round(percentile(times, 50), 2),
                           "search": {mode: lat[mode] for mode in ("dense", "hybrid")}}
    for store, _ in stores.values():
        store.drop()
    return out


def part_rows(base_url: str, n: int) -> dict:  # type: ignore[type-arg]
    """The rows' share of a bulk load and what one of its parts costs: the chunks written as the store writes
    them, and with the keyword (GIN) index dropped before and built after. (Until 2026-12-05 each vector was also
    written to the embedding cache; pg_build_3.md measured that part, at commit fecddaa.)"""
    docs = synthetic(n, DIM, sentences(), n, "lowrank")
    out: dict = {}  # type: ignore[type-arg]
    saved = postgres.HNSW_MIN
    postgres.HNSW_MIN = 10**12
    try:
        for way in ("as shipped", "keyword index built after"):
            store = open_store(fresh_schema(base_url))
            store.bind_model("bench:1")
            if "after" in way:
                store._run("DROP INDEX chunks_keywords")
            cpu0 = time.process_time()
            rows_s = ingest(store, docs)
            client = time.process_time() - cpu0
            t0 = time.perf_counter()
            if "after" in way:
                with store._pool.connection() as conn, conn.transaction():
                    conn.execute("SELECT set_config('maintenance_work_mem', '1GB', true)")
                    conn.execute("CREATE INDEX chunks_keywords ON chunks USING gin(keywords)")
            out[way] = {"rows_s": round(rows_s, 2), "keyword_index_s": round(time.perf_counter() - t0, 2),
                        "client_cpu_s": round(client, 2)}
            print(way, out[way], flush=True)
            store.drop()
    finally:
        postgres.HNSW_MIN = saved
    return out


def chosen(res: dict, target: float) -> str | None:  # type: ignore[type-arg]
    ok = [(min(b["build_s"] for b in res["builds"][v]), v) for v in res["recall"]
          if res["recall"][v][f"ef{KOTAE_EF}"]["fit_recall_at_10"] >= target]
    return min(ok)[1] if ok else None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--variants", default="base,w0,w1,half,efc48")
    ap.add_argument("--queries", type=int, default=100, help="fit queries (and as many held out)")
    ap.add_argument("--target", type=float, default=0.98)
    ap.add_argument("--exact-n", type=int, default=10_000, help="part 2's size (0: skip)")
    ap.add_argument("--rows", action="store_true", help="also part 3: the rows' cost, with and without the keyword "
                                                        "index and the embedding cache (at --n)")
    ap.add_argument("--database-url")
    ap.add_argument("--out", default="pg_build", help="results name under bench/results (default %(default)s)")
    args = ap.parse_args()
    names = args.variants.split(",")
    payload: dict = {"settings": vars(args), "variants": {v: VARIANTS[v] for v in names}}  # type: ignore[type-arg]
    mach = machine()
    with tempfile.TemporaryDirectory(prefix="kotae-pgbuild-") as tmp:
        base_url = args.database_url or start_postgres(tmp)
        if args.exact_n:
            payload["exact"] = part_exact(base_url, args.exact_n, args.queries)
            print(payload["exact"], flush=True)
        if args.rows:
            payload["rows"] = part_rows(base_url, args.n)
        if args.n:
            payload["build"] = part_build(base_url, args.n, names, args.rounds, args.queries)
            payload["build"]["chosen"] = chosen(payload["build"], args.target)
    payload["machine"] = {**mach, "load_average_at_end": [round(x, 2) for x in os.getloadavg()]}
    write(args.out, payload, markdown(payload))
    return 0


def markdown(p: dict) -> str:  # type: ignore[type-arg]
    st, mach = p["settings"], p["machine"]
    lines = [(f"Machine: {mach['cpu']}, {mach['cores']} cores, load average {mach['loadavg_1_5_15']} at start, "
              f"{mach['load_average_at_end']} at end; commit {mach['commit']}."), ""]
    if "build" in p:
        b = p["build"]
        lines += [(f"**HNSW build** on the store's `chunks` table, {st['n']:,} synthetic chunks (bench/postgres.py's "
                   f"lowrank vectors, 384-d; rows written in {b['rows_s']} s), {b['server']}, pgvector {b['pgvector']}, "
                   f"server max_parallel_maintenance_workers {b['max_parallel_maintenance_workers']}; variants "
                   f"alternating for {st['rounds']} rounds (build s per round). Recall@10 as kotae searches (50 "
                   f"candidates) against exact, {st['queries']} fit / {st['queries']} held-out queries, p50 ms over both."),
                  "", "| variant | type | m, ef_c | workers | build s | leader CPU s | leader read / write MB | index MB | "
                  + " | ".join(f"ef_search {e}: fit / held-out (p50)" for e in EF) + " |",
                  "|---|---|---|---|---|---|---|---|" + "---|" * len(EF)]
        for v, builds in b["builds"].items():
            kind, m, efc, w = p["variants"][v]
            last = builds[-1]
            rec = b["recall"].get(v, {})
            cells = [f"{rec[f'ef{e}']['fit_recall_at_10']:.3f} / {rec[f'ef{e}']['held_out_recall_at_10']:.3f} "
                     f"({rec[f'ef{e}']['p50_ms']})" if rec else "" for e in EF]
            lines.append(f"| {v} | {kind} | {m}, {efc} | {w} | {' / '.join(str(x['build_s']) for x in builds)} | "
                         f"{' / '.join(str(x['leader_cpu_s']) for x in builds)} | {last['leader_read_mb']} / "
                         f"{last['leader_write_mb']} | {last['index_mb']} | " + " | ".join(cells) + " |")
        c = b.get("chosen")
        lines += ["", (f"Chosen (fastest build with fit recall@10 ≥ {st['target']} at ef_search {KOTAE_EF}): **{c}**, "
                       f"held-out recall {b['recall'][c][f'ef{KOTAE_EF}']['held_out_recall_at_10']:.3f}."
                       if c else f"No variant reached fit recall {st['target']} at ef_search {KOTAE_EF}."), ""]
    if "rows" in p:
        lines += [(f"**Rows** ({st['n']:,} chunks written through the bulk path, no HNSW index): seconds to write "
                   "them, to build the keyword index after (where it was dropped before), and the client's CPU "
                   "seconds (encoding the rows)."), "", "| way | rows s | keyword index s | total s | client CPU s |",
                  "|---|---|---|---|---|"]
        for way, r in p["rows"].items():
            lines.append(f"| {way} | {r['rows_s']} | {r['keyword_index_s']} | "
                         f"{round(r['rows_s'] + r['keyword_index_s'], 2)} | {r['client_cpu_s']} |")
        lines.append("")
    if "exact" in p:
        lines += [(f"**Exact scan, vector out of line vs in the row**: {st['exact_n']:,} chunks, no HNSW index; "
                   f"the store's dense_search (k 50) p50 over {st['queries']} queries, and Searcher.search p50 / "
                   "p95 ms (60 golden questions, query embedding excluded) with its dense and keyword stages."), "",
                  ("| layout | ingest s | heap MB | TOAST MB | dense_search p50 | search dense mode p50 / p95 (dense, "
                   "keyword stage) | search hybrid p50 / p95 (dense, keyword stage) |"), "|---|---|---|---|---|---|---|"]
        for layout, r in p["exact"].items():
            s = r["search"]
            cells = [f"{s[m]['p50_ms']} / {s[m]['p95_ms']} ({s[m]['dense_p50_ms']}, {s[m]['keyword_p50_ms']})"
                     for m in ("dense", "hybrid")]
            lines.append(f"| {layout} | {r['ingest_s']} | {r['heap_mb']} | {r['toast_mb']} | "
                         f"{r['dense_search_p50_ms']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
