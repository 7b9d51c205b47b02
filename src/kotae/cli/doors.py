"""`kotae mcp` (the MCP tools over stdio, for Claude Desktop and other MCP clients) and `kotae watch DIR…`."""
from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Callable

from kotae.cli.args import add_settings
from kotae.cli.ask import LLM_KEYS
from kotae.cli.docs import CHUNK_KEYS, open_index


def add_commands(sub: argparse._SubParsersAction, command: Callable[..., argparse.ArgumentParser]) -> None:  # type: ignore[type-arg]
    c = command(sub, "mcp", help="serve the MCP tools (search, ask, list_documents, get_passage) over stdio")
    add_settings(c, "search.reranker")
    add_settings(c.add_argument_group("LLM answers (default: extractive, no LLM)"), *LLM_KEYS)
    c.set_defaults(run=cmd_mcp)

    c = command(sub, "watch", help="index folders and keep the index in step with their files")
    c.add_argument("dirs", nargs="+", metavar="DIR", help="folders to watch (recursively)")
    add_settings(c, "index.tags", "index.cut_references", "index.ocr.mode", *CHUNK_KEYS)
    c.set_defaults(run=cmd_watch)


def cmd_mcp(args: argparse.Namespace) -> int:
    from kotae.collections import DEFAULT, Collections
    from kotae.server.mcp_server import build

    # stdout carries the protocol; every note and log line goes to stderr
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="kotae: %(message)s")
    s = args.settings
    with open_index(args, create=False) as k:
        _ = k.llm  # a configured model loads (and fails) now, not at the first question
        cols = Collections(s, home=k, base=s.store.location)
        primary = s.store.collection or DEFAULT
        opened = {primary: k}

        def door(collection, keys):  # type: ignore[no-untyped-def]  # stdio: a local user, no keys asked
            name = collection or primary
            if name not in opened:
                opened[name] = cols.open(name)
            return opened[name], opened[name].ask_stream

        try:
            build(door).run("stdio")
        finally:
            for other in opened.values():
                if other is not k:
                    other.close()
    return 0


def cmd_watch(args: argparse.Namespace) -> int:
    from kotae.watch import Watcher

    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="kotae watch: %(message)s")
    logging.getLogger("watchfiles").setLevel(logging.WARNING)  # its "N changes detected" says nothing kotae's lines don't
    with open_index(args, create=True) as k:
        watcher = Watcher(k, args.dirs)
        print(f"kotae: watching {', '.join(args.dirs)} into {k.location} (Ctrl-C to stop)", file=sys.stderr,
              flush=True)
        try:
            watcher.run()
        except KeyboardInterrupt:
            pass
    return 0
