"""`kotae eval compare A.json B.json`: which questions B wins and loses against A, and the metric deltas.

Pure: two results payloads (as `eval run --out` writes them) in, plain data and markdown out. Questions are
matched by id. Answerable questions are judged by one metric (default mrr@10), unanswerable ones by
another (default abstained); a question lacking its metric in either run is counted as not comparable.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Comparison:
    metric: str
    unanswerable_metric: str
    wins: list[dict[str, Any]] = field(default_factory=list)  # B better than A
    losses: list[dict[str, Any]] = field(default_factory=list)  # B worse than A
    ties: int = 0
    not_comparable: list[str] = field(default_factory=list)
    only_a: list[str] = field(default_factory=list)
    only_b: list[str] = field(default_factory=list)
    deltas: dict[str, tuple[float | None, float | None, float | None]] = field(default_factory=dict)
    settings_changed: dict[str, tuple[Any, Any]] = field(default_factory=dict)


def compare_runs(a: dict[str, Any], b: dict[str, Any], metric: str = "mrr@10",
                 unanswerable_metric: str = "abstained") -> Comparison:
    out = Comparison(metric, unanswerable_metric)
    rows_a = {str(r["id"]): r for r in a.get("questions", [])}
    rows_b = {str(r["id"]): r for r in b.get("questions", [])}
    out.only_a = [q for q in rows_a if q not in rows_b]
    out.only_b = [q for q in rows_b if q not in rows_a]
    for qid, ra in rows_a.items():
        rb = rows_b.get(qid)
        if rb is None:
            continue
        m = metric if ra.get("answerable", True) else unanswerable_metric
        if m not in ra or m not in rb:
            out.not_comparable.append(qid)
            continue
        va, vb = float(ra[m]), float(rb[m])
        row = {"id": qid, "question": ra.get("question", ""), "category": ra.get("category", ""),
               "metric": m, "a": va, "b": vb}
        if vb > va:
            out.wins.append(row)
        elif vb < va:
            out.losses.append(row)
        else:
            out.ties += 1
    oa, ob = a.get("summary", {}).get("overall", {}), b.get("summary", {}).get("overall", {})
    for k in list(dict.fromkeys([*oa, *ob])):
        if k == "n" or not isinstance(oa.get(k, ob.get(k)), int | float):
            continue
        va, vb = oa.get(k), ob.get(k)
        out.deltas[k] = (va, vb, round(vb - va, 4) if va is not None and vb is not None else None)
    sa, sb = a.get("settings", {}), b.get("settings", {})
    out.settings_changed = {k: (sa.get(k), sb.get(k)) for k in sorted({*sa, *sb}) if sa.get(k) != sb.get(k)}
    return out


def compare_markdown(c: Comparison, name_a: str = "A", name_b: str = "B", limit: int = 50) -> str:
    lines = [f"# {name_b} against {name_a}", ""]
    if c.settings_changed:
        lines += ["Settings that differ: " + "; ".join(f"{k}: `{va}` → `{vb}`"
                                                      for k, (va, vb) in c.settings_changed.items()), ""]
    lines += [f"Per question ({c.metric} for answerable, {c.unanswerable_metric} for unanswerable): "
              f"**{len(c.wins)} better, {len(c.losses)} worse, {c.ties} unchanged**"
              + (f", {len(c.not_comparable)} not comparable" if c.not_comparable else "")
              + (f", {len(c.only_a)} only in {name_a}" if c.only_a else "")
              + (f", {len(c.only_b)} only in {name_b}" if c.only_b else "") + ".", ""]
    lines += ["| metric | " + f"{name_a} | {name_b} | Δ |", "|---|---|---|---|"]
    for k, (va, vb, d) in c.deltas.items():
        lines.append(f"| {k} | {_f(va)} | {_f(vb)} | {_signed(d)} |")
    for title, rows in (("Better", c.wins), ("Worse", c.losses)):
        if not rows:
            continue
        rows = sorted(rows, key=lambda r: -abs(r["b"] - r["a"]))
        lines += ["", f"## {title} in {name_b} ({len(rows)})", "",
                  "| id | category | question | metric | " + f"{name_a} | {name_b} |", "|---|---|---|---|---|---|"]
        for r in rows[:limit]:
            q = r["question"].replace("|", "\\|")
            lines.append(f"| {r['id']} | {r['category']} | {q} | {r['metric']} | {_f(r['a'])} | {_f(r['b'])} |")
        if len(rows) > limit:
            lines.append(f"| … | | {len(rows) - limit} more | | | |")
    return "\n".join(lines)


def _f(v: float | None) -> str:
    return "–" if v is None else f"{v:.3f}"


def _signed(v: float | None) -> str:
    return "–" if v is None else f"{v:+.3f}"
