"""Named collections beside the default index, on real SQLite and PostgreSQL: each an index of its own."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from conftest import FakeEmbedder, new_pg_index
from kotae import Kotae
from kotae.cli import main
from kotae.collections import DEFAULT, Collections, admits, read_own
from kotae.config import Settings, StoreSettings
from kotae.errors import ConfigError, Conflict, NotFound
from kotae.store import open_store
from kotae.store.collections import check_name, location_of

SALARY = "# Office rules\n\n## Salary\n\nSalaries are paid on the 25th day of every month by bank transfer.\n"
PARKING = "# Visitors\n\n## Parking\n\nVisitors park on level two of the north garage and show their ticket.\n"


def docs(tmp_path, name: str, text: str) -> str:
    folder = tmp_path / name
    folder.mkdir()
    (folder / f"{name}.md").write_text(text, encoding="utf-8")
    return str(folder)


@pytest.fixture(params=["sqlite", "postgres"])
def base(request, tmp_path) -> str:
    """The default index's location: a folder, or a schema of its own on the test PostgreSQL server."""
    if request.param == "sqlite":
        return str(tmp_path / "index")
    return new_pg_index(request.getfixturevalue("pg_server"))


def home(base: str) -> Kotae:
    return Kotae(open_store(base), FakeEmbedder())


def test_a_collection_is_an_index_of_its_own(base, tmp_path):
    with home(base) as k:
        k.index([docs(tmp_path, "rules", SALARY)])
        cols = Collections(k.settings, home=k)
        assert cols.names() == [DEFAULT]
        with cols.create("visitors") as v:
            v.index([docs(tmp_path, "visitors", PARKING)])
            assert v.embedder is k.embedder  # the server's one model, shared
            answer = v.ask("Where do visitors park?")
            assert answer.found_in_docs and {s.hit.chunk.file for s in answer.sources} == {"visitors.md"}
            # a document of the default collection is never an answer in another, nor the other way round
            assert "rules.md" not in {s.hit.chunk.file for s in v.ask("When are salaries paid?").sources}
        assert cols.names() == [DEFAULT, "visitors"]
        assert {s.hit.chunk.file for s in k.ask("Where do visitors park?").sources} <= {"rules.md"}
        assert [d.file for d in k.documents()] == ["rules.md"]
        with cols.open("visitors") as again:
            assert [d.file for d in again.documents()] == ["visitors.md"]


def test_delete_takes_everything_in_the_collection(base, tmp_path):
    with home(base) as k:
        cols = Collections(k.settings, home=k)
        with cols.create("visitors") as v:
            v.index([docs(tmp_path, "visitors", PARKING)])
            v.self_calibrate(force=True)
            assert v.store.meta("gate") is not None  # its own calibration
        location = cols.location("visitors")
        cols.delete("visitors")
        assert cols.names() == [DEFAULT] and not cols.exists("visitors")
        if "://" not in base:
            assert not os.path.exists(location)
        with pytest.raises(NotFound, match='no collection "visitors"'):
            cols.open("visitors")
        with cols.create("visitors") as fresh:  # the name is free again, and the new one is empty
            assert fresh.documents() == [] and fresh.store.meta("gate") is None
            assert fresh.search("Where do visitors park?").hits == []


def test_names_keys_and_own_settings(tmp_path):
    with home(str(tmp_path / "index")) as k:
        cols = Collections(k.settings, home=k)
        with cols.create("hr", api_key="hr-key", settings={"search.top_k": "2"}) as hr:
            assert hr.settings.search.top_k == 2 and hr.settings.origin["search.top_k"] == "collection hr"
            own = read_own(hr)
        assert own.protected and admits(own, ["wrong", "hr-key"]) and not admits(own, ["wrong"])
        db = Path(cols.location("hr")) / "index.sqlite3"
        assert b"hr-key" not in db.read_bytes()  # only its hash is kept
        with cols.open("hr") as hr:
            assert hr.settings.search.top_k == 2  # kept with the collection
        with pytest.raises(Conflict, match='"hr" exists already'):
            cols.create("hr")
        with pytest.raises(ConfigError, match="cannot name a collection"):
            cols.create("../etc")
        with pytest.raises(ConfigError, match="not a collection's own setting"):
            cols.create("other", settings={"server.port": 1})
        with pytest.raises(ConfigError, match="is the index itself"):
            cols.delete(DEFAULT)
        assert cols.names() == [DEFAULT, "hr"]


