"""`kotae collections [list]`, `kotae collections create NAME`, `kotae collections delete NAME --yes`."""
from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable

from kotae.errors import KotaeError


def add_commands(sub: argparse._SubParsersAction, command: Callable[..., argparse.ArgumentParser]) -> None:  # type: ignore[type-arg]
    c = command(sub, "collections", help="list, create or delete named collections (an index each)")
    c.add_argument("action", nargs="?", choices=("list", "create", "delete"), default="list")
    c.add_argument("name", nargs="?", help="the collection (create, delete)")
    c.add_argument("--api-key-env", metavar="VAR", default=None,
                   help="create: give the collection its own API key, read from this environment variable "
                        "(asked for by kotae serve on top of the server's key)")
    c.add_argument("--set", dest="own", action="append", default=[], metavar="KEY=VALUE",
                   help="create: a setting of its own (index.* or search.*), e.g. --set search.top_k=3")
    c.add_argument("--yes", action="store_true", help="delete: yes, delete it and everything in it")
    c.add_argument("--json", action="store_true", help="list: as JSON")
    c.set_defaults(run=cmd_collections)


def cmd_collections(args: argparse.Namespace) -> int:
    from kotae.collections import Collections

    cols = Collections(args.settings)
    if args.action == "list":
        return _list(cols, args.json)
    if not args.name:
        raise KotaeError(f"kotae collections {args.action} needs a NAME")
    if args.action == "create":
        own = {}
        for item in args.own:
            key, sep, value = item.partition("=")
            if not sep:
                raise KotaeError(f"--set {item}: write it KEY=VALUE, e.g. --set search.top_k=3")
            own[key.strip()] = value.strip()
        key = None
        if args.api_key_env:
            key = os.environ.get(args.api_key_env)
            if not key:
                raise KotaeError(f"${args.api_key_env} is empty; export the collection's key in it first")
        with cols.create(args.name, api_key=key, settings=own) as k:
            where = k.location
        print(f'created collection "{args.name}" in {where}' + (" (with its own API key)" if key else "")
              + f"; add documents with: kotae --collection {args.name} index PATH")
        return 0
    n, _ = cols.peek(args.name)
    if not args.yes:
        print(f'kotae: the collection "{args.name}" holds {n} document(s); add --yes to delete it and '
              "everything in it", file=sys.stderr)
        return 1
    cols.delete(args.name)
    print(f'deleted collection "{args.name}" ({n} document(s))')
    return 0


def _list(cols, as_json: bool) -> int:  # type: ignore[no-untyped-def]
    from kotae.collections import shown_location

    rows = []
    for name in cols.names():
        try:
            n, own = cols.peek(name)
        except KotaeError:  # the default index, not made yet
            n, own = 0, None
        rows.append({"name": name, "documents": n, "location": cols.location(name),
                     "protected": bool(own and own.protected), "settings": dict(own.settings) if own else {}})
    if as_json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return 0
    for r in rows:
        extra = "  (own API key)" if r["protected"] else ""
        extra += "".join(f"  {k}={v}" for k, v in r["settings"].items())
        print(f"{r['name']}\t{r['documents']} document(s)\t{shown_location(r['location'])}{extra}")
    return 0

