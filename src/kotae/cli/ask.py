"""Commands that ask: ask, repl, calibrate."""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable

from kotae.cli.args import add_settings
from kotae.cli.docs import open_index
from kotae.types import Answer

SEARCH_KEYS = ("search.top_k", "search.mode", "search.reranker")
LLM_KEYS = ("llm.spec", "llm.base_url", "llm.timeout", "llm.retries", "llm.temperature", "llm.max_tokens",
            "llm.context", "llm.long_evidence", "llm.rewrite")


def add_commands(sub: argparse._SubParsersAction, command: Callable[..., argparse.ArgumentParser]) -> None:  # type: ignore[type-arg]
    c = command(sub, "ask", help="ask a question")
    c.add_argument("question")
    add_search_args(c)
    add_llm_args(c)
    c.add_argument("--json", action="store_true", help="print the result as JSON")
    c.set_defaults(run=cmd_ask)

    c = command(sub, "repl", help="ask questions one after another")
    add_search_args(c)
    add_llm_args(c)
    c.set_defaults(run=cmd_repl)

    c = command(sub, "calibrate", help="fit the abstention gate on a labelled golden set; store it")
    c.add_argument("golden", nargs="+")
    c.add_argument("--max-false-refusal", type=float, default=0.05,
                   help="largest share of answerable questions the gate may refuse (default %(default)s)")
    c.set_defaults(run=cmd_calibrate)


def add_search_args(c: argparse.ArgumentParser) -> None:
    add_settings(c, *SEARCH_KEYS)
    c.add_argument("--file", help="only documents whose file name matches this glob")
    c.add_argument("--type", dest="kind", help="only documents of this type (pdf, docx, csv, text, markdown, html)")
    c.add_argument("--lang", help="only documents in this language (ja, en, mixed)")
    c.add_argument("--tag", dest="tags", action="append", default=[], help="only documents with this tag")
    c.add_argument("--since", help="only documents indexed on or after this date (YYYY-MM-DD)")
    c.add_argument("--until", help="only documents indexed before this date (YYYY-MM-DD)")


def add_llm_args(c: argparse.ArgumentParser) -> None:
    add_settings(c.add_argument_group("LLM answers (default: extractive, no LLM)"), *LLM_KEYS)


def filter_from(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    """The search filter the --file/--type/--lang/--tag/--since/--until options describe."""
    from kotae.facade import Filter

    return Filter(file=args.file, kind=args.kind, lang=args.lang, tags=tuple(args.tags), since=args.since,
                  until=args.until)


def _ask(args: argparse.Namespace, k, question: str) -> Answer:  # type: ignore[no-untyped-def]
    # An LLM's draft streams to a terminal's stderr as it is written; the checked answer follows on stdout.
    live = k.llm is not None and sys.stderr.isatty()
    for kind, payload in k.ask_stream(question, filters=filter_from(args)):
        if kind == "token" and live:
            print(payload, end="", file=sys.stderr, flush=True)
        elif kind == "answer":
            if live:
                print("\n", file=sys.stderr)
            assert isinstance(payload, Answer)
            return payload
    raise AssertionError("ask_stream ended without an answer")


def cmd_ask(args: argparse.Namespace) -> int:
    with open_index(args) as k:
        answer = _ask(args, k, args.question)
    if args.json:
        print(json.dumps(answer.to_dict(), ensure_ascii=False, indent=2))
    else:
        print(format_answer(answer))
    return 0


def cmd_repl(args: argparse.Namespace) -> int:
    with open_index(args) as k:
        _ = k.llm  # loaded once, before the first question (a local model takes seconds)
        print("Ask a question about the indexed documents (empty line or Ctrl-D to quit).")
        while True:
            try:
                q = input("\n質問 / question> ").strip()
            except EOFError:
                return 0
            if not q:
                return 0
            print(format_answer(_ask(args, k, q)))


def format_answer(a: Answer) -> str:
    from kotae.facade import shown

    lines = [a.answer, ""]
    for n in a.notices:
        lines.append(f"({n})")
    for s in a.sources:
        d = s.to_dict()
        scores = "  ".join(f"{k}={d[k]}" for k in ("similarity", "bm25", "fused", "rerank") if d[k] is not None)
        lines.append(f"[{s.n}] {shown(s.hit.chunk.anchor)}   {scores}")
        lines.append(f"    {s.excerpt}")
    if a.also_retrieved:
        lines.append("also retrieved:")
        lines += [f"[{s.n}] {shown(s.hit.chunk.anchor)}" for s in a.also_retrieved]
    if a.mode == "llm" and a.citations:
        c = a.citations
        lines.append(f"citations: {c['valid']} valid, {c['invalid']} invalid, {c['unsupported']} unsupported, "
                     f"{c['weak']} weak" + (f", {c['attached']} attached by kotae" if c.get("attached") else ""))
    lines.append(f"({a.timings_ms.get('total', 0):.0f} ms, {a.mode})")
    return "\n".join(lines)


def cmd_calibrate(args: argparse.Namespace) -> int:
    from kotae.eval import load_golden

    items = [it for g in args.golden for it in load_golden(g)]
    with open_index(args) as k:
        c = k.calibrate([(it.question, it.answerable) for it in items], args.max_false_refusal)
        where = k.location
    for name, st in (("before", c.before), ("after", c.after)):
        print(f"{name}: abstains on {st.abstained}/{st.unanswerable} unanswerable (recall {st.recall:.2f}, "
              f"precision {st.precision:.2f}); refuses {st.false_refusals}/{st.answerable} answerable")
    print(f"stored in {where}: min_margin={c.settings.min_margin:.4f} min_coverage={c.settings.min_coverage:.4f}")
    return 0
