"""The thin bridge to the browser: localStorage as a Store, element helpers, downloads, and the one
place that binds the page (`bind`, at start). Every other module of web/ reaches the browser through
this module's `window`, `document`, `JsException` and `to_js`, read when called: so each imports in a
plain CPython (the unit tests) and in the start-up snapshot, which can carry no JavaScript object."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn, Protocol

from web.app.storage.records import MemoryStore, StorageFull, StorageUnavailable, Store

__all__ = ["BrowserStore", "JsObject", "DomEvent", "open_store", "py", "el", "set_html", "value", "on", "download", "proxy", "bind",
           "window", "document", "JsException", "to_js"]

# A JavaScript object as Pyodide hands it over (an element, an event, a promise): untyped here.
JsObject = Any


class DomEvent(Protocol):
    """A DOM event as Pyodide hands it over: the members this page reads (a keyboard event's key and
    modifiers, a pointer's place, a touch list, a storage event's key, a channel message's data).
    What it points at (`target`, the touches) stays a JavaScript object."""

    target: JsObject
    key: str | None
    ctrlKey: bool
    metaKey: bool
    shiftKey: bool
    defaultPrevented: bool
    clientX: float
    clientY: float
    touches: JsObject
    changedTouches: JsObject
    data: object

    def preventDefault(self) -> None: ...


class NotInABrowser(Exception):
    """What JsException is until the page is bound (no JavaScript has been called to raise one)."""


window: JsObject = None
document: JsObject = None
JsException: type[Exception] = NotInABrowser
jsnull: object = None


def _unbound(*_: object, **__: object) -> NoReturn:
    raise NotInABrowser("the page is not bound: web.page.dom.bind() first")


to_js: Callable[..., Any] = _unbound
create_proxy: Callable[..., Any] = _unbound


def bind() -> None:
    """Take the page (pyscript's window and document) and Pyodide's bridges: called once by start()."""
    global window, document, JsException, jsnull, to_js, create_proxy
    from pyodide.ffi import JsException as js_exception
    from pyodide.ffi import create_proxy as make_proxy
    from pyodide.ffi import jsnull as js_null
    from pyodide.ffi import to_js as convert
    from pyscript import document as page_document
    from pyscript import window as page_window

    window, document, JsException, jsnull, to_js, create_proxy = page_window, page_document, js_exception, js_null, convert, make_proxy


def py(value: JsObject) -> JsObject:
    """JS null arrives as pyodide's `jsnull`, not None: fold both into None."""
    return None if value is None or value is jsnull else value

_proxies: list[Any] = []


def proxy(fn: Callable[..., object]) -> JsObject:
    """Keep a JS-callable proxy alive for the page's lifetime."""
    p = create_proxy(fn)
    _proxies.append(p)
    return p


class BrowserStore:
    """localStorage under this site's prefix (app name + site path), so sibling sites never mix."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.ls = window.localStorage
        # Every write also goes to the durable journal (static/journal.js: IndexedDB, strict
        # transactions), which puts back at start what localStorage had not written to disk yet.
        journal = py(getattr(window.RK, "journal", None)) if hasattr(window, "RK") else None
        self.journal = journal if journal is not None and py(getattr(journal, "put", None)) is not None else None

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
        if self.journal is not None:
            self.journal.put(self.prefix + key, value)

    def restore(self, key: str, value: str) -> None:
        """Put back what the journal holds (another tab's version, stored first): not journaled again."""
        try:
            self.ls.setItem(self.prefix + key, value)
        except JsException:
            pass  # full: the journal still has it, and the fight on screen is the merged one

    def claim(self, key: str, vid: str, base: str) -> None:
        """The write just made to `key` is the version `vid`, made from the version `base`: the journal
        refuses it if it holds another version than `base` (another tab stored its own first; it says
        so: journal.onConflict)."""
        if self.journal is not None:
            self.journal.claim(self.prefix + key, vid, base)

    def busy(self, key: str) -> bool:
        """The journal has not answered every write of `key` this tab made (or refused one, not merged yet)."""
        return self.journal is not None and bool(self.journal.busy(self.prefix + key))

    def remove(self, key: str) -> None:
        try:
            self.ls.removeItem(self.prefix + key)
        except JsException as error:
            raise StorageUnavailable(str(error)) from None
        if self.journal is not None:
            self.journal.put(self.prefix + key, None)

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
            # Full with our saves in it: they load and show, and Trim history can make room. Full with
            # nothing of ours in it (a private window whose quota is nil): nothing to trim, so this page
            # runs in memory and says the browser does not let it save.
            if [k for k in store.keys() if k != probe]:
                return store, "full"
        except StorageUnavailable:
            pass
    except (StorageUnavailable, JsException):
        pass
    return MemoryStore(), "blocked"


def el(element_id: str) -> JsObject:
    return py(document.getElementById(element_id))


_html_cache: dict[str, str] = {}


def set_html(element_id: str, html: str, morph: bool = False, typing: bool | str = False) -> bool:
    """Write a region only when its HTML changed (keeps taps cheap and focus stable). With `morph`,
    as a morph of what is there (static/boot.js `RK.morph`): the nodes that stay are kept (a select
    keeps its place, a field its focus and caret); with `typing` too, the field that has the focus
    keeps its value (drawn as one types: the attack panel's odds); with typing "fields", every field
    keeps what the user typed unless the drawing changed it (another tab's change)."""
    if _html_cache.get(element_id) == html:
        return False
    node = el(element_id)
    if node is None:
        return False
    if morph:
        window.RK.morph(node, html, typing)
    else:
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


def on(target: JsObject, event: str, handler: Callable[..., object]) -> None:
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
