"""Evaluation: golden sets, retrieval and answer metrics, reports."""
from kotae.eval.golden import GoldenItem, load_golden, parse_golden
from kotae.eval.runner import EvalRun, markdown_table, run_golden, summarise

__all__ = ["EvalRun", "GoldenItem", "load_golden", "markdown_table", "parse_golden", "run_golden", "summarise"]
