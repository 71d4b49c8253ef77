"""A page for the screens' event handlers in CPython (web/app/views.Page), over a dict of inputs: what
the runtime's DOM page gives a handler, without a browser."""

from __future__ import annotations

import random
from typing import Any

from pyengine.documents import Listed
from web.app.model import Model
from web.app.update import typed_number


class FakePage:
    """`inputs`: field id -> text (or, for a box, selector or id -> ticked); `node`: the tapped
    element's data-* values; `fields`: selector -> [(key, value, ticked, type)]."""

    def __init__(self, model: Model, inputs: dict[str, Any] | None = None, node: dict[str, Any] | None = None, *,
                 rng: Any = None, chosen: str = "", typing: bool = False, fields: dict[str, list[Any]] | None = None,
                 answer: str | None = None, encounters: tuple[Listed, ...] = (), locked: frozenset[str] = frozenset(), now_ms: int = 1_000,
                 monotonic: float = 10.0, new_id: str = "e-new0001") -> None:
        self.model, self.inputs, self.node = model, inputs or {}, node or {}
        self.rng = rng if rng is not None else random.Random(1)
        self.chosen, self.typing, self._fields, self.answer = chosen, typing, fields or {}, answer
        self.encounters, self.locked = encounters, locked
        self._now, self._mono, self._id = now_ms, monotonic, new_id
        self.asked: list[tuple[str, str]] = []
        self.servers: tuple[tuple[str, ...], tuple[str, ...]] = (("ws://127.0.0.1:1",), ())
        self.nostr: tuple[str, ...] = ()

    @property
    def attack(self) -> dict[str, Any]:
        return self.model.ui.attack

    def data(self, key: str) -> str | None:
        found = self.node.get(key)  # as the DOM's attributes: text, or none
        return None if found is None else str(found)

    def value(self, node_id: str, default: str = "") -> str:
        return str(self.inputs.get(node_id, default))

    def number(self, text: str | None, default: int | None = None) -> int | None:
        return typed_number(text, default)

    def checked(self, selector: str) -> list[str]:
        found = self.inputs.get(selector)
        return list(found) if isinstance(found, (list, tuple)) else ["on"] if found else []

    def ticked(self, node_id: str) -> bool:
        return bool(self.inputs.get(node_id))

    def exists(self, node_id: str) -> bool:
        return node_id in self.inputs

    def attribute(self, selector: str, name: str) -> str | None:
        found = self.inputs.get(f"{selector}@{name}")
        return None if found is None else str(found)

    def fields(self, selector: str, key: str) -> list[tuple[str, str, bool, str]]:
        return list(self._fields.get(selector, []))

    def prompt(self, question: str, default: str) -> str | None:
        self.asked.append((question, default))
        return self.answer

    def now_ms(self) -> int:
        return self._now

    def monotonic(self) -> float:
        return self._mono

    def new_id(self) -> str:
        return self._id
