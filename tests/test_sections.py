"""The memory-mapped file format of the vector and keyword files: a damaged file reads as absent (rebuilt)."""
import os

from kotae.store import sections


def _write(path):
    sections.write(path, b"TESTSEC1", {"n": 3}, {"a": ("<i8", (10000,)), "b": ("<f4", (3, 2))},
                   lambda v: (v["a"].__setitem__(Ellipsis, 7), v["b"].__setitem__(Ellipsis, 0.5)))


def test_round_trip(tmp_path):
    path = str(tmp_path / "f")
    _write(path)
    header, arr = sections.read(path, b"TESTSEC1")
    assert header["n"] == 3 and int(arr["a"].sum()) == 70000 and arr["b"].shape == (3, 2)
    assert sections.read(path, b"OTHERKND") is None
    assert sections.read(str(tmp_path / "missing"), b"TESTSEC1") is None


def test_a_file_cut_short_or_with_a_broken_header_reads_as_absent(tmp_path):
    path = str(tmp_path / "f")
    _write(path)
    with open(path, "r+b") as f:
        f.truncate(os.path.getsize(path) - 100)
    assert sections.read(path, b"TESTSEC1") is None
    _write(path)
    with open(path, "r+b") as f:
        f.seek(14)
        f.write(b"\xff\xfe{{")
    assert sections.read(path, b"TESTSEC1") is None
