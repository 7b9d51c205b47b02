"""Reading real documents: page hit@1/@5 and "must_contain in the top-5 passages" on the reading golden sets.

    python bench/reading.py [--shared ../shared/data] [--set sec10q|layout|all] [--modes hybrid,dense,keyword]
        [--option search.translation_weight=0.5,0] [--constant kotae.answer.extractive.TABLE_ROWS=false] [--index /tmp/keep]

Sets (bench/golden/README.md): sec10q (questions over financial-statement tables in 20 10-Q filings, ALL 20
filings in one index) and layout (multi-column, table, header/footer and vertical-text questions over the
sample PDFs, the files it cites in one index). Each set gets its own temporary index built with the current
code and default settings (`Kotae.open(tmp, settings=Settings(), embedder=get_embedder(DEFAULT_ENGINES[0]))`).

Hit: a result chunk from the question's file (or an `also` file: the same figure printed as a comparative in a
later filing) whose page is in the question's pages. hit@k: a hit among the first k results. must@5: the
question's must_contain occurs (whitespace-insensitive, whole figure) in one of the top-5 passages' text.
Answer (hybrid runs only): the extractive answer from the top 5 (`Kotae.ask`) holds it; a refusal does not.
Reported overall, per category and per split (fit / held-out) for each search mode.

`--modes keyword` alone skips embedding: the chunks are cut with the real model's tokenizer (so they are the
same chunks as a full run) but every vector is one constant, which keyword ranking never reads. It exists
because embedding ~1,100 filing pages takes hours on a loaded 2-core machine; its numbers are the keyword
mode's, exactly.

Writes bench/results/reading.{json,md} (--set all) or reading_<set>.{json,md}; a keyword-only run adds
"_keyword" to the name.
"""
from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "golden"))
from check_reading import SETS, contains, evidence, load
from common import machine, write

from kotae import Kotae
from kotae.config import Settings, overlay
from kotae.embed import DEFAULT_ENGINES, get_embedder
from kotae.embed.base import Embedder, Kind

ROOT = os.path.dirname(HERE)
TOP_K = 10
ANSWER_K = 5  # the extractive answer (hybrid runs) from the top 5, as bench/answers.py
SEC_DIR = "sec-10q"  # the sec10q index holds every filing here, cited or not


class KeywordOnly(Embedder):
    """The real model's tokenizer and identity with a constant vector: for keyword-only runs."""

    def __init__(self, real: Embedder) -> None:
        self.real, self.name, self.version, self.dim = real, real.name, real.version, real.dim

    def count_tokens(self, text: str) -> int:
        return self.real.count_tokens(text)

    def embed_batch(self, texts: Sequence[str], kind: Kind) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        out[:, 0] = 1.0
        return out


def score(item: dict[str, Any], hits: list[tuple[str, int, str]], answer: str | None = None) -> dict[str, Any]:
    """Per-question outcome from the ranked (relative file, page, text) results (and the extractive answer, or
    None where not asked)."""
    right = {(f, p) for f, pages in evidence(item) for p in pages}
    ranks = [i for i, (f, p, _) in enumerate(hits, 1) if (f, p) in right]
    first = ranks[0] if ranks else None
    return {"id": item["id"], "category": item["category"], "split": item["split"],
            "first_hit_rank": first, "hit@1": first == 1, "hit@5": first is not None and first <= 5,
            "must@5": any(contains(text, item["must_contain"]) for _, _, text in hits[:5]),
            "answer": None if answer is None else contains(answer, item["must_contain"]),
            "top": [f"{f}:{p}" for f, p, _ in hits[:5]]}


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    def agg(rs: list[dict[str, Any]]) -> dict[str, Any]:
        n = len(rs)
        asked = [r["answer"] for r in rs if r["answer"] is not None]
        return {"n": n, **{m: (sum(r[m] for r in rs) / n if n else None) for m in ("hit@1", "hit@5", "must@5")},
                "answer": sum(asked) / len(asked) if asked else None}

    out: dict[str, Any] = {"overall": agg(rows)}
    for key in ("split", "category"):
        for value in sorted({r[key] for r in rows}):
            out[f"{key}={value}"] = agg([r for r in rows if r[key] == value])
    return out


def files_for(name: str, items: list[dict[str, Any]], shared: str) -> list[str]:
    cited = {f for it in items for f, _ in evidence(it)}
    if name == "sec10q":
        cited |= {os.path.join(SEC_DIR, f) for f in os.listdir(os.path.join(shared, SEC_DIR)) if f.endswith(".pdf")}
    return sorted(cited)


@contextlib.contextmanager
def constant(name: str | None, value: str) -> Iterator[None]:
    """Module constant `name` ("package.module.NAME") set to `value` (a bool, int, float or str as it already is)
    for the block; None: nothing set."""
    if name is None:
        yield
        return
    mod = importlib.import_module(name.rsplit(".", 1)[0])
    attr = name.rsplit(".", 1)[1]
    saved = getattr(mod, attr)
    setattr(mod, attr, value.lower() in ("1", "true", "on") if isinstance(saved, bool) else type(saved)(value))
    try:
        yield
    finally:
        setattr(mod, attr, saved)


