"""The browser's timers: one delayed call (`Later`: a refusal's toast) and the one-shot
subscriptions the model wants (`Timers`: web/app/update/timers.py, each fired as its message).
It reaches the page through web/page/dom (bound at start), so it imports anywhere."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pyengine.record import Record
from web.app import effects as fx
from web.page import dom

__all__ = ["Later", "Timers"]


class Later:
    """One timer: `soon(ms)` runs `callback` then (an earlier call not yet run is dropped)."""

    def __init__(self, callback: Callable[[], None]) -> None:
        self._proxy = dom.proxy(lambda *_: self._run(callback))
        self.timer: Any = None

    def _run(self, callback: Callable[[], None]) -> None:
        self.timer = None
        callback()

    def soon(self, ms: int) -> None:
        self.cancel()
        self.timer = dom.window.setTimeout(self._proxy, ms)

    def cancel(self) -> None:
        if self.timer is not None:
            dom.window.clearTimeout(self.timer)
            self.timer = None


class Timers:
    """The one-shot subscriptions the model wants (effects.After): each started once, when the model
    first wants it, its message dispatched when it fires; stopped when the model no longer wants it
    (a toast replaced by another, a key typed again). One JavaScript callback serves them all."""

    def __init__(self, dispatch: Callable[[Record], object]) -> None:
        self.dispatch = dispatch
        self.running: dict[fx.After, int] = {}  # subscription -> its number (0 once it has fired)
        self.handles: dict[int, object] = {}     # number -> the browser's timer
        self.count = 0
        self._proxy = dom.proxy(self._fired)

    def follow(self, wanted: frozenset[fx.After]) -> None:
        for sub in [s for s in self.running if s not in wanted]:
            handle = self.handles.pop(self.running.pop(sub), None)
            if handle is not None:
                dom.window.clearTimeout(handle)
        for sub in wanted - self.running.keys():
            self.count += 1
            self.running[sub] = self.count
            self.handles[self.count] = dom.window.setTimeout(self._proxy, sub.ms, self.count)

    def _fired(self, number: object) -> None:
        key = int(number) if isinstance(number, (int, float)) else 0
        if self.handles.pop(key, None) is None:
            return  # stopped meanwhile
        sub = next((s for s, n in self.running.items() if n == key), None)
        if sub is not None:
            self.running[sub] = 0  # still wanted until the model says otherwise: not started again
            self.dispatch(sub.message)
