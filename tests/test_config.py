"""The settings tree: one loader (flags > KOTAE_* environment > TOML file > defaults), validation that names
the key and the allowed values, `kotae config show`, and README's table generated from the tree."""
from __future__ import annotations

import json
import os
import re

import pytest

from conftest import ROOT
from kotae.cli import main
from kotae.config import LEAVES, Settings, load_settings, markdown_table, show
from kotae.errors import ConfigError


def test_precedence_flags_then_environment_then_file_then_defaults(tmp_path):
    conf = tmp_path / "kotae.toml"
    conf.write_text('[search]\ntop_k = 7\nmode = "keyword"\n[search.gate]\nmin_margin = 0.05\n'
                    '[index.chunk]\nmax_tokens = 128\n[llm]\nspec = "openai:from-file"\n', encoding="utf-8")
    env = {"KOTAE_CONFIG": str(conf), "KOTAE_SEARCH_TOP_K": "9", "KOTAE_LLM": "openai:from-env"}
    s = load_settings({"search.top_k": 3}, env)
    assert (s.search.top_k, s.search.mode, s.search.gate.min_margin, s.index.chunk.max_tokens) == (3, "keyword", 0.05, 128)
    assert s.llm.spec == "openai:from-env" and s.search.rrf_k == 60
    assert s.origin["search.top_k"] == "flag" and s.origin["llm.spec"] == "env KOTAE_LLM"
    assert s.origin["search.mode"] == f"file {conf}" and "search.rrf_k" not in s.origin
    assert s.explicit("index.chunk") and not s.explicit("index.ocr") and not s.explicit("server")
    assert load_settings({}, {"KOTAE_CONFIG": str(conf), "KOTAE_SEARCH_TOP_K": "9"}).search.top_k == 9
    assert load_settings({}, {}) == Settings()


def test_a_kotae_toml_in_the_working_folder_is_read(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert load_settings({}, {}).search.top_k == 5
    (tmp_path / "kotae.toml").write_text("[search]\ntop_k = 8\n", encoding="utf-8")
    assert load_settings({}, {}).search.top_k == 8
    assert load_settings({}, {}, config=None).origin["search.top_k"] == "file kotae.toml"


def test_values_are_typed_from_the_environment():
    s = load_settings({}, {"KOTAE_INDEX_CHUNK_CONTEXTUAL_PREFIX": "yes", "KOTAE_SERVER_CORS_ORIGINS": "http://a, http://b",
                           "KOTAE_SEARCH_GATE_MIN_COVERAGE": "0.5", "KOTAE_INDEX": "/tmp/i"})
    assert s.index.chunk.contextual_prefix is True and s.server.cors_origins == ("http://a", "http://b")
    assert s.search.gate.min_coverage == 0.5 and s.store.location == "/tmp/i"
    assert load_settings({"llm.spec": "none"}, {"KOTAE_LLM": "openai:x"}).llm.spec is None


def test_validation_names_the_key_and_the_allowed_values(tmp_path):
    with pytest.raises(ConfigError, match=r"^\$KOTAE_SEARCH_MODE \(search.mode\) must be one of dense, keyword, "
                                          r"hybrid, hybrid\+rerank; got 'fuzzy'$"):
        load_settings({}, {"KOTAE_SEARCH_MODE": "fuzzy"})
    with pytest.raises(ConfigError, match=r"^\$KOTAE_SEARCH_TOP_K \(search.top_k\) must be an integer, got 'many'$"):
        load_settings({}, {"KOTAE_SEARCH_TOP_K": "many"})
    conf = tmp_path / "k.toml"
    conf.write_text("[search]\ntopk = 3\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"k.toml: unknown setting \[search\] topk; known in \[search\]: mode, top_k,"):
        load_settings({}, {}, config=str(conf))
    conf.write_text("[serch]\ntop_k = 3\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"unknown setting \[serch\] top_k; sections: embed, index, judge, llm, "):
        load_settings({}, {}, config=str(conf))
    conf.write_text("[server]\napi_key = 'x'\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"server.api_key is not read from files; set KOTAE_API_KEY instead$"):
        load_settings({}, {}, config=str(conf))
    with pytest.raises(ConfigError, match=r"^no config file at /nope.toml; fix the path"):
        load_settings({}, {}, config="/nope.toml")
    with pytest.raises(ConfigError, match=r"^LLM context 100 must exceed the answer budget 512 tokens"):
        load_settings({"llm.context": 100}, {})


def test_config_show_prints_every_value_and_its_origin(tmp_path, capsys):
    conf = tmp_path / "k.toml"
    conf.write_text("[search]\ntop_k = 4\n", encoding="utf-8")
    os.environ.pop("KOTAE_API_KEY", None)
    assert main(["config", "show", "--config", str(conf), "--json"]) == 0
    rows = {r["key"]: r for r in json.loads(capsys.readouterr().out)}
    assert set(rows) == set(LEAVES)
    assert rows["search.top_k"] == {"key": "search.top_k", "value": "4", "origin": f"file {conf}"}
    assert rows["store.index"]["value"] == ".kotae" and rows["search.mode"]["origin"] == "default"
    assert main(["--index", "/tmp/x", "config"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^store.index +\= /tmp/x   \(flag\)$", out, re.MULTILINE)


def test_secrets_are_masked():
    rows = {k: v for k, v, _ in show(load_settings({}, {"KOTAE_API_KEY": "s3cret", "OPENAI_API_KEY": "sk-1"}))}
    assert rows["server.api_key"] == "***" and rows["llm.api_key"] == "***"


def test_readme_configuration_table_is_generated_from_the_tree():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    m = re.search(r"<!-- settings table: kotae config table -->\n(.*?)\n<!-- end of settings table -->", readme, re.DOTALL)
    assert m, "README has lost its settings table"
    assert m.group(1).strip() == markdown_table(), "README's table drifted: paste the output of `kotae config table`"


def test_chunk_key_of_indexes_before_the_heading_setting_is_kept():
    """An index made before index.chunk.heading keeps its chunking key (it is not re-chunked); another
    heading setting is another key."""
    import hashlib
    import json

    from kotae.config import ChunkSettings

    before = {"max_tokens": 256, "overlap_tokens": 48, "min_tokens": 32, "contextual_prefix": False}
    assert ChunkSettings().key() == hashlib.sha1(json.dumps(before, sort_keys=True).encode()).hexdigest()[:12]
    assert ChunkSettings(heading="keywords").key() != ChunkSettings().key()
