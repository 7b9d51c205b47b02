from kotae.search.context import ends_first, jaccard, mmr, shingles
from kotae.types import Chunk, Hit


def H(i, text):
    return Hit(Chunk(f"c{i}", "d", "f", 1, (), text, 0, len(text), "ja", i))


def test_ends_first():
    assert ends_first([1, 2, 3, 4, 5]) == [1, 3, 5, 4, 2]
    assert ends_first([1, 2]) == [1, 2]
    assert ends_first([]) == []


def test_mmr_drops_near_duplicates_keeps_order_of_relevance():
    hits = [H(0, "賃金は、毎月末日に締め切り、翌月25日に支払う。"),
            H(1, "賃金は、毎月末日に締め切り、翌月25日に支払う。 "),  # overlap copy of the same text
            H(2, "賞与は年2回、6月と12月に支給する。"),
            H(3, "Employees may work remotely three days a week.")]
    picked = [h.chunk.id for h in mmr(hits, 3)]
    assert picked == ["c0", "c2", "c3"]


def test_jaccard_bounds():
    a = shingles("abcdef")
    assert jaccard(a, a) == 1.0 and jaccard(a, shingles("xyz")) == 0.0
