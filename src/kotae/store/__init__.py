"""Stores: one interface, a registry by URL scheme; SQLite is the embedded default."""
from kotae.store.base import STORES, Filter, Store, open_store, register

__all__ = ["STORES", "Filter", "Store", "open_store", "register"]
