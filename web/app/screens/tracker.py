"""The turn order and the bar under it (Next turn, Undo, Redo, Attack…, selecting rows), and the
notices at the top: the taps of the page that is always there, as messages."""

from __future__ import annotations

from typing import Any

from pyengine.core_args import Flow, Nothing
from web.app.messages import (
    Act,
    AttackLastTapped,
    CharacterRestored,
    CharacterTaken,
    EncounterRestored,
    Exported,
    HistoryTrimmed,
    NextTurnTapped,
    NoticeDismissed,
    RedoTapped,
    ReloadTapped,
    SavedRollRestored,
    SelectingToggled,
    SelectionToggled,
    ShareOpened,
    SheetClosed,
    SheetOpened,
    StartTapped,
    UndoTapped,
)
from web.app.views import Handler, Page, datum, view_for


def start_args(page: Page) -> dict[str, Any]:
    """The system's start options as chosen on screen (none once the fight runs)."""
    enc = page.model.timeline.present
    return {} if enc.started else view_for(enc.system).start_args(page)


def _share_opened(replace_earlier: bool) -> Handler:
    return lambda page: ShareOpened(replace_earlier, page.new_id(), page.encounters, page.locked)


EVENTS: dict[str, Handler] = {
    "next-turn": lambda page: NextTurnTapped(page.monotonic(), page.rng, start_args(page)),
    "start-combat": lambda page: StartTapped(page.rng, start_args(page)),
    "undo": lambda page: UndoTapped(),
    "toast-undo": lambda page: UndoTapped(from_toast=True),
    "toast-redo": lambda page: RedoTapped(from_toast=True),
    "redo": lambda page: RedoTapped(),
    "attack-last": lambda page: AttackLastTapped(),
    "select-mode": lambda page: SelectingToggled(),
    "toggle-select": lambda page: SelectionToggled(str(page.data("id"))),
    "apply-selected": lambda page: SheetOpened("selected"),
    "open-combatant": lambda page: SheetOpened("combatant", page.data("id")),
    "add": lambda page: SheetOpened("add"),
    "open-menu": lambda page: SheetOpened("menu"),
    "close-sheet": lambda page: SheetClosed(),
    "reroll-all": lambda page: Act("start_combat", Flow({"reroll_all": True}), page.rng),
    "end-combat": lambda page: Act("end_combat", Nothing(), page.rng),
    # the notices' buttons
    "dismiss": lambda page: NoticeDismissed(int(datum(page, "index"))),
    "notice-reload": lambda page: ReloadTapped(),
    "notice-trim-history": lambda page: HistoryTrimmed(),
    "notice-undelete": lambda page: EncounterRestored(-1),
    "notice-export-all": lambda page: Exported("all"),
    "notice-open-share": _share_opened(False),
    "notice-replace-share": _share_opened(True),
    "notice-undelete-roll": lambda page: SavedRollRestored(),
    "notice-undelete-character": lambda page: CharacterRestored(),
    "notice-add-character": lambda page: CharacterTaken(True, page.new_id(), page.rng),
    "notice-keep-character": lambda page: CharacterTaken(False, page.new_id(), page.rng),
    "notice-update-character": lambda page: CharacterTaken(True, page.new_id(), page.rng, update=True),
}
