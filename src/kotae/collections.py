"""Named collections: several indexes side by side, each with its own documents, settings and calibration.

    from kotae.collections import Collections

    cols = Collections(settings)              # beside the index of settings.store (the default, "kotae")
    with cols.create("hr", api_key="…") as k:  # an index of its own (kotae.store.collections: where)
        k.index(["hr-docs/"])
    cols.names()                               # ["kotae", "hr"]
    cols.delete("hr")                          # its documents, chunks, vectors, calibration: all gone

The default collection is the index the settings name, so a deployment without collections is unchanged.
What a collection carries of its own beyond its index (a key, settings) is kept in its own store's meta,
so deleting the collection deletes that too.
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import hmac
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kotae.config import Settings, overlay, typed
from kotae.errors import ConfigError, Conflict, NotFound
from kotae.facade import Kotae
from kotae.store import collections as where

DEFAULT = "kotae"  # the default collection: the OpenAI model id and the MCP `collection` of the index itself
META = "collection"  # meta key of a collection's store: {"created", "api_key_sha256", "settings"}
# what a collection may set for itself: how it reads and cuts files and how it searches (not which reranker
# model it loads: the server holds one)
OWN = ("index.", "search.")
NOT_OWN = ("search.reranker",)


@dataclass(frozen=True)
class Own:
    """What a collection keeps of its own in its store, beyond its documents."""

    created: str = ""
    api_key_sha256: str = ""
    settings: Mapping[str, Any] = field(default_factory=dict)

    @property
    def protected(self) -> bool:
        return bool(self.api_key_sha256)


class Collections:
    """The collections of one deployment: the default index (`settings.store`) and those beside it.

    With `home` (the default index, opened already) collections are opened with its loaded models
    (`Kotae.beside`): what a server does; without, each opens like `Kotae.open` would."""

    def __init__(self, settings: Settings, home: Kotae | None = None, base: str | None = None) -> None:
        self.settings = settings
        self.home = home
        # the default index: `base`, else home's (when home is the default), else the settings'
        self.base = base or (home.store.address if home is not None else settings.store.location)
        self.root = self.settings.store.collections_dir

    def names(self) -> list[str]:
        """The default collection first, then the others by name."""
        return [DEFAULT, *(n for n in where.names_at(self.base, self.root) if n != DEFAULT)]

    def exists(self, name: str) -> bool:
        return name == DEFAULT or (where.NAME.fullmatch(name) is not None and where.exists(self.base, name, self.root))

    def location(self, name: str) -> str:
        return self.base if name == DEFAULT else where.location_of(self.base, name, self.root)

    def open(self, name: str, *, create: bool = False) -> Kotae:
        """The index of collection `name`, with its own settings; the caller closes it. A collection that is
        not there is refused (NotFound), unless `create`."""
        if name != DEFAULT and not create and not self.exists(name):
            raise NotFound(f'no collection "{name}"; create it with: kotae collections create {name} '
                           f"(there are: {', '.join(self.names())})", code="collection_not_found")
        location = self.location(name)
        if self.home is not None:
            k = self.home.beside(location)
        else:
            k = Kotae.open(location, settings=self.settings, create=create or name != DEFAULT)
        try:
            own = read_own(k)
            if own.settings:
                notices = k.notices
                k = k.using(settings=overlay(self.settings, own.settings, f"collection {name}"))
                k.notices = notices
            if name != DEFAULT and not own.created:
                write_own(k, Own(created=_now()))
        except BaseException:
            k.close()
            raise
        return k

    def peek(self, name: str) -> tuple[int, Own]:
        """How many documents collection `name` holds and what it keeps of its own, without loading a model."""
        from kotae.store import open_store

        if not self.exists(name) or (name == DEFAULT and not where.is_url(self.base)
                                     and not os.path.isdir(self.base)):
            raise NotFound(f'no collection "{name}"', code="collection_not_found")
        store = open_store(self.location(name))
        try:
            meta = store.meta(META)
            return len(store.documents()), _own(meta)
        finally:
            store.close()

    def create(self, name: str, *, api_key: str | None = None,
               settings: Mapping[str, Any] | None = None) -> Kotae:
        """A new, empty collection (its key stored as a hash); the caller closes the `Kotae`."""
        where.check_name(name)
        if self.exists(name):
            raise Conflict(f'the collection "{name}" exists already; pick another name or delete it first')
        own_settings = check_settings(settings or {}, name)
        k = self.open(name, create=True)
        try:
            write_own(k, Own(created=_now(), api_key_sha256=_digest(api_key) if api_key else "",
                             settings=own_settings))
            if own_settings:
                k = k.using(settings=overlay(self.settings, own_settings, f"collection {name}"))
        except BaseException:
            k.close()
            raise
        return k

    def delete(self, name: str, opened: Kotae | None = None) -> None:
        """Delete collection `name` with everything in its index (`opened`: its `Kotae`, if open; closed)."""
        if name == DEFAULT:
            raise ConfigError(f'the default collection "{DEFAULT}" is the index itself and is not deleted here; '
                              "remove its documents, or delete its folder or schema by hand")
        if opened is None and not self.exists(name):
            raise NotFound(f'no collection "{name}"; see kotae collections', code="collection_not_found")
        k = opened or self.open(name)
        k.store.drop()


def shown_location(location: str) -> str:
    """A location as it may be printed: a URL without its password."""
    from kotae.store.pg_connect import redact

    return redact(location)


def check_settings(own: Mapping[str, Any], name: str) -> dict[str, Any]:
    """A collection's own settings, typed; only index.* and search.* keys (not search.reranker)."""
    out = {}
    for key, value in own.items():
        if not key.startswith(OWN) or key in NOT_OWN:
            raise ConfigError(f"collection {name}: {key} is not a collection's own setting; a collection sets "
                              "index.* and search.* keys (not search.reranker)")
        out[key] = typed(key, value, f"collection {name}")
    return out


def read_own(k: Kotae) -> Own:
    return _own(k.store.meta(META))


def _own(raw: str | None) -> Own:
    if not raw:
        return Own()
    d = json.loads(raw)
    return Own(created=d.get("created", ""), api_key_sha256=d.get("api_key_sha256", ""),
               settings=d.get("settings") or {})


def write_own(k: Kotae, own: Own) -> None:
    k.store.set_meta(META, json.dumps({"created": own.created, "api_key_sha256": own.api_key_sha256,
                                       "settings": dict(own.settings or {})}, ensure_ascii=False))


def admits(own: Own, keys: Iterable[str]) -> bool:
    """Whether one of the presented `keys` is the collection's key (always, when it has none)."""
    if not own.protected:
        return True
    return any(hmac.compare_digest(_digest(key), own.api_key_sha256) for key in keys if key)


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")
