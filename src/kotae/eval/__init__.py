"""Evaluation: golden sets, retrieval and answer metrics, reports.

golden (format) · metrics (pure) · runner (`eval run`) · report + plots (`--out-dir`) · compare
(`eval compare`) · sweep (`eval sweep`) · beir, beir_eval (`eval beir`) · memo (embedding
cache wrapper) (the CLI edge is kotae.cli.eval). Everything here reaches the library through `kotae.Kotae`.
"""
from kotae.eval.golden import GoldenItem, load_golden, parse_golden
from kotae.eval.runner import EvalRun, markdown_table, run_golden, summarise

__all__ = ["EvalRun", "GoldenItem", "load_golden", "markdown_table", "parse_golden", "run_golden", "summarise"]
