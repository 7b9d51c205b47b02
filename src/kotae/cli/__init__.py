"""The command line: parse input, call the library through `Kotae`, turn errors into one line and an exit code.

    kotae index DOCS · list · remove FILE · ask QUESTION · repl · chat · conversations · chunks DOCS · reembed · migrate
    kotae calibrate GOLDEN · config show · eval run|export-feedback|beir|compare|sweep · serve [--watch DIR] · mcp · watch DIR
    kotae collections [list|create NAME|delete NAME]; --collection NAME on any of them
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from kotae.errors import KotaeError


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        from kotae.cli.args import settings_from

        args.settings = settings_from(args)
        return int(args.run(args) or 0)
    except KotaeError as e:
        from kotae.facade import shown

        print(f"kotae: {shown(str(e))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def build_parser() -> argparse.ArgumentParser:
    from kotae.cli import ask, chat, collections, docs, doors, eval, serve
    from kotae.cli.args import global_options

    p = argparse.ArgumentParser(prog="kotae", description="Answers only from your documents, with citations.",
                                parents=[global_options(suppress=False)])
    sub = p.add_subparsers(required=True, metavar="COMMAND")
    common = global_options(suppress=True)  # the same options, also accepted after the command's name

    def command(subparsers: argparse._SubParsersAction, name: str, help: str) -> argparse.ArgumentParser:  # type: ignore[type-arg]
        return subparsers.add_parser(name, parents=[common], help=help)  # type: ignore[no-any-return]

    docs.add_commands(sub, command)
    ask.add_commands(sub, command)
    chat.add_commands(sub, command)
    eval.add_commands(sub, command)
    serve.add_commands(sub, command)
    doors.add_commands(sub, command)
    collections.add_commands(sub, command)
    return p

