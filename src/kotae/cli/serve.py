"""`kotae serve`: open the index through `Kotae`, hand it to `create_app`, run uvicorn."""
from __future__ import annotations

import argparse
import os
from collections.abc import Callable

from kotae.cli.args import add_settings
from kotae.cli.ask import LLM_KEYS
from kotae.cli.docs import CHUNK_KEYS, open_index

SERVER_KEYS = ("server.host", "server.port", "server.api_key", "server.cors_origins", "server.max_upload_mb",
               "server.upload_dir")


def add_commands(sub: argparse._SubParsersAction, command: Callable[..., argparse.ArgumentParser]) -> None:  # type: ignore[type-arg]
    c = command(sub, "serve", help="serve the HTTP API and the web UI")
    add_settings(c, *SERVER_KEYS, "search.reranker")
    c.add_argument("--watch", action="append", default=[], metavar="DIR",
                   help="index this folder and keep the index in step with its files (repeatable)")
    add_settings(c.add_argument_group("chunking of uploads (default: the index's own)"), *CHUNK_KEYS)
    add_settings(c.add_argument_group("LLM answers (default: extractive, no LLM)"), *LLM_KEYS)
    c.set_defaults(run=cmd_serve)


def cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from kotae.collections import DEFAULT, Collections
    from kotae.errors import ConfigError
    from kotae.server import create_app
    from kotae.server.protocol import uvicorn_options

    s = args.settings
    name = s.store.collection or DEFAULT  # the collection the unprefixed routes serve
    location = Collections(s).location(name)
    if "://" not in location:
        upload_dir = s.server.upload_dir or os.path.join(location, "uploads")
    elif s.server.upload_dir:
        upload_dir = s.server.upload_dir
    else:
        raise ConfigError(f"the index {location} is not a folder; pass --upload-dir DIR for uploads")
    k = open_index(args, create=True)
    try:
        _ = k.llm  # a configured model loads (and fails) now, not at the first question
        app = create_app(k, upload_dir=upload_dir, api_key=s.server.api_key or None,
                         cors_origins=s.server.cors_origins, max_upload_mb=s.server.max_upload_mb,
                         max_uploads=s.server.max_uploads, name=name,
                         collections_of=Collections(s, home=k, base=s.store.location))
        host, port = s.server.host, s.server.port
        shown = "localhost" if host in ("127.0.0.1", "0.0.0.0", "::") else host
        print(f"kotae: serving {k.location} at http://{shown}:{port}/  (API docs: /docs, OpenAI-compatible API: /v1, "
              f"MCP: /mcp; Ctrl-C to stop)", flush=True)
        watcher = _watch(k, args.watch)
        try:
            # idle connections and slow headers are closed (server/protocol.py); a stalled body is the Guard's
            uvicorn.run(app, host=host, port=port, log_level="info", limit_concurrency=s.server.max_connections,
                        **uvicorn_options())
        finally:
            if watcher is not None:
                watcher.stop()
    finally:
        k.close()
    return 0


def _watch(k, dirs: list[str]):  # type: ignore[no-untyped-def]
    """A started watcher of `dirs` (None when there are none); its log lines go to stderr."""
    if not dirs:
        return None
    import logging
    import sys

    from kotae.watch import Watcher

    watcher = Watcher(k, dirs)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("kotae watch: %(message)s"))
    logger = logging.getLogger("kotae.watch")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    watcher.start()
    return watcher
