"""Imported by the forkserver of `kotae.isolate`: every reader and plug-in loaded once, before any child forks,
so a child starts with them (a child that loaded them itself took 0.6 s per file)."""
from kotae import pipeline, plugins  # noqa: F401

plugins.load()
