"""conftest's FakeEmbedder as a kotae plug-in for subprocesses (`python -m kotae …` in a test)."""
from __future__ import annotations

import os
from pathlib import Path

from conftest import ROOT


def fake_embedder_env(site: Path) -> dict[str, str]:
    """The environment of a kotae subprocess that embeds like the tests do: `site`, on its path, holds an
    installed distribution whose entry point (group "kotae") imports conftest, which registers "fake"; so
    the subprocess never loads the real model."""
    info = site / "kotae_test_fake-0.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: kotae-test-fake\nVersion: 0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[kotae]\nfake = conftest\n", encoding="utf-8")
    path = os.pathsep.join([os.path.join(ROOT, "src"), os.path.join(ROOT, "tests"), str(site)])
    return {"PYTHONPATH": path, "OPENBLAS_NUM_THREADS": "1", "PATH": os.environ.get("PATH", "")}
