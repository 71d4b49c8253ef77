"""The Elm loop, with nothing of the page: `dispatch(message)` runs `update`, keeps the model it makes
and hands each effect to `perform` with that model. Not re-entrant: a message dispatched while
effects are performed (a drawing that finds its screen gone, storage that says it is full) waits in
the queue and runs after them, so no effect ever sees a model changed under it, and the messages run
in the order they were raised. web/page/runtime.py's `Runtime` is this loop with the browser's performers;
the unit tests drive it with their own (tests/unit/test_keeping.py)."""

from __future__ import annotations

import collections
from collections.abc import Callable

from web.app.effects import Effect
from web.app.messages import Message
from web.app.model import Model
from web.app.update import update as update_model

__all__ = ["Loop", "MAX_ROUND"]

MAX_ROUND = 10_000  # messages one dispatch may run (a loop of messages raising messages is a defect: it stops, said)


class Loop:
    def __init__(self, model: Model, update: Callable[[Model, Message], tuple[Model, tuple[Effect, ...]]] = update_model) -> None:
        self.model = model
        self._update = update
        self._queue: collections.deque[Message] = collections.deque()
        self._performing = False

    def dispatch(self, message: Message) -> Model:
        """Run `update` on a message, keep its model, and perform its effects in order; a message
        dispatched while they are performed runs after them (queued), never inside another's."""
        self._queue.append(message)
        if self._performing:
            return self.model
        self._performing = True
        try:
            for _ in range(MAX_ROUND):
                if not self._queue:
                    break
                self.model, effects = self._update(self.model, self._queue.popleft())
                for effect in effects:
                    self.perform(effect, self.model)
            else:
                raise RuntimeError(f"{MAX_ROUND} messages in one dispatch: a message that raises itself")
        finally:
            self._performing = False
            self._queue.clear()  # (only when an effect failed: the messages it left are not run out of order)
        self.settled(self.model)
        return self.model

    def perform(self, effect: Effect, model: Model) -> None:
        """Carry out one effect with the model that asked for it."""
        raise NotImplementedError

    def settled(self, model: Model) -> None:
        """After a dispatch ran out its queue: the runtime matches its timers to the model here."""
