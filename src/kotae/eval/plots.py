"""PNG charts of evaluation results. matplotlib is imported only when a chart is drawn (Agg backend)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def _pyplot():  # type: ignore[no-untyped-def]
    try:
        import matplotlib
    except ImportError as e:
        from kotae.errors import ConfigError

        raise ConfigError("charts need matplotlib; pip install matplotlib") from e
    matplotlib.use("Agg")  # files only, no display
    import matplotlib.pyplot as plt

    return plt


def category_bars(summary: dict[str, Any], path: str, metrics: Sequence[str]) -> None:
    """Grouped bars: one group per set (overall, then each category), one bar per metric."""
    plt = _pyplot()
    groups = [("overall", summary["overall"])] + list(summary["categories"].items())
    groups = [(name, m) for name, m in groups if any(k in m for k in metrics)]
    fig, ax = plt.subplots(figsize=(max(6.0, 1.4 * len(groups) + 2), 4.2))
    width = 0.8 / max(len(metrics), 1)
    for j, metric in enumerate(metrics):
        xs = [i + (j - (len(metrics) - 1) / 2) * width for i in range(len(groups))]
        ax.bar(xs, [m.get(metric, 0.0) for _, m in groups], width, label=metric)
    ax.set_xticks(range(len(groups)), [f"{name}\n(n={m.get('n', 0)})" for name, m in groups], fontsize=8)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("score")
    ax.set_title("retrieval by category")
    ax.legend(fontsize=8, ncols=len(metrics), loc="upper center", bbox_to_anchor=(0.5, -0.18))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def sweep_lines(rows: Sequence[dict[str, Any]], path: str, panels: Sequence[tuple[str, str]],
                series: Sequence[str] = ("mode",)) -> None:
    """One panel per (category, metric): the metric against chunk size, one line per series key.

    The colour follows the mode; the line style follows the other series keys (overlap, top_k).
    """
    plt = _pyplot()
    colours: dict[str, str] = {}
    styles: dict[tuple[Any, ...], str] = {}
    sizes = sorted({r["max_tokens"] for r in rows})
    fig, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 4.0), squeeze=False)
    for ax, (category, metric) in zip(axes[0], panels, strict=True):
        lines: dict[tuple[Any, ...], list[tuple[int, float]]] = {}
        for r in rows:
            m = r["summary"]["overall"] if category == "overall" else r["summary"]["categories"].get(category, {})
            if metric in m:
                lines.setdefault(tuple(r[k] for k in series), []).append((r["max_tokens"], m[metric]))
        for key, pts in lines.items():
            pts.sort()
            mode = str(dict(zip(series, key, strict=True)).get("mode", ""))
            colour = colours.setdefault(mode, f"C{len(colours) % 10}")
            style = styles.setdefault(key[1:], ("-", "--", ":", "-.")[len(styles) % 4])
            label = ", ".join(str(v) if k == "mode" else f"{k}={v}" for k, v in zip(series, key, strict=True))
            ax.plot([x for x, _ in pts], [y for _, y in pts], marker="o", color=colour, linestyle=style, label=label)
        ax.set_title(f"{metric} ({category})" + ("" if lines else ": no data"))
        ax.set_xlabel("chunk size (max tokens)")
        ax.set_xticks(sizes)
        ax.set_ylim(0, 1.05)
        if lines:
            ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