def run_set(name: str, shared: str, modes: list[str], embedder: Any, options: Sequence[tuple[str, str]] = (),
            keep: str | None = None, constants: Sequence[tuple[str, str]] = ()) -> dict[str, Any]:
    """The set's questions searched in each mode, and in hybrid mode with each `options` (key, value) set on
    top of the defaults (a column "hybrid key=value") and with each of `constants` (module constant, value) set
    (a column "hybrid NAME=value"); `keep`: the index folder to reuse."""
    items = [it for it in load(SETS[name]) if it.get("answerable", True)]
    files = files_for(name, items, shared)
    with tempfile.TemporaryDirectory() as tmp, Kotae.open(keep or tmp, settings=Settings(), embedder=embedder) as k:
        t0 = time.perf_counter()
        report = k.index([os.path.join(shared, f) for f in files])
        index_s = time.perf_counter() - t0
        docs = k.documents()
        rel = {d.id: os.path.relpath(d.path, shared) for d in docs}
        pages = sum(d.pages for d in docs)
        per_mode: dict[str, Any] = {}
        runs: list[tuple[str, str, Kotae, str | None, str]] = [(mode, mode, k, None, "") for mode in modes]
        runs += [(f"hybrid {key}={value}", "hybrid", k.using(settings=overlay(Settings(), {key: value}, "--option")),
                  None, "") for key, value in options]
        runs += [(f"hybrid {c.rsplit('.', 1)[1]}={value}", "hybrid", k, c, value) for c, value in constants]
        for label, mode, door, const, value in runs:
            rows = []
            with constant(const, value):
                for it in items:
                    result = door.search(it["question"], mode=mode, top_k=TOP_K)
                    hits = [(rel.get(h.chunk.doc_id, h.chunk.file), h.chunk.page, h.chunk.text) for h in result.hits]
                    said = door.ask(it["question"], mode=mode, top_k=ANSWER_K) if mode == "hybrid" else None
                    rows.append(score(it, hits, None if said is None else said.answer if said.found_in_docs else ""))
            per_mode[label] = {"summary": summarise(rows), "questions": rows}
    reused = not report.indexed  # every file was already in the kept index: nothing was read or timed
    return {"files": files, "documents": len(docs), "pages": pages, "index_s": None if reused else round(index_s, 1),
            "pages_per_s": None if reused or not index_s else round(pages / index_s, 2),
            "index_stage_s": {stage: round(s, 1) for stage, s in report.seconds.items()},
            "failed": [f"{path}: {why}" for path, why in report.failed], "modes": per_mode}


def _f(v: object) -> str:
    return "–" if v is None else f"{v:.3f}" if isinstance(v, float) else str(v)


def markdown(results: dict[str, Any], m: dict[str, Any], command: str) -> str:
    only = " (keyword-only run: chunks cut by the model's tokenizer, nothing embedded)" if results["keyword_only"] else ""
    lines = [(f"Reading golden sets (bench/golden/), default settings, {results['model']}{only}, top-{TOP_K} searched. "
             f"Machine: {m['cpu']}, {m['cores']} cores, load {m['loadavg_1_5_15']}, commit {m['commit']}. "
             f"Command: `{command}`."), ""]
    for name, r in results["sets"].items():
        timed = (f"indexing {r['index_s']} s ({r['pages_per_s']} pages/s)" if r["index_s"] is not None
                 else "the index kept by an earlier run (--index), indexing not timed")
        lines += [f"## {name}: {r['documents']} documents, {r['pages']} pages in one index; {timed}", "",
                  "| mode | slice | n | page hit@1 | page hit@5 | must_contain in top-5 | answer holds it |",
                  "|---|---|---|---|---|---|---|"]
        for mode, res in r["modes"].items():
            for key, s in res["summary"].items():
                lines.append(f"| {mode} | {key} | {s['n']} | {_f(s['hit@1'])} | {_f(s['hit@5'])} | {_f(s['must@5'])} | "
                             f"{_f(s.get('answer'))} |")
        lines.append("")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shared", default=os.path.join(ROOT, "..", "shared", "data"))
    ap.add_argument("--set", choices=("sec10q", "layout", "all"), default="all")
    ap.add_argument("--modes", default="hybrid,dense,keyword", help="comma-separated search modes")
    ap.add_argument("--option", action="append", default=[], metavar="KEY=V1,V2",
                    help="also search in hybrid mode with this setting at each value (a column each)")
    ap.add_argument("--constant", action="append", default=[], metavar="MODULE.NAME=V1,V2",
                    help="also search and answer in hybrid mode with this module constant at each value (a column each)")
    ap.add_argument("--index", help="index folder to keep and reuse (one set at a time)")
    ap.add_argument("--out", help="results name under bench/results (default reading, reading_<set>)")
    args = ap.parse_args()
    options = [(key, v) for o in args.option for key, values in [o.split("=", 1)] for v in values.split(",")]
    constants = [(c, v) for o in args.constant for c, values in [o.split("=", 1)] for v in values.split(",")]
    shared = os.path.abspath(args.shared)
    if not os.path.isdir(shared):
        print(f"no data at {shared}; pass --shared PATH (the folder holding sec-10q/ and samples/)")
        return 2
    names = ["sec10q", "layout"] if args.set == "all" else [args.set]
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    embedder = get_embedder(DEFAULT_ENGINES[0])
    keyword_only = modes == ["keyword"]
    if keyword_only:
        embedder = KeywordOnly(embedder)
    results: dict[str, Any] = {"model": embedder.model_id, "top_k": TOP_K, "settings": "Settings() defaults",
                               "keyword_only": keyword_only, "data": shared, "sets": {}}
    for name in names:
        results["sets"][name] = run_set(name, shared, modes, embedder, options, args.index, constants)
    m = machine()
    results["machine"] = m
    command = "python bench/reading.py" + ("" if args.set == "all" else f" --set {args.set}") + (
        " --modes keyword" if keyword_only else "") + "".join(f" --option {o}" for o in args.option) + "".join(f" --constant {c}" for c in args.constant)
    name = args.out or (("reading" if args.set == "all" else f"reading_{args.set}") + ("_keyword" if keyword_only else ""))
    write(name, results, markdown(results, m, command))
    return 0


if __name__ == "__main__":
    sys.exit(main())
