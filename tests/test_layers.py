"""The house, read from the imports (module level and inside functions): who may reach whom, and no circles.

`from kotae.x import y` is an edge to `kotae.x.y` when that is a module, else to `kotae.x` (the convention
of import-graph tools such as grimp): importing a submodule is not a dependency on its package's `__init__`.
"""
from __future__ import annotations

import ast
import os
from collections.abc import Iterable

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")


def modules() -> dict[str, str]:
    """Module name → file, for every module of the kotae package."""
    out = {}
    for root, _, files in os.walk(os.path.join(SRC, "kotae")):
        for f in files:
            if f.endswith(".py"):
                rel = os.path.relpath(os.path.join(root, f), SRC)[:-3].replace(os.sep, ".")
                out[rel.removesuffix(".__init__")] = os.path.join(root, f)
    return out


MODULES = modules()


def imports(name: str) -> set[str]:
    """The kotae modules `name` imports, anywhere in its file."""
    with open(MODULES[name], encoding="utf-8") as f:
        tree = ast.parse(f.read())
    package = name if MODULES[name].endswith("__init__.py") else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            for a in node.names:
                out.add(f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base)
    return {m for m in out if m in MODULES and m != name}


GRAPH = {m: imports(m) for m in MODULES}


def under(name: str, prefixes: Iterable[str]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def broken(sources: Iterable[str], allowed: Iterable[str]) -> list[str]:
    """Imports from modules under `sources` to anything but `allowed`, their own package and `kotae` itself
    (the package: its names are the door, `kotae.facade`, and the types a caller needs)."""
    allowed = list(allowed)
    return sorted(f"{m} → {t}" for m in MODULES if under(m, sources) for t in GRAPH[m]
                  if t != "kotae" and not under(t, allowed) and not under(t, sources))


def test_the_graph_is_read():
    assert "kotae.facade" in GRAPH["kotae.cli.docs"] or "kotae" in GRAPH["kotae.cli.docs"]
    assert "kotae.answer.budget" in GRAPH["kotae.answer.generate"]  # from kotae.answer import budget
    assert "kotae.config" in GRAPH["kotae.search.searcher"]


def test_config_is_the_ground_floor():
    assert broken(["kotae.config"], ["kotae.types", "kotae.errors"]) == []


def test_plugins_and_errors_stand_on_nothing():
    assert GRAPH["kotae.errors"] == set()
    assert GRAPH["kotae.plugins"] <= {"kotae.errors"}


def test_eval_reaches_only_the_door_types_config_errors_and_plugins():
    door = ["kotae.facade", "kotae.types", "kotae.config", "kotae.errors", "kotae.plugins"]
    assert broken(["kotae.eval"], door) == []


def test_the_cli_the_server_and_the_watcher_go_through_the_door():
    door = ["kotae.types", "kotae.config", "kotae.errors", "kotae.plugins", "kotae.facade", "kotae.collections",
            "kotae.progress"]
    assert broken(["kotae.server"], door) == []
    assert broken(["kotae.watch"], door) == []
    assert broken(["kotae.cli"], [*door, "kotae.eval", "kotae.server", "kotae.watch"]) == []


def test_the_lower_floors_never_reach_up():
    upper = ["kotae.store", "kotae.search", "kotae.answer", "kotae.server", "kotae.cli", "kotae.eval",
             "kotae.facade", "kotae.pipeline", "kotae.records"]
    for floor in ("kotae.ingest", "kotae.chunking", "kotae.embed"):
        assert [f"{m} → {t}" for m in MODULES if under(m, [floor]) for t in GRAPH[m] if under(t, upper)] == []


def test_no_import_circles():
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(GRAPH[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for m in sorted(GRAPH):
        if m not in index:
            visit(m)
    assert circles == []
