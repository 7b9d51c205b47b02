"""Flags from the settings tree: each setting's flag, help and type are declared once, in kotae.config.

A flag sets its dotted key only when it is given (argparse defaults are None), so `load_settings` can
tell a flag from a default; global options (--index, --database-url, --collection, --model, --config) are accepted
before or after the subcommand.
"""
from __future__ import annotations

import argparse
import sys
import typing
from typing import Any

from kotae.config import LEAVES, Settings, load_settings

PREFIX = "set:"  # argparse dest of a setting's flag: "set:search.top_k"
GLOBAL_KEYS = ("store.index", "store.database_url", "store.collection", "embed.model")


def add_settings(parser: argparse.ArgumentParser | argparse._ArgumentGroup, *keys: str,
                 suppress: bool = False, **help_for: str) -> None:
    """Add the flags of settings `keys` (their flag, type, choices and help come from the tree)."""
    for key in keys:
        leaf = LEAVES[key]
        assert leaf.flag, f"{key} has no flag"
        kind = leaf.type
        if isinstance(kind, typing.types.UnionType):  # type: ignore[attr-defined]
            kind = next(a for a in typing.get_args(kind) if a is not type(None))
        default = argparse.SUPPRESS if suppress else None
        env = f"; ${leaf.env[0]}" if leaf.env else ""
        shown = "none" if leaf.default in (None, ()) else leaf.default
        text = help_for.get(key.replace(".", "_"), leaf.help) + f" (default {shown}{env})"
        text = text.replace("%", "%%")
        kw: dict[str, Any] = {"dest": PREFIX + key, "default": default, "help": text}
        if kind is bool:
            kw["action"] = "store_true"
        elif typing.get_origin(kind) is tuple:
            kw["action"] = "append"
        else:
            kw["type"] = kind if kind in (int, float) else str
            if leaf.choices:
                kw["choices"] = leaf.choices
            elif kind is str:
                kw["metavar"] = leaf.name.upper()
        parser.add_argument(leaf.flag, **kw)


def global_options(suppress: bool) -> argparse.ArgumentParser:
    """The options every command takes, before or after its name."""
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("index and model")
    add_settings(g, *GLOBAL_KEYS, suppress=suppress)
    g.add_argument("--debug", action="store_true", default=argparse.SUPPRESS if suppress else False,
                   help="print the traceback of a file that failed in an unforeseen way")
    g.add_argument("--config", metavar="FILE", default=argparse.SUPPRESS if suppress else None,
                   help="settings file (TOML; default $KOTAE_CONFIG, else ./kotae.toml when present)")
    return p


def settings_from(args: argparse.Namespace) -> Settings:
    """The effective settings: the flags given, then the environment, the file, the defaults."""
    flags = {k[len(PREFIX):]: v for k, v in vars(args).items() if k.startswith(PREFIX) and v is not None}
    for key, value in list(flags.items()):
        if isinstance(value, list):
            flags[key] = tuple(value)
    return load_settings(flags, config=getattr(args, "config", None))


def note(message: str) -> None:
    print(f"note: {message}", file=sys.stderr)
