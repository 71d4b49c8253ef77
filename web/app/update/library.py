"""The creature library (generic d20): searched on the add form, loaded on its first use, a tap adds
a creature with its attacks, defenses and turn tools (pyengine/systems/srd.py)."""

from __future__ import annotations

from dataclasses import replace
from typing import assert_never

from pyengine.errors import EngineError
from pyengine.systems.srd import combatant_fields, cr_words, find, read_library
from web.app.effects import LoadLibrary, Refuse, RenderSheet, Toast
from web.app.messages import ConditionRulesAsked, CreaturePicked, LibraryFailed, LibraryLoaded, LibraryRetried, LibrarySearched
from web.app.model import Model
from web.app.update.common import Result
from web.app.update.fight import joined
from web.app.update.timers import sheet_later

__all__ = ["Handled", "handle", "loading"]


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


Handled = LibrarySearched | LibraryLoaded | LibraryFailed | LibraryRetried | CreaturePicked | ConditionRulesAsked


def handle(model: Model, message: Handled) -> Result:
    """The model after one of this module's messages, and its effects: a `match` that mypy checks
    is whole (`assert_never`): a message in `Handled` with no case is a type error."""
    match message:
        case LibrarySearched():
            return _searched(model, message)
        case LibraryLoaded():
            return _loaded(model, message)
        case LibraryFailed():
            return _failed(model, message)
        case LibraryRetried():
            return _retried(model, message)
        case CreaturePicked():
            return _picked(model, message)
        case ConditionRulesAsked():
            return _condition_rules(model, message)
        case _:
            assert_never(message)
