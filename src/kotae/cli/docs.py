"""Commands about the index: index, list, remove, chunks, reembed, migrate, config."""
from __future__ import annotations

import argparse
import json
import os
import random
import sys
from collections.abc import Callable
from dataclasses import replace

from kotae.cli.args import add_settings, note
from kotae.errors import KotaeError

CHUNK_KEYS = ("index.chunk.max_tokens", "index.chunk.overlap_tokens", "index.chunk.contextual_prefix")


def add_commands(sub: argparse._SubParsersAction, command: Callable[..., argparse.ArgumentParser]) -> None:  # type: ignore[type-arg]
    c = command(sub, "index", help="index files and folders")
    c.add_argument("paths", nargs="+")
    c.add_argument("--force", action="store_true", help="re-index unchanged files too")
    add_settings(c, "index.tags", "index.cut_references", "index.ocr.mode", *CHUNK_KEYS)
    c.set_defaults(run=cmd_index)

    c = command(sub, "list", help="list indexed documents")
    c.add_argument("--json", action="store_true")
    c.set_defaults(run=cmd_list)

    c = command(sub, "remove", help="remove a document from the index")
    c.add_argument("file", help="the file's path, its name, or the document id")
    c.set_defaults(run=cmd_remove)

    c = command(sub, "chunks", help="print sample chunks without embedding anything")
    c.add_argument("paths", nargs="+")
    c.add_argument("--sample", type=int, default=20, help="how many chunks (default %(default)s)")
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--json", action="store_true")
    add_settings(c, "index.cut_references", "index.ocr.mode", *CHUNK_KEYS)
    c.set_defaults(run=cmd_chunks)

    c = command(sub, "reembed", help="re-embed the whole index with --model (files are not re-read)")
    c.set_defaults(run=cmd_reembed)

    c = command(sub, "migrate", help="copy an index folder into PostgreSQL, embeddings included")
    c.add_argument("--from", dest="source", default=None, metavar="DIR", help="the index folder (default --index)")
    c.add_argument("--to", dest="target", default=None, metavar="URL",
                   help="postgresql://… (default --database-url / $KOTAE_DATABASE_URL)")
    c.set_defaults(run=cmd_migrate)

    c = command(sub, "config", help="the effective settings: every value and where it came from")
    c.add_argument("what", nargs="?", choices=("show", "table"), default="show",
                   help="show (default): key = value (origin); table: the settings as README's markdown table")
    c.add_argument("--json", action="store_true")
    c.set_defaults(run=cmd_config)


def open_index(args: argparse.Namespace, create: bool = False):  # type: ignore[no-untyped-def]
    """The `Kotae` of the settings' index, or of the collection `--collection` names (with its own
    settings; a new one with `create`); notes about its engine printed once."""
    from kotae.facade import Kotae

    name = args.settings.store.collection
    if name:
        from kotae.collections import Collections

        k = Collections(args.settings).open(name, create=create)
    else:
        k = Kotae.open(settings=args.settings, create=create)
    for n in k.notices:
        note(n)
    return k


def cmd_index(args: argparse.Namespace) -> int:
    from kotae.facade import discover, shown
    from kotae.progress import IndexProgress

    missing = [p for p in args.paths if not os.path.exists(p)]
    paths = [p for p in args.paths if p not in missing]
    with open_index(args, create=True) as k:
        with IndexProgress(len(discover(paths))) as progress:
            report = k.index(paths, progress.update, force=args.force)
        for w in report.warnings:
            print(f"warning: {shown(w)}", file=sys.stderr)
        for path, msg in report.failed:
            print(f"error: {shown(msg)}", file=sys.stderr)
            if getattr(args, "debug", False) and path in report.tracebacks:
                print(report.tracebacks[path], file=sys.stderr)
        chunks = sum(d.chunks for d in report.indexed)
        passed = f", {len(report.passed_over)} not read (below)" if report.passed_over else ""
        print(f"indexed {len(report.indexed)} file(s) ({chunks} chunks), {len(report.skipped)} unchanged, "
              f"{len(report.failed)} failed{passed}" + (f", {len(missing)} path(s) not found" if missing else "")
              + f" → {k.location}")
        for line in passed_over_lines(report.passed_over):
            print(line)
        print(k.calibration().describe())
    for p in missing:
        print(f"error: {shown(p)}: no such file or folder", file=sys.stderr)
    return 1 if report.failed or missing else 0


