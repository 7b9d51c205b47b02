"""Search: dense (exact cosine), keyword (BM25 over analysed text), rank fusion, abstention gate."""
from kotae.search.searcher import MODES, Searcher, SearchResult

__all__ = ["MODES", "SearchResult", "Searcher"]
