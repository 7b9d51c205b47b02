"""Search: dense (exact cosine), keyword (BM25 over analysed text), fusion, reranking, abstention gate."""
from kotae.search.rerank import Reranker, get_reranker, load_reranker
from kotae.search.searcher import MODES, Searcher, SearchResult

__all__ = ["MODES", "Reranker", "SearchResult", "Searcher", "get_reranker", "load_reranker"]
