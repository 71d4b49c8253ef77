"""The creature library (generic d20): searched on the add form, loaded on its first use, a tap adds
a creature with its attacks, defenses and turn tools (pyengine/systems/srd.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from pyengine.errors import EngineError
from pyengine.systems.srd import combatant_fields, cr_words, find, read_library

from ..effects import LoadLibrary, Refuse, RenderSheet, Toast
from ..messages import ConditionRulesAsked, CreaturePicked, LibraryFailed, LibraryLoaded, LibraryRetried, LibrarySearched
from ..model import Model
from .common import Result
from .fight import joined
from .timers import sheet_later

__all__ = ["UPDATES", "loading"]


def loading(model: Model, fresh: bool = False) -> Result:
    """The library on its way, once: asked again only after a failure is retried (`fresh`: past the
    caches, whose copy may be the damaged one)."""
    if model.library is not None or model.library_state == "loading":
        return model, ()
    return replace(model, library_state="loading"), (LoadLibrary(fresh),)


def _searched(model: Model, m: LibrarySearched) -> Result:
    model = replace(model, srd_query=m.query[:60])
    model, effects = loading(model)
    return sheet_later(model), effects  # drawn a moment after typing stops (the field keeps its text)


def _loaded(model: Model, m: LibraryLoaded) -> Result:
    try:
        library = m.library if m.library is not None else read_library(m.text)
    except EngineError as error:
        return _failed(model, LibraryFailed(str(error), damaged=True))
    return replace(model, library=library, library_state=""), (RenderSheet(),)


def _failed(model: Model, m: LibraryFailed) -> Result:
    """Not fetched: said, with Retry. Fetched but damaged (cut short, not ours, another format): the
    cached copy is fetched again past the caches at once, and said only if that one is damaged too."""
    if m.damaged and not m.fresh:
        return loading(replace(model, library_state=""), fresh=True)
    said = m.reason[:300] if m.damaged else f"The SRD library could not be loaded ({m.reason[:200]}). Retry when the page is back online."
    return replace(model, library_state=said), (RenderSheet(),)


def _picked(model: Model, m: CreaturePicked) -> Result:
    """The creature joins (a group of `count`, numbered), on the form's side; with Remember, kept
    by name in the saved opponents (or the party) with its attacks and tools, for Quick add."""
    creature = find(model.library, m.name) if model.library is not None else None
    if creature is None:
        return model, (Refuse(f"“{m.name[:60]}” is not in the SRD library."),)
    fields = combatant_fields(creature, m.side if m.side in ("party", "opponents") else "opponents")
    many = f" ×{m.count}" if m.count > 1 else ""
    said = (Toast(f"Added {creature.name}{many} (CR {cr_words(creature.cr)}, {creature.xp:,} XP{' each' if many else ''})", undo=True),)
    after, effects = joined(model, fields, m.count, m.remember, m.rng, said, roll_hp=creature.hit_dice if m.roll_hp else None)
    return (after if after.timeline is model.timeline else replace(after, srd_query="")), effects


def _retried(model: Model, m: LibraryRetried) -> Result:
    model, effects = loading(replace(model, library_state=""), fresh=True)
    return model, effects + (RenderSheet(),)


def _condition_rules(model: Model, m: ConditionRulesAsked) -> Result:
    model = replace(model, condition_rules=not model.condition_rules)
    model, effects = loading(model) if model.condition_rules else (model, ())
    return model, effects + (RenderSheet(),)


UPDATES: dict[type, Callable[[Model, Any], Result]] = {
    LibrarySearched: _searched,
    LibraryLoaded: _loaded,
    LibraryFailed: _failed,
    LibraryRetried: _retried,
    CreaturePicked: _picked,
    ConditionRulesAsked: _condition_rules,
}