def passed_over_lines(items: list[tuple[str, str]], examples: int = 3) -> list[str]:
    """What folder walks did not read, one line per reason with a count and a few of the files:
    `  not read: 2 × legacy Office file: save it as .xlsx, .docx or .pptx (old.xls, plan.doc)`."""
    by_reason: dict[str, list[str]] = {}
    for path, reason in items:
        by_reason.setdefault(reason, []).append(os.path.basename(path.rstrip(os.sep)) or path)
    lines = []
    for reason, names in sorted(by_reason.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        shown = ", ".join(names[:examples]) + (f", … {len(names) - examples} more" if len(names) > examples else "")
        lines.append(f"  not read: {len(names)} × {reason} ({shown})")
    return lines


def cmd_list(args: argparse.Namespace) -> int:
    from kotae.facade import shown

    with open_index(args) as k:
        docs = k.documents()
        gate = k.calibration().describe()
    if args.json:
        print(json.dumps([d.__dict__ for d in docs], ensure_ascii=False, indent=2))
        return 0
    if not docs:
        print("no documents indexed")
    for d in docs:
        print(f"{shown(d.file)}\t{d.kind}\t{d.pages} page(s)\t{d.chunks} chunk(s)\t{d.lang}\t{d.indexed_at}"
              + (f"\ttags={shown(','.join(d.tags))}" if d.tags else ""))
    print(gate)
    return 0


def cmd_remove(args: argparse.Namespace) -> int:
    from kotae.facade import shown

    with open_index(args) as k:
        info = k.remove(args.file)
    print(f"removed {shown(info.file)} ({info.chunks} chunks)")
    return 0


def cmd_chunks(args: argparse.Namespace) -> int:
    from kotae.facade import preview_chunks, shown

    failed: list[str] = []
    chunks = preview_chunks(args.paths, args.settings.index, on_error=failed.append)
    for msg in failed:
        print(f"error: {shown(msg)}", file=sys.stderr)
    sample = random.Random(args.seed).sample(chunks, min(args.sample, len(chunks)))
    sample.sort(key=lambda c: (c.file, c.ordinal))
    if args.json:
        print(json.dumps([c.__dict__ for c in sample], ensure_ascii=False, indent=2))
    else:
        for c in sample:
            rows = f" rows {c.rows[0]}–{c.rows[1]}" if c.rows else ""
            print(f"── {shown(c.anchor)}{rows}  [{c.lang}, {c.tokens} tokens, chars {c.start}–{c.end}, id {c.id}]")
            print(c.text, end="\n\n")
    print(f"{len(sample)} of {len(chunks)} chunks", file=sys.stderr)
    return 1 if failed else 0


def cmd_reembed(args: argparse.Namespace) -> int:
    from kotae.progress import IndexProgress

    target = args.settings.embed.model  # --model, else the default engine (not the index's: that is what changes)
    bound = replace(args.settings, embed=replace(args.settings.embed, model=None))
    with open_index(argparse.Namespace(**{**vars(args), "settings": bound})) as k:
        with IndexProgress(0) as progress:
            n = k.reembed(target, progress.update)
        for m in k.notices:
            note(m)
        print(f"re-embedded {n} chunks with {k.embedder.model_id}")
    return 0


def cmd_migrate(args: argparse.Namespace) -> int:
    from kotae.facade import migrate

    store = args.settings.store
    source = args.source or (store.index or ".kotae")
    target = args.target or store.database_url
    if not target:
        raise KotaeError("migrate needs a target: pass --to postgresql://… or set $KOTAE_DATABASE_URL")
    r, where = migrate(source, target, store)
    print(f"migrated {r.documents} document(s) ({r.chunks} chunks, {r.embeddings} embeddings, nothing re-embedded) "
          f"from {source} → {where}")
    return 0


def cmd_config(args: argparse.Namespace) -> int:
    from kotae.config import markdown_table, show

    if args.what == "table":
        print(markdown_table())
        return 0
    rows = show(args.settings)
    if args.json:
        print(json.dumps([{"key": k, "value": v, "origin": o} for k, v, o in rows], ensure_ascii=False, indent=2))
        return 0
    width = max(len(k) for k, _, _ in rows)
    for key, value, origin in rows:
        print(f"{key.ljust(width)} = {value}   ({origin})")
    return 0
