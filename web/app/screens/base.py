"""What every screen is made of: the context it draws from, its answer when its subject is gone,
and the Screen record itself (web/app/screens/__init__.py lists them)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pyengine.documents import Listed
from web.app.model import Model

__all__ = ["Context", "Elsewhere", "Screen", "EVERY_COLLECTION"]

EVERY_COLLECTION = frozenset({"*"})  # redrawn whatever another tab stored


@dataclass(frozen=True)
class Context:
    """What a screen draws from: the model, and what the runtime adds (the list of encounters, the
    theme, how storage stands, the time, the page's address for links)."""

    model: Model
    encounters: tuple[Listed, ...] = ()
    locked: frozenset[str] = frozenset()
    trash: tuple[dict[str, Any], ...] = ()           # deleted encounters (the menu offers them back)
    theme: str = "dark"
    storage: str = "unknown"
    now: float = 0.0
    page_url: str = ""
    safari_tab: bool = False   # Safari on an iPhone or iPad, not opened from the Home Screen (web/page/runtime.safari_tab)


@dataclass(frozen=True)
class Elsewhere:
    """What the screen showed is gone (deleted, in another tab, or the fight moved on): close the
    sheet (`kind` None) or open that screen instead."""

    kind: str | None = None


Draw = Callable[[Context, "str | None"], "str | Elsewhere"]


@dataclass(frozen=True)
class Screen:
    kind: str
    draw: Draw
    error_line: str | None = None                   # the id of its error line; None: a refusal is a notice
    shows: frozenset[str] = field(default=frozenset())  # collections (persist keys) whose change redraws it

    def redrawn_for(self, key: str) -> bool:
        return key in self.shows or self.shows == EVERY_COLLECTION
