"""PostgreSQL: exact max-score pruning of the keyword search gives the list scoring every matching chunk gives
(a generated corpus with common and rare words, odd pieces and filters), as the SQLite store's does."""
from __future__ import annotations

import random

import pytest

from kotae.store import pg_keyword as kw
from kotae.store import postgres
from test_keyword_pruning import COMMON, ODD, RARE, _corpus


def _both(store, terms, limit, doc_ids=None):  # type: ignore[no-untyped-def]
    store.keyword_pruning = False
    plain = store.keyword_search(terms, limit, doc_ids)
    store.keyword_pruning = True
    got = store.keyword_search(terms, limit, doc_ids)
    return plain, got, store.last_essential


def test_pruned_results_are_the_unpruned_ones(pg_url, monkeypatch):
    monkeypatch.setattr(kw, "MIN_ROWS", 0)  # prune however small the corpus
    store = postgres.PostgresStore(pg_url)
    store.bind_model("m@1/4")
    rng = random.Random(7)
    _corpus(store, rng, docs=4)
    pruned = 0
    for q in range(40):
        terms = rng.sample(COMMON, rng.randint(1, 4)) + rng.sample(RARE[:60], rng.randint(1, 4))
        if q % 5 == 0:
            terms += rng.sample(ODD, 2)
        rng.shuffle(terms)
        for limit in (1, 10, 50):
            plain, got, essential = _both(store, terms, limit)
            assert [r for r, _ in got] == [r for r, _ in plain]  # the same chunks in the same order …
            assert [s for _, s in got] == pytest.approx([s for _, s in plain], rel=1e-12)  # … and scores
            pruned += essential is not None and essential[0] < essential[1]
        plain, got, _ = _both(store, terms, 10, {"id1", "id3"})
        assert [r for r, _ in got] == [r for r, _ in plain]
    assert pruned > 30  # the pruned path ran, not only its fallback
    assert store.keyword_search(["c0", "c1", "r3"], 0, None) == []  # no rows asked: no bound to take
    store.close()


def test_rare_terms_give_the_first_bound_only_where_it_can_pay():
    df = {"common": 9000, "often": 4000, "rare": 3, "rarer": 1}
    assert kw.rare_terms(["common", "often", "rare", "rarer"], df, 1) == ["rarer", "rare"]
    assert kw.rare_terms(["common", "rare"], {"common": 10, "rare": 1}, 1) is None  # too few chunks to pay
    assert kw.rare_terms(["rare"], {"rare": 9000}, 1) is None  # one term: nothing to leave out
    assert kw.rare_terms(["common", "often", "rare", "rarer"], df, 0) is None  # nothing asked for
