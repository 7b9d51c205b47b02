"""Search: dense (exact cosine), keyword (BM25 over analysed text), rank fusion, abstention gate."""
from kotae.search.searcher import MODES, SearchResult, Searcher

__all__ = ["MODES", "SearchResult", "Searcher"]
