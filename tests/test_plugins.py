"""Plug-ins: a reader installed as a distribution (an entry point of the group "kotae") is loaded like the
built-ins, and folder walks, uploads and reads all take its files; a broken plug-in only warns."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from kotae import plugins
from kotae.ingest import READERS, is_supported, read_document, supported_extensions
from kotae.ingest.detect import supported_fix

NOTE_READER = '''
from kotae.ingest import register
from kotae.types import ParsedDocument, Section


@register("note")
def read_note(path: str, data: bytes) -> ParsedDocument:
    text = "NOTE " + data.decode("utf-8").strip()
    return ParsedDocument(path, "note", (text,), (Section(1, (), text, 0),))
'''


def install(root: Path, dist: str, modules: dict[str, str], entry_points: dict[str, str]) -> None:
    """A distribution as pip would leave it: its modules and `DIST-0.1.dist-info` with the entry points."""
    for name, source in modules.items():
        (root / f"{name}.py").write_text(source, encoding="utf-8")
    info = root / f"{dist}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n", encoding="utf-8")
    lines = "".join(f"{name} = {value}\n" for name, value in entry_points.items())
    (info / "entry_points.txt").write_text(f"[kotae]\n{lines}", encoding="utf-8")


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A folder on sys.path to install distributions into; afterwards the plug-ins are gone again."""
    root = tmp_path / "site"
    root.mkdir()
    monkeypatch.syspath_prepend(str(root))
    plugins.load()
    before = dict(READERS)
    yield root
    READERS.clear()
    READERS.update(before)
    for name in [m for m, mod in sys.modules.items() if str(root) in str(getattr(mod, "__file__", "") or "")]:
        del sys.modules[name]
    monkeypatch.undo()
    plugins.load(refresh=True)  # forget the plug-ins' entry points and warnings


def test_plugin_reader_is_taken_by_folder_walks_reads_and_uploads(site: Path, tmp_path: Path, capsys):
    assert not is_supported("a.note")
    install(site, "kotae_note_reader", {"kotae_note_reader": NOTE_READER}, {"note": "kotae_note_reader"})
    plugins.load(refresh=True)

    assert "note" in READERS and is_supported("a.note")
    assert supported_extensions()[-1] == ".note"  # after the built-ins
    assert supported_fix().endswith(".tiff, .note; convert it to one of them")
    assert plugins.warnings() == ()

    from kotae.cli import main

    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.note").write_text("remember the milk\n", encoding="utf-8")
    (folder / "b.txt").write_text("plain words about milk\n", encoding="utf-8")
    idx = str(tmp_path / "idx")
    assert main(["--index", idx, "--model", "fake", "index", str(folder)]) == 0
    assert read_document(str(folder / "a.note")).pages == ("NOTE remember the milk",)

    capsys.readouterr()
    assert main(["--index", idx, "--model", "fake", "list", "--json"]) == 0
    listed = {Path(d["file"]).name: d["kind"] for d in json.loads(capsys.readouterr().out)}
    assert listed == {"a.note": "note", "b.txt": "text"}

    from kotae.server.uploads import sniff

    saved = tmp_path / ".upload-1.part"  # what uploads.save leaves: the kind comes from the upload's name
    saved.write_text("from the upload\n", encoding="utf-8")
    assert sniff(str(saved), "memo.note") == "note"
    assert sniff(str(saved), "memo.txt") == "text"  # built-in kinds: still from the content

    import httpx

    from kotae import Kotae, load_settings
    from kotae.server import create_app, serve_in_thread

    k = Kotae.open(idx, settings=load_settings({"embed.model": "fake"}, env={}))
    with serve_in_thread(create_app(k, upload_dir=str(tmp_path / "up"))) as url, httpx.Client(base_url=url) as c:
        r = c.post("/documents", files={"file": ("memo.note", b"buy bread\n")}, params={"wait": "true"})
        assert r.status_code == 200, r.text
        assert (r.json()["file"], r.json()["kind"], r.json()["status"]) == ("memo.note", "note", "indexed")
        hit = c.post("/query", json={"question": "bread", "mode": "keyword"}).json()["sources"][0]
        assert (hit["file"], hit["excerpt"]) == ("memo.note", "NOTE buy bread")
    k.close()


def test_broken_plugin_warns_and_kotae_still_reads(site: Path, tmp_path: Path):
    install(site, "kotae_broken", {"kotae_broken": "raise ImportError('needs libfoo')\n"},
            {"broken": "kotae_broken"})
    with pytest.warns(plugins.PluginWarning, match="kotae_broken"):
        plugins.load(refresh=True)
    (problem,) = plugins.warnings()
    assert problem == ("kotae plug-in 'broken' (kotae_broken, from kotae_broken 0.1) failed to load "
                       "(ImportError: needs libfoo); pip uninstall kotae_broken or fix it")

    text = tmp_path / "a.txt"
    text.write_text("still readable\n", encoding="utf-8")
    assert read_document(str(text)).kind == "text"


def test_load_is_idempotent_and_needs_no_optional_packages():
    plugins.load()
    plugins.load()
    assert {"pdf", "docx", "csv", "text", "markdown", "html", "image"} <= set(READERS)
    from kotae.answer.llm import LLMS
    from kotae.embed.base import EMBEDDERS
    from kotae.store.base import STORES

    assert {"e5-small", "e5-small-onnx", "e5-small-torch", "st"} <= set(EMBEDDERS)
    assert {"sqlite", "postgres", "postgresql"} <= set(STORES)
    assert {"openai", "llamacpp"} <= set(LLMS)


def test_plugins_module_is_a_ground_floor():
    """kotae.plugins imports nothing of kotae at module level (any module may import it)."""
    import ast

    tree = ast.parse(Path(plugins.__file__).read_text(encoding="utf-8"))
    names = [a.name for node in tree.body if isinstance(node, ast.Import) for a in node.names]
    names += [node.module or "" for node in tree.body if isinstance(node, ast.ImportFrom)]
    assert [n for n in names if n == "kotae" or n.startswith("kotae.")] in ([], ["kotae.errors"])