def test_locations():
    assert location_of("/data/idx", "hr") == os.path.join("/data/idx", "collections", "hr")
    assert location_of("/data/idx", "hr", root="/data/cols") == os.path.join("/data/cols", "hr")
    url = "postgresql://u:p@db/kotae?options=-csearch_path%3Dsales,public"
    assert location_of(url, "hr") == "postgresql://u:p@db/kotae?options=-csearch_path%3Dsales__hr%2Cpublic"
    assert location_of("postgresql://u@db/k", "hr") == "postgresql://u@db/k?options=-csearch_path%3Dkotae__hr%2Cpublic"
    for bad in ("", "HR", "a/b", "-x", "x" * 41):
        with pytest.raises(ConfigError):
            check_name(bad)


def test_postgres_collection_is_a_schema_and_delete_drops_it(pg_server, tmp_path):
    import psycopg

    base = new_pg_index(pg_server)
    with home(base) as k:
        cols = Collections(k.settings, home=k)
        with cols.create("hr-rules") as hr:  # a "-" in the name: a quoted schema
            hr.index([docs(tmp_path, "visitors", PARKING)])
        schema = base.split("search_path%3D")[1].split(",")[0] + "__hr-rules"
        with psycopg.connect(pg_server.get_uri()) as conn:
            count = f'SELECT count(*) FROM "{schema}".documents'
            assert conn.execute(count).fetchone()[0] == 1
        assert cols.names() == [DEFAULT, "hr-rules"]
        cols.delete("hr-rules")
        with psycopg.connect(pg_server.get_uri()) as conn:
            assert conn.execute("SELECT to_regnamespace(%s)", (f'"{schema}"',)).fetchone()[0] is None


def test_cli_collections(tmp_path, capsys):
    index = str(tmp_path / "index")
    g = ["--index", index, "--model", "fake"]
    assert main([*g, "index", docs(tmp_path, "rules", SALARY)]) == 0
    assert main([*g, "collections", "create", "visitors", "--set", "search.top_k=2"]) == 0
    assert main([*g, "--collection", "visitors", "index", docs(tmp_path, "visitors", PARKING)]) == 0
    capsys.readouterr()
    assert main([*g, "collections"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert [line.split("\t")[:2] for line in listed] == [["kotae", "1 document(s)"], ["visitors", "1 document(s)"]]
    assert "search.top_k=2" in listed[1]
    assert main([*g, "ask", "--collection", "visitors", "--json", "Where do visitors park?"]) == 0
    assert '"file": "visitors.md"' in capsys.readouterr().out
    assert main([*g, "list", "--collection", "visitors"]) == 0
    out = capsys.readouterr().out
    assert "visitors.md" in out and "rules.md" not in out
    assert main([*g, "--collection", "nope", "list"]) == 2
    assert 'no collection "nope"' in capsys.readouterr().err
    assert main([*g, "collections", "delete", "visitors"]) == 1  # not without --yes
    assert main([*g, "collections", "delete", "visitors", "--yes"]) == 0
    assert not os.path.exists(os.path.join(index, "collections", "visitors"))
    capsys.readouterr()
    assert main([*g, "collections", "--json"]) == 0
    assert '"visitors"' not in capsys.readouterr().out


def test_settings_name_the_collection(tmp_path):
    s = Settings(store=StoreSettings(index=str(tmp_path / "i"), collection="hr"))
    assert Collections(s).location("hr") == os.path.join(str(tmp_path / "i"), "collections", "hr")
