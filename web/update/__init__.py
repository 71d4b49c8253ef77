"""`update(model, message) -> (model, effects)`: what a message does to the page's state, and what
the runtime must then do (save, draw, say). Pure: no pyscript, no DOM, no clock (a time comes in
the message), no global random (a message that rolls carries its `rng`). Unit-tested in CPython.

>>> from pyengine.tracker import Timeline, new_encounter
>>> from web.messages import SelectingToggled
>>> model, effects = update(Model(Timeline.start(new_encounter("e1"))), SelectingToggled())
>>> model.ui.selected, effects
((), (Render(elsewhere=False),))
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..messages import Message
from ..model import Model
from . import characters, clock, encounters, fight, follow, library, live, pairing, roller, saves, sheets, timers
from .characters import character_document
from .clock import subscriptions
from .common import (
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
from .encounters import shared_before
from .fight import batch_actions, practice_entry, practice_of
from .timers import redrawn

__all__ = ["update", "subscriptions", "QUIET_ACTIONS", "FIGHT_CHANGED", "FIRST_RUN_HINT", "BACKUP_DAYS", "BACKUP_OFFER", "backup_known", "MAX_AMOUNT", "COLLECTION_OF", "act", "typed_number", "whole_number", "noticed",
           "without", "notify", "in_place", "with_roll", "opened", "closed", "commit", "redrawn", "Result", "FOCUSED",
           "character_document", "shared_before", "batch_actions", "numbered_name", "practice_entry", "practice_of"]

_UPDATES: dict[type, Callable[[Model, Any], Result]] = {**fight.UPDATES, **roller.UPDATES, **characters.UPDATES, **encounters.UPDATES,
                                                         **live.UPDATES, **pairing.UPDATES, **library.UPDATES,
                                                         **clock.UPDATES, **sheets.UPDATES, **follow.UPDATES, **timers.UPDATES,
                                                         **saves.UPDATES}


def update(model: Model, message: Message) -> Result:
    """The model after `message`, and the effects the runtime performs, in order."""
    after, effects = _UPDATES[type(message)](model, message)
    after, sent = live.broadcast(model, after)
    after, effects = clock.numbered(after, effects + sent)
    return timers.timed(after, effects)
