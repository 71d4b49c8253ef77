"""`update(model, message) -> (model, effects)`: what a message does to the page's state, and what
the runtime must then do (save, draw, say). Pure: no pyscript, no DOM, no clock (a time comes in
the message), no global random (a message that rolls carries its `rng`). Unit-tested in CPython.

>>> from pyengine.tracker import Timeline, new_encounter
>>> from web.app.messages import SelectingToggled
>>> model, effects = update(Model(Timeline.start(new_encounter("e1"))), SelectingToggled())
>>> model.ui.selected, effects
((), (Render(elsewhere=False),))
"""

from __future__ import annotations

from typing import assert_never

from web.app.messages import Message
from web.app.model import Model
from web.app.update import characters, clock, encounters, fight, follow, library, live, pairing, roller, saves, sheets, timers
from web.app.update.characters import character_document
from web.app.update.clock import subscriptions
from web.app.update.common import (
    BACKUP_DAYS,
    BACKUP_OFFER,
    COLLECTION_OF,
    FIGHT_CHANGED,
    FIRST_RUN_HINT,
    FOCUSED,
    MAX_AMOUNT,
    QUIET_ACTIONS,
    Result,
    act,
    backup_known,
    closed,
    commit,
    in_place,
    noticed,
    notify,
    numbered_name,
    opened,
    typed_number,
    whole_number,
    with_roll,
    without,
)
from web.app.update.encounters import shared_before
from web.app.update.fight import batch_actions, practice_entry, practice_of
from web.app.update.timers import redrawn

__all__ = ["update", "HANDLERS", "subscriptions", "QUIET_ACTIONS", "FIGHT_CHANGED", "FIRST_RUN_HINT", "BACKUP_DAYS", "BACKUP_OFFER", "backup_known", "MAX_AMOUNT", "COLLECTION_OF", "act", "typed_number", "whole_number", "noticed",
           "without", "notify", "in_place", "with_roll", "opened", "closed", "commit", "redrawn", "Result", "FOCUSED",
           "character_document", "shared_before", "batch_actions", "numbered_name", "practice_entry", "practice_of"]

# Each message goes to the one module that updates on it: its `Handled` union and its `handle`, a
# `match` that mypy checks is whole. The chain below ends in `assert_never`, so a message of the
# `Message` union that no module handles is a type error too (and tests/unit/test_update.py checks
# that no message is in two modules' unions).
HANDLERS = (fight, roller, characters, encounters, live, pairing, library, clock, sheets, follow, timers, saves)


def _handled(model: Model, message: Message) -> Result:  # noqa: C901, PLR0911 - one module a case
    if isinstance(message, fight.Handled):
        return fight.handle(model, message)
    if isinstance(message, roller.Handled):
        return roller.handle(model, message)
    if isinstance(message, characters.Handled):
        return characters.handle(model, message)
    if isinstance(message, encounters.Handled):
        return encounters.handle(model, message)
    if isinstance(message, live.Handled):
        return live.handle(model, message)
    if isinstance(message, pairing.Handled):
        return pairing.handle(model, message)
    if isinstance(message, library.Handled):
        return library.handle(model, message)
    if isinstance(message, clock.Handled):
        return clock.handle(model, message)
    if isinstance(message, sheets.Handled):
        return sheets.handle(model, message)
    if isinstance(message, follow.Handled):
        return follow.handle(model, message)
    if isinstance(message, timers.Handled):
        return timers.handle(model, message)
    if isinstance(message, saves.Handled):
        return saves.handle(model, message)
    assert_never(message)


def update(model: Model, message: Message) -> Result:
    """The model after `message`, and the effects the runtime performs, in order."""
    after, effects = _handled(model, message)
    after, sent = live.broadcast(model, after)
    after, effects = clock.numbered(after, effects + sent)
    return timers.timed(after, effects)
