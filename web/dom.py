"""The thin bridge to the browser: localStorage as a Store, element helpers, downloads."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pyodide.ffi import JsException, create_proxy, jsnull, to_js
from pyscript import document, window

from .persist import MemoryStore, StorageFull, StorageUnavailable, Store

__all__ = ["BrowserStore", "JsObject", "open_store", "py", "el", "set_html", "value", "on", "download", "proxy"]

# A JavaScript object as Pyodide hands it over (an element, an event, a promise): untyped here.
JsObject = Any


def py(value: JsObject) -> JsObject:
    """JS null arrives as pyodide's `jsnull`, not None: fold both into None."""
    return None if value is None or value is jsnull else value

_proxies: list[Any] = []


def proxy(fn: Callable[..., Any]) -> JsObject:
    """Keep a JS-callable proxy alive for the page's lifetime."""
    p = create_proxy(fn)
    _proxies.append(p)
    return p


class BrowserStore:
    """localStorage under this site's prefix (app name + site path), so sibling sites never mix."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.ls = window.localStorage

    def get(self, key: str) -> str | None:
        try:
            value = py(self.ls.getItem(self.prefix + key))
        except JsException as error:
            raise StorageUnavailable(str(error)) from None
        return None if value is None else str(value)

    def set(self, key: str, value: str) -> None:
        try:
            self.ls.setItem(self.prefix + key, value)
        except JsException as error:
            if "quota" in str(error).lower() or "QuotaExceeded" in str(error):
                raise StorageFull(key) from None
            raise StorageUnavailable(str(error)) from None

    def remove(self, key: str) -> None:
        try:
            self.ls.removeItem(self.prefix + key)
        except JsException as error:
            raise StorageUnavailable(str(error)) from None

    def keys(self) -> list[str]:
        out = []
        try:
            for i in range(int(self.ls.length)):
                key = py(self.ls.key(i))
                if key is not None and str(key).startswith(self.prefix):
                    out.append(str(key)[len(self.prefix):])
        except JsException as error:
            raise StorageUnavailable(str(error)) from None
        return out


def open_store(prefix: str) -> tuple[Store, str]:
    """(store, status): the browser's storage with "ok"; with "full" when it reads but refuses even
    a tiny write (the saved fights still load and show); else memory with "blocked"."""
    try:
        store = BrowserStore(prefix)
    except JsException:
        return MemoryStore(), "blocked"
    probe = "__probe__"
    try:
        store.set(probe, "1")
        ok = store.get(probe) == "1"
        store.remove(probe)
        if ok:
            return store, "ok"
    except StorageFull:
        try:
            store.keys()
            return store, "full"
        except StorageUnavailable:
            pass
    except (StorageUnavailable, JsException):
        pass
    return MemoryStore(), "blocked"


def el(element_id: str) -> JsObject:
    return py(document.getElementById(element_id))


_html_cache: dict[str, str] = {}


def set_html(element_id: str, html: str) -> bool:
    """Write a region only when its HTML changed (keeps taps cheap and focus stable)."""
    if _html_cache.get(element_id) == html:
        return False
    node = el(element_id)
    if node is None:
        return False
    node.innerHTML = html
    _html_cache[element_id] = html
    return True


def forget(element_id: str) -> None:
    _html_cache.pop(element_id, None)


def value(element_id: str, default: str = "") -> str:
    node = el(element_id)
    if node is None:
        return default
    v = py(node.value)
    return default if v is None else str(v)


def on(target: JsObject, event: str, handler: Callable[..., Any]) -> None:
    target.addEventListener(event, proxy(handler))


def download(filename: str, text: str) -> None:
    blob = window.Blob.new([text], to_js({"type": "application/json"}, dict_converter=window.Object.fromEntries))
    url = window.URL.createObjectURL(blob)
    a = document.createElement("a")
    a.href = url
    a.download = filename
    document.body.appendChild(a)
    a.click()
    a.remove()
    window.setTimeout(proxy(lambda: window.URL.revokeObjectURL(url)), 1000)
