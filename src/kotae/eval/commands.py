"""`kotae eval …` commands: the CLI edge of the evaluation harness."""
from __future__ import annotations

import argparse
import json
import sys

from kotae.cli_common import searcher_for, store_for
from kotae.config import IndexSettings


def add_eval_commands(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    ev = sub.add_parser("eval", help="evaluate on a golden set").add_subparsers(required=True, metavar="EVAL")
    c = ev.add_parser("run", help="score retrieval, abstention and answers on a golden set (JSONL)")
    c.add_argument("golden", nargs="+", help="golden set file(s)")
    c.add_argument("--docs", help="index this folder first (into --index) before evaluating")
    c.add_argument("--mode", default="hybrid")
    c.add_argument("--top-k", type=int, default=10, help="retrieval depth scored (default %(default)s)")
    c.add_argument("--rule", choices=("page", "phrase", "either"), default="either", help="what counts as a hit")
    c.add_argument("--out", help="write the full results as JSON here")
    c.set_defaults(run=cmd_eval_run)


def cmd_eval_run(args: argparse.Namespace) -> int:
    from kotae.eval import load_golden, markdown_table, run_golden

    if args.docs:
        from kotae.embed import get_embedder
        from kotae.pipeline import index_paths

        report = index_paths([args.docs], store_for(args, must_exist=False), get_embedder(args.model), IndexSettings())
        for _, msg in report.failed:
            print(f"error: {msg}", file=sys.stderr)
    searcher = searcher_for(args)
    items = [it for g in args.golden for it in load_golden(g)]
    run = run_golden(items, searcher, mode=args.mode, top_k=args.top_k, rule=args.rule)
    summary = run.summary()
    print(markdown_table(summary))
    if args.out:
        payload = {"settings": {**run.settings, "golden": args.golden, "model": searcher.embedder.model_id},
                   "index_version": searcher.store.index_version(), "summary": summary,
                   "questions": run.per_question}
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(payload, f, ensure_ascii=False, indent=2)
        print(f"wrote {args.out}", file=sys.stderr)
    return 0


