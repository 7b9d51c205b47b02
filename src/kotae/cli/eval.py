"""`kotae eval run | beir | compare | sweep`: the command-line edge of kotae.eval."""
from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable

from kotae.cli.args import add_settings
from kotae.cli.ask import add_llm_args
from kotae.cli.docs import open_index
from kotae.config import MODES
from kotae.errors import KotaeError


def add_commands(sub: argparse._SubParsersAction, command: Callable[..., argparse.ArgumentParser]) -> None:  # type: ignore[type-arg]
    ev = sub.add_parser("eval", help="evaluate on a golden set or BEIR data").add_subparsers(
        required=True, metavar="EVAL")
    c = command(ev, "run", help="score retrieval, abstention and answers on a golden set (JSONL)")
    c.add_argument("golden", nargs="+", help="golden set file(s)")
    c.add_argument("--docs", help="index this folder first (into --index) before evaluating")
    c.add_argument("--mode", default="hybrid", choices=MODES)
    c.add_argument("--top-k", type=int, default=10, help="retrieval depth scored (default %(default)s)")
    c.add_argument("--rule", choices=("page", "phrase", "either"), default="either", help="what counts as a hit")
    c.add_argument("--out", help="write the full results as JSON here")
    c.add_argument("--out-dir", help="write report.md, results.json and categories.png here")
    add_llm_args(c)
    add_settings(c.add_argument_group("LLM judge (default: correctness by acceptable phrases only)"),
                 "judge.spec", "judge.base_url")
    c.set_defaults(run=cmd_eval_run)

    c = command(ev, "export-feedback", help="write the answers rated in the UI or API as a golden set (JSONL)")
    c.add_argument("out", help="the golden set to write, e.g. feedback.jsonl")
    c.set_defaults(run=cmd_export_feedback)

    c = command(ev, "beir", help="score each search mode on a BEIR-layout data set (corpus, queries, qrels)")
    c.add_argument("path", help="folder with corpus.jsonl, queries*.jsonl and qrels")
    c.add_argument("--split", help="qrels split (train, test, …; default: the only one present)")
    c.add_argument("--mode", action="append", choices=MODES, dest="modes",
                   help="search mode, repeatable (default: dense, keyword, hybrid)")
    c.add_argument("--limit-queries", type=int, metavar="N", help="only the first N queries (file order)")
    c.add_argument("--out", help="write the results as JSON here")
    c.add_argument("--per-query", action="store_true", help="include per-query rankings and metrics in --out")
    c.set_defaults(run=cmd_eval_beir)

    c = command(ev, "compare", help="per-question wins and losses of run B against run A (results JSON)")
    c.add_argument("a", help="results JSON of the baseline run")
    c.add_argument("b", help="results JSON of the run compared with it")
    c.add_argument("--metric", default="mrr@10", help="judges answerable questions (default %(default)s)")
    c.add_argument("--unanswerable-metric", default="abstained",
                   help="judges unanswerable questions (default %(default)s)")
    c.add_argument("--limit", type=int, default=50, help="questions listed per table (default %(default)s)")
    c.set_defaults(run=cmd_eval_compare)

    c = command(ev, "sweep", help="score chunk size × overlap × mode (× top-k) on a golden set")
    c.add_argument("golden", nargs="+", help="golden set file(s)")
    c.add_argument("--docs", required=True, help="the documents folder the golden set is about")
    c.add_argument("--max-tokens", type=_ints, default="128,192,256,384", help="chunk sizes (default %(default)s)")
    c.add_argument("--overlap", type=_ints, default="0,32,64", help="overlaps (default %(default)s)")
    c.add_argument("--modes", type=_modes, default="dense,keyword,hybrid", help="search modes (default %(default)s)")
    c.add_argument("--top-k", type=_ints, default="3,5,10",
                   help="passages the answer sees (default %(default)s; only with --no-retrieval-only)")
    c.add_argument("--retrieval-only", action=argparse.BooleanOptionalAction, default=True,
                   help="score retrieval only and skip the top-k dimension (default on; faster)")
    c.add_argument("--rule", choices=("page", "phrase", "either"), default="either")
    c.add_argument("--category", default="paraphrase", help="category charted and tabled (default %(default)s)")
    c.add_argument("--out", help="write the results as JSON here")
    c.add_argument("--out-dir", help="write sweep.md, sweep.json and sweep.png here")
    c.set_defaults(run=cmd_eval_sweep)


