"""`kotae serve`: build the dependencies from the command line, hand them to `create_app`, run uvicorn."""
from __future__ import annotations

import argparse
import os
from typing import Any


def add_serve_command(sub: Any) -> None:
    c = sub.add_parser("serve", help="serve the HTTP API and the web UI")
    c.add_argument("--host", default="127.0.0.1", help="address to listen on (default %(default)s)")
    c.add_argument("--port", type=int, default=8000, help="port (default %(default)s)")
    c.add_argument("--api-key", default=os.environ.get("KOTAE_API_KEY"),
                   help="require this key in the X-API-Key header on every route but /health "
                        "($KOTAE_API_KEY)")
    c.add_argument("--cors-origin", action="append", default=[], metavar="ORIGIN",
                   help="allow browser calls from this origin, e.g. http://localhost:3000 (repeatable)")
    c.add_argument("--max-upload-mb", type=float, default=50, help="largest upload (default %(default)s MB)")
    c.add_argument("--upload-dir", help="where uploads are saved (default INDEX/uploads)")
    c.add_argument("--reranker", default=os.environ.get("KOTAE_RERANKER"),
                   help="cross-encoder for mode hybrid+rerank: onnx:DIR or st:MODEL ($KOTAE_RERANKER)")
    from kotae.answer.config import add_llm_args

    add_llm_args(c)
    c.set_defaults(run=cmd_serve)


def cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from kotae.answer.config import llm_from_args
    from kotae.cli_common import embedder_for, store_for
    from kotae.errors import ConfigError
    from kotae.search import load_reranker
    from kotae.server import create_app

    if "://" not in args.index:
        upload_dir = args.upload_dir or os.path.join(args.index, "uploads")
    elif args.upload_dir:
        upload_dir = args.upload_dir
    else:
        raise ConfigError(f"the index {args.index} is not a folder; pass --upload-dir DIR for uploads")
    store = store_for(args, must_exist=False)
    app = create_app(store, embedder_for(args, store), upload_dir=upload_dir, api_key=args.api_key or None,
                     cors_origins=args.cors_origin,
                     max_upload_mb=args.max_upload_mb,
                     reranker=load_reranker(args.reranker) if args.reranker else None,
                     llm=llm_from_args(args))
    shown = "localhost" if args.host in ("127.0.0.1", "0.0.0.0", "::") else args.host
    print(f"kotae: serving {args.index} at http://{shown}:{args.port}/  (API docs: /docs; Ctrl-C to stop)",
          flush=True)
    try:
        uvicorn.run(app, host=args.host, port=args.port, log_level="info")
    finally:
        store.close()
    return 0
