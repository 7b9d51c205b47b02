"""One file's failure stays its own: any exception, in process or in a child; names and listings stay faithful."""
from __future__ import annotations

import os

import pytest

from conftest import FakeEmbedder
from kotae import plugins
from kotae.cli import main
from kotae.config import IndexSettings, LimitSettings
from kotae.ingest import READERS, read_document
from kotae.ingest.limits import MAX_LINE, break_long_lines
from kotae.isolate import read_isolated
from kotae.names import on_disk, shown, storable
from kotae.pipeline import doc_id_for, index_paths
from kotae.store.sqlite import SQLiteStore

NOTE = b"# Leave\n\nEvery employee receives twenty days of paid leave per calendar year.\n"
PLAIN = b"Every employee receives twenty days of paid leave per calendar year.\n"


@pytest.fixture(autouse=True)
def _loaded():
    plugins.load()  # the built-in readers registered before a test replaces one


def write(folder, name, data: bytes = NOTE) -> str:
    path = os.path.join(os.fsencode(str(folder)), name if isinstance(name, bytes) else name.encode())
    with open(path, "wb") as f:
        f.write(data)
    return os.fsdecode(path)


@pytest.mark.parametrize("exc", [TypeError("bad operand"), KeyError("Width"), SyntaxError("not a TIFF"),
                                 AssertionError(), RecursionError("too deep"), MemoryError()])
def test_any_exception_of_a_reader_fails_that_file_alone(tmp_path, monkeypatch, exc):
    def boom(path, data):
        raise exc

    monkeypatch.setitem(READERS, "text", boom)
    bad, good = write(tmp_path, "bad.txt", PLAIN), write(tmp_path, "good.md")
    store = SQLiteStore(str(tmp_path / "index"))
    report = index_paths([bad, good], store, FakeEmbedder(), IndexSettings())
    assert [d.file for d in report.indexed] == ["good.md"]
    [(path, message)] = report.failed
    assert path == bad
    assert message.startswith(f"{bad}: could not be read ({type(exc).__name__}")
    assert "--debug" in message and "\n" not in message
    assert "Traceback" in report.tracebacks[bad] and type(exc).__name__ in report.tracebacks[bad]
    assert [d.file for d in store.documents()] == ["good.md"]


def test_the_cli_prints_the_traceback_only_with_debug(tmp_path, monkeypatch, capsys):
    def boom(path, data):
        return {}["missing"]

    monkeypatch.setitem(READERS, "text", boom)
    bad = write(tmp_path, "bad.txt", PLAIN)
    index = str(tmp_path / "index")
    assert main(["--index", index, "--model", "fake", "index", bad]) == 1
    err = capsys.readouterr().err
    assert f"error: {bad}: could not be read (KeyError: 'missing')" in err and "Traceback" not in err
    assert main(["--index", index, "--model", "fake", "--debug", "index", bad]) == 1
    assert "Traceback (most recent call last)" in capsys.readouterr().err


def test_names_that_are_not_utf8_are_kept_and_shown_escaped(tmp_path, capsys):
    raw = b"caf\xe9 \xff.md"
    path = write(tmp_path, raw)
    assert doc_id_for(path) == doc_id_for(os.fsdecode(os.path.join(os.fsencode(str(tmp_path)), raw)))
    index = str(tmp_path / "index")
    assert main(["--index", index, "--model", "fake", "index", path]) == 0
    capsys.readouterr()
    assert main(["--index", index, "--model", "fake", "list"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("caf\\xe9 \\xff.md\t")
    store = SQLiteStore(index)
    [doc] = store.documents()
    assert doc.path == storable(os.path.abspath(path)) and on_disk(doc.path) == os.path.abspath(path)
    store.close()


def test_control_characters_in_names_never_forge_a_row(tmp_path, capsys):
    path = write(tmp_path, "a\nfake\trow\x1b[2J.md")
    index = str(tmp_path / "index")
    assert main(["--index", index, "--model", "fake", "index", path]) == 0
    capsys.readouterr()
    main(["--index", index, "--model", "fake", "list"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("a\\nfake\\trow\\x1b[2J.md\t") and len(lines) == 2  # the row and the gate line


def test_shown_escapes_only_what_a_terminal_would_act_on():
    assert shown("社内 規程①.pdf") == "社内 規程①.pdf"
    assert shown("a\u3000b") == "a\u3000b"
    assert shown("evil\u202etxt.exe\r\n") == "evil\\u202etxt.exe\\r\\n"
    assert shown("x\udcff") == "x\\xff"


def test_long_lines_are_broken_without_losing_a_character():
    words = "leave " * (3 * MAX_LINE // 6)
    out = break_long_lines(words)
    assert len(out) == len(words) and out.replace("\n", " ") == words
    assert max(map(len, out.split("\n"))) <= MAX_LINE
    solid = "x" * (2 * MAX_LINE + 5)
    assert break_long_lines(solid).replace("\n", "") == solid


def test_a_child_reads_what_the_process_reads(tmp_path):
    path = write(tmp_path, "note.md")
    assert read_isolated(path, IndexSettings()) == read_document(path, ocr="auto")


def test_limits_come_back_from_the_child_as_the_same_message(tmp_path):
    path = write(tmp_path, "wide.csv", b",".join(b"c%d" % i for i in range(50)) + b"\n" + b"1," * 49 + b"1\n")
    settings = IndexSettings(limits=LimitSettings(max_columns=20))
    with pytest.raises(Exception) as in_child:
        read_isolated(path, settings)
    assert str(in_child.value) == (f"{path}: the table has 50 columns, over the limit of 20; split the file, or "
                                   "raise index.limits.max_columns (KOTAE_INDEX_LIMITS_MAX_COLUMNS)")