def _ints(text: str) -> tuple[int, ...]:
    try:
        values = tuple(int(v) for v in text.split(",") if v.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated whole numbers, got {text!r}") from None
    if not values or min(values) < 0:
        raise argparse.ArgumentTypeError(f"expected comma-separated whole numbers, got {text!r}")
    return values


def _modes(text: str) -> tuple[str, ...]:
    modes = tuple(m.strip() for m in text.split(",") if m.strip())
    bad = [m for m in modes if m not in MODES]
    if bad or not modes:
        raise argparse.ArgumentTypeError(f"unknown search mode {(bad or [text])[0]!r}; "
                                         f"choose one of {', '.join(MODES)}")
    return modes


def _write_json(path: str, payload: object) -> None:
    from kotae.eval.report import write_json

    write_json(path, payload)
    print(f"wrote {path}", file=sys.stderr)


def cmd_eval_run(args: argparse.Namespace) -> int:
    from kotae.eval import load_golden, markdown_table, run_golden
    from kotae.eval.judge import judge_from
    from kotae.eval.report import results_payload, write_report

    judge = judge_from(args.settings)
    items = [it for g in args.golden for it in load_golden(g)]
    with open_index(args, create=bool(args.docs)) as k:
        if args.docs:
            report = k.index([args.docs])
            for _, msg in report.failed:
                print(f"error: {msg}", file=sys.stderr)
        run = run_golden(items, k, mode=args.mode, top_k=args.top_k, rule=args.rule, llm=k.llm, judge=judge)
        print(markdown_table(run.summary()))
        if args.out or args.out_dir:
            payload = results_payload(run, {"golden": args.golden, "model": k.embedder.model_id,
                                            "chunking": k.store.meta("chunking")}, k.index_version())
            if args.out:
                _write_json(args.out, payload)
            if args.out_dir:
                for path in write_report(args.out_dir, payload):
                    print(f"wrote {path}", file=sys.stderr)
    return 0


def cmd_export_feedback(args: argparse.Namespace) -> int:
    from kotae.eval.feedback import golden_items

    with open_index(args) as k:
        items, skipped = golden_items(k.feedback())
    with open(args.out, "w", encoding="utf-8") as f:
        f.writelines(json.dumps(it, ensure_ascii=False) + "\n" for it in items)
    print(f"wrote {len(items)} golden items to {args.out}"
          + (f" ({skipped} feedback left out: a 👎 without the right passage, or an older rating)" if skipped else ""),
          file=sys.stderr)
    return 0


def cmd_eval_beir(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from kotae.eval.beir import load_beir
    from kotae.eval.beir_eval import DEFAULT_MODES, beir_table, default_index, evaluate_beir
    from kotae.facade import Kotae
    from kotae.progress import IndexProgress

    if args.limit_queries is not None and args.limit_queries < 1:
        raise KotaeError("--limit-queries must be 1 or more")
    data = load_beir(args.path, args.split, args.limit_queries)
    for w in data.warnings:
        print(f"warning: {w}", file=sys.stderr)
    settings = args.settings
    if not settings.explicit("store.index"):  # one cached index per data set and model
        from kotae.cli.args import note
        from kotae.facade import load_embedder

        embedder = load_embedder(settings.embed.model, warn=note)
        settings = replace(settings, store=replace(settings.store, index=default_index(data.name, embedder.name)))
        k = Kotae.open(settings=settings, embedder=embedder)
    else:
        k = open_index(argparse.Namespace(**{**vars(args), "settings": settings}), create=True)
    with k:
        with IndexProgress((len(data.corpus) + 499) // 500) as progress:
            run = evaluate_beir(data, k, args.modes or DEFAULT_MODES, progress.update)
        where = k.location
    print(beir_table([run]))
    print(f"{run.index['embedded']} passage(s) embedded, the rest from the cache in {where}", file=sys.stderr)
    if args.out:
        _write_json(args.out, run.to_json(per_query=args.per_query))
    return 0


def cmd_eval_compare(args: argparse.Namespace) -> int:
    from kotae.eval.compare import compare_markdown, compare_runs

    runs = []
    for path in (args.a, args.b):
        try:
            with open(path, encoding="utf-8") as f:
                runs.append(json.load(f))
        except OSError as e:
            raise KotaeError(f"{path}: cannot read the results ({e.strerror})") from e
        except json.JSONDecodeError as e:
            raise KotaeError(f"{path}: not a results JSON ({e}); write one with kotae eval run --out") from e
        if not isinstance(runs[-1], dict) or "questions" not in runs[-1]:
            raise KotaeError(f"{path}: no per-question rows; write one with kotae eval run --out")
    c = compare_runs(runs[0], runs[1], args.metric, args.unanswerable_metric)
    print(compare_markdown(c, os.path.basename(args.a), os.path.basename(args.b), args.limit))
    return 0


def cmd_eval_sweep(args: argparse.Namespace) -> int:
    from kotae.cli.args import note
    from kotae.eval import load_golden
    from kotae.eval.sweep import CHART_PANELS, SweepGrid, sweep, sweep_table
    from kotae.facade import load_embedder

    if not os.path.isdir(args.docs):
        raise KotaeError(f"{args.docs}: no such folder; pass the documents folder with --docs")
    items = [it for g in args.golden for it in load_golden(g)]
    grid = SweepGrid(args.max_tokens, args.overlap, args.modes, args.top_k)
    result = sweep(items, args.docs, load_embedder(args.settings.embed.model, warn=note), grid, rule=args.rule,
                   retrieval_only=args.retrieval_only, log=lambda m: print(m, file=sys.stderr))
    result.settings["golden"] = args.golden
    table = sweep_table(result, args.category)
    print(table)
    for s in result.skipped:
        print(f"skipped: {s}", file=sys.stderr)
    print(f"embedded {result.embedded} of {result.requested} passages asked for (the rest reused)", file=sys.stderr)
    if args.out:
        _write_json(args.out, result.to_json())
    if args.out_dir:
        from kotae.eval.plots import sweep_lines

        os.makedirs(args.out_dir, exist_ok=True)
        _write_json(os.path.join(args.out_dir, "sweep.json"), result.to_json())
        panels = [(args.category, "hit@3")] + [p for p in CHART_PANELS if p[0] == "overall"]
        series: tuple[str, ...] = ("mode", "overlap") if len(grid.overlaps) > 1 else ("mode",)
        if not args.retrieval_only and len(grid.top_ks) > 1:
            series += ("top_k",)
        chart = os.path.join(args.out_dir, "sweep.png")
        sweep_lines(result.rows, chart, panels, series)
        md = os.path.join(args.out_dir, "sweep.md")
        with open(md, "w", encoding="utf-8") as f:
            f.write(f"# kotae eval sweep\n\n{table}\n\nSettings: `{json.dumps(result.settings, ensure_ascii=False)}`"
                    f"\n\n![sweep](sweep.png)\n")
        print(f"wrote {chart}\nwrote {md}", file=sys.stderr)
    return 0
