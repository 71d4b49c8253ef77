"""Encounters: new, copied, deleted and brought back, switched, trimmed, imported; a fight shared
by link; what another tab stored; the players' view from a link."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, TypeVar, assert_never

from pyengine.documents import Listed
from pyengine.errors import EngineError
from pyengine.handoff import read_view
from pyengine.rules import system_of
from pyengine.text import quoted
from pyengine.tracker import Timeline, new_encounter
from web.app import ui as state
from web.app.characters import fresh_id
from web.app.effects import (
    AddEncounters,
    AskFirstTime,
    AskToKeepStorage,
    ClearLink,
    CloseSheet,
    Effect,
    ForgetStored,
    HideToast,
    KeepAwake,
    LoadEncounter,
    MergeRefused,
    PickUpStored,
    Refuse,
    Render,
    RenderNotices,
    RenderRoller,
    RenderRolls,
    RenderSheet,
    SaveFight,
    SettleJournal,
    ShowSheet,
    StoreCollection,
    SwitchTo,
    Toast,
    TrimStored,
)
from web.app.exchange import read_share, rebase
from web.app.html import round_label
from web.app.messages import (
    AddressChanged,
    BackupKnown,
    CollectionChanged,
    CollectionStored,
    EncounterCopied,
    EncounterCreated,
    EncounterDeleted,
    EncounterPicked,
    EncounterRestored,
    EncountersImported,
    FightChangedElsewhere,
    FightShown,
    FileImported,
    FileRead,
    FirstTime,
    HistoryTrimmed,
    JournalAnswered,
    JournalFailed,
    JournalRefused,
    LogToggled,
    Noticed,
    PageDrawn,
    PageReady,
    ShareOffered,
    ShareOpened,
    StorageAsked,
    StorageKept,
    StoredElsewhere,
    ViewOpened,
    VisibilityChanged,
)
from web.app.model import Model
from web.app.storage.records import CHARACTERS, COLLECTIONS, HINT_FIRST, HINT_HOME, INDEX, ROLLS, ROSTER, SAVED_ROLLS, TEMPLATES, Notice
from web.app.update.common import BACKUP_OFFER, COLLECTION_OF, FIGHT_CHANGED, FIRST_RUN_HINT, Result, closed, notify, without

# -- a fight shared by link ---------------------------------------------------------------------------


def shared_before(encounters: tuple[Listed, ...], locked: frozenset[str], source: str) -> Listed | None:
    """The encounter opened before from the same shared fight (not one a newer version locked)."""
    return next((e for e in encounters if e.get("source") == source and e.get("id") not in locked), None)


def _share_offered(model: Model, m: ShareOffered) -> Result:
    """A shared fight is offered, never opened unasked: Open it, or (opened before) Replace it or
    Open a copy. A link that cannot be read is said, taken off the address bar, and nothing else changes."""
    try:
        timeline = read_share(m.payload)
    except EngineError as error:
        said = Notice("error", f"The shared link could not be opened: {error} It was removed from the address bar; "
                               "your own fights are untouched.")
        return notify(model, said), (ClearLink(), RenderNotices())
    model = replace(model, ui=state.share_offered(model.ui, timeline=timeline))
    enc = timeline.present
    what = f"A shared fight {quoted(enc.name)} ({system_of(enc).label}, {round_label(enc.started, enc.round, system_of(enc).elapsed_seconds(enc)).lower()}) is in this link."
    before = shared_before(m.encounters, m.locked, enc.id)
    if before is None:
        offer = Notice("info", what, "open-share", "Open it")
    else:
        offer = Notice("info", f"{what} You opened it before as {quoted(str(before.get('name', '')))}.", "replace-share", "Replace it",
                       (("open-share", "Open a copy"),))
    return notify(model, offer), (RenderNotices(),)


def _share_opened(model: Model, m: ShareOpened) -> Result:
    """The pending shared fight, under a fresh id; or, when the user chose so, over the copy opened
    from the same shared fight before."""
    timeline = model.ui.pending_share
    if timeline is None:
        return model, ()
    notices = without(model.notices, "open-share", "replace-share")
    model = replace(model, ui=state.share_taken(model.ui), notices=notices)
    source = timeline.present.id
    before = shared_before(m.encounters, m.locked, source) if m.replace_earlier else None
    if before is not None:
        switch = SwitchTo(rebase(timeline, str(before["id"])), replacing=str(before["id"]))
    else:
        switch = SwitchTo(rebase(timeline, m.new_id), (("from", "link"), ("source", source)))
    return model, (switch, ClearLink())


# -- encounters -------------------------------------------------------------------------------------


def _encounter_created(model: Model, m: EncounterCreated) -> Result:
    """A new, empty encounter ("Encounter 3"), of the chosen system or the open fight's; an
    unknown system is refused and nothing changes."""
    try:
        fresh = new_encounter(m.new_id, f"Encounter {m.listed + 1}", m.system or model.timeline.present.system)
    except EngineError as error:
        return model, (Refuse(str(error)),)
    return model, (SwitchTo(Timeline.start(fresh)), CloseSheet())


def _encounter_copied(model: Model, m: EncounterCopied) -> Result:
    """A copy of the open fight with its undo history ("Bridge (copy)"), opened."""
    copy = rebase(model.timeline, m.new_id, f"{model.timeline.present.name} (copy)")
    return model, (SwitchTo(copy), CloseSheet())


def _encounter_deleted(model: Model, m: EncounterDeleted) -> Result:
    """The open encounter goes to the trash with its whole history; the list moves on to the next
    one; a notice offers Undo."""
    enc = model.timeline.present
    fresh = new_encounter(m.new_id, f"Encounter {m.left + 1}", enc.system)  # shown if none of the others can be
    trash = replace(model.trash, encounters=(*model.trash.encounters, {"id": enc.id, "name": enc.name, "timeline": model.timeline}))
    model = notify(replace(model, trash=trash), Notice("info", f"Deleted {quoted(enc.name)}.", "undelete", "Undo"))
    return model, (ForgetStored(enc.id, Timeline.start(fresh)), RenderNotices(), CloseSheet())


def _encounter_restored(model: Model, m: EncounterRestored) -> Result:
    """An encounter back from the trash, stored again under its id and opened."""
    items = model.trash.encounters
    index = len(items) - 1 if m.index == -1 else m.index
    if not 0 <= index < len(items):
        return model, ()
    item = items[index]
    notices = without(model.notices, "undelete")
    model = replace(model, notices=notices, trash=replace(model.trash, encounters=items[:index] + items[index + 1:]))
    return model, (SwitchTo(item["timeline"], replacing=str(item["id"])), RenderNotices(), CloseSheet())


# -- what comes from elsewhere -----------------------------------------------------------------------


def _fight_changed_elsewhere(model: Model, m: FightChangedElsewhere) -> Result:
    if m.said:
        said = Notice("warn" if "not" in m.said else "info", m.said)
    else:
        said = (Notice("warn", "This fight was changed in another tab. Showing that version; your last change here was not saved.")
                if m.conflict else Notice("info", "Updated with a change made in another tab."))
    saved: tuple[Effect, ...] = (SaveFight(m.made_from),) if m.made_from is not None else ()
    return notify(replace(model, timeline=m.timeline), said), (Render(elsewhere=True), *saved)


def _stored_elsewhere(model: Model, m: StoredElsewhere) -> Result:
    """Another tab stored a key: read again when it is the fight on screen, a collection or the list
    of encounters (another fight's write is read when that fight is opened)."""
    if m.name == f"enc:{model.timeline.present.id}" or m.name in COLLECTIONS or m.name == INDEX:
        return model, (PickUpStored(m.name),)
    return model, ()


def _journal_refused(model: Model, m: JournalRefused) -> Result:
    """Another tab's version stands and ours is done again on it; then the key counts as answered
    (the keeper says JournalAnswered after the merge's message; with nothing to merge, at once)."""
    return model, (MergeRefused(m.name, m.vid, m.raw) if m.raw is not None else SettleJournal(m.name),)


def _visibility_changed(model: Model, m: VisibilityChanged) -> Result:
    return model, (KeepAwake(),)


SAFARI_HINT = Notice("info", "Safari clears a site's saved data after 7 days without a visit. To keep your fights, add "
                             "Roundkeeper to your Home Screen (Share → Add to Home Screen); Export all in the menu saves "
                             "a copy to a file.", "export-all", "Export all")


def _page_drawn(model: Model, m: PageDrawn) -> Result:
    return model, ((Render(),) if m.display else (Render(), RenderRoller()))


def _page_ready(model: Model, m: PageReady) -> Result:
    """Once a page: the wake lock, the one-time hints (the first only on an empty fight), the notices,
    and the browser asked to keep our storage (AskToKeepStorage: if a fight is under way)."""
    hints = ((AskFirstTime(HINT_FIRST),) if not model.timeline.present.combatants else ()) + ((AskFirstTime(HINT_HOME),) if m.safari_tab else ())
    return model, (KeepAwake(), *hints, RenderNotices(), AskToKeepStorage())


HINTS = {HINT_FIRST: FIRST_RUN_HINT, HINT_HOME: SAFARI_HINT}  # a one-time hint's mark, and what it says


def _first_time(model: Model, m: FirstTime) -> Result:
    hint = HINTS.get(m.key)
    return (notify(model, hint), (RenderNotices(),)) if hint is not None else (model, ())


def _file_read(model: Model, m: FileRead) -> Result:
    return model, (Toast(f"Reading the file: {m.read} encounter{'s' * (m.read != 1)}…"),)


def _collection_changed(model: Model, m: CollectionChanged) -> Result:
    """Another tab stored a collection: its version is shown (ours was stored at every change)."""
    if m.key not in COLLECTION_OF:  # the list of encounters (kept by the runtime): a screen that shows it is drawn again
        return model, ((RenderSheet(collection=m.key),) if m.key == INDEX and model.ui.sheet is not None else ())
    changes: dict[str, Any] = {COLLECTION_OF[m.key]: tuple(m.items)}
    model = replace(model, **changes)
    drawn: tuple[Effect, ...] = (RenderRolls(),) if m.key in (ROLLS, SAVED_ROLLS) else ()
    return model, drawn + ((RenderSheet(collection=m.key),) if model.ui.sheet is not None else ())


def _collection_stored(model: Model, m: CollectionStored) -> Result:
    changes: dict[str, Any] = {COLLECTION_OF[m.key]: tuple(m.items)}
    return replace(model, **changes), ()


def _fight_shown(model: Model, m: FightShown) -> Result:
    """A selection belongs to the fight it was made in."""
    model = replace(model, timeline=m.timeline, ui=replace(model.ui, selected=None))
    return model, (SaveFight(), Render(), KeepAwake())


def _noticed(model: Model, m: Noticed) -> Result:
    for notice in m.notices:
        model = notify(model, notice)
    return model, (RenderNotices(),) if m.notices else ()


def _storage_asked(model: Model, m: StorageAsked) -> Result:
    return replace(model, asked_to_keep=True), ()


def _journal_failed(model: Model, m: JournalFailed) -> Result:
    """The durable copy was refused: said once a page, like a full storage."""
    if model.journal_said:
        return model, ()
    full = "quota" in m.name.lower()
    said = Notice("error", ("This phone's storage is full: " if full else f"This browser refused the safe copy ({m.name[:60]}): ")
                  + "changes are still saved, but a browser closed by the phone may lose the last ones. "
                    "Export all keeps a copy; Trim history frees room.", "export-all", "Export all", (("trim-history", "Trim history"),))
    return notify(replace(model, journal_said=True), said), (RenderNotices(),)


def _storage_kept(model: Model, m: StorageKept) -> Result:
    model = replace(model, storage_kept=m.kept)
    return model, ((RenderSheet(),) if model.ui.sheet is not None and model.ui.sheet[0] == "menu" else ())


def _backup_known(model: Model, m: BackupKnown) -> Result:
    model = replace(model, backup_at=m.at, backup_due=m.due,
                    notices=model.notices if m.due else tuple(n for n in model.notices if n != BACKUP_OFFER))
    menu = model.ui.sheet is not None and model.ui.sheet[0] == "menu"
    return model, ((RenderSheet(),) if menu else ()) + (RenderNotices(),)


def _view_opened(model: Model, m: ViewOpened) -> Result:
    """A fight's read-only view from a #view= link: shown at once, nothing saved."""
    try:
        view = read_view(m.payload)
    except EngineError as error:
        return notify(model, Notice("error", f"The fight's view could not be opened: {error}")), (ClearLink(), RenderNotices())
    return replace(model, ui=state.view_opened(model.ui, view=view)), (ClearLink(), ShowSheet())


# -- encounters: switching, trimming, importing ---------------------------------------------------


def _encounter_picked(model: Model, m: EncounterPicked) -> Result:
    if m.ident == model.timeline.present.id:
        return closed(model)
    model = replace(model, ui=state.selection_done(model.ui))  # a selection belongs to the fight it was made in
    return closed(model)[0], (LoadEncounter(m.ident), CloseSheet())


def _history_trimmed(model: Model, m: HistoryTrimmed) -> Result:
    """Make room: every stored fight keeps its last `keep` undo steps, the dice history its last
    `keep` rolls. The fights themselves are untouched."""
    notices = tuple(n for n in model.notices if "trim-history" not in dict(n.buttons()))
    model = replace(model, rolls=model.rolls[:m.keep], notices=notices, timeline=model.timeline.trimmed(m.keep))
    return model, (TrimStored(m.keep), StoreCollection(ROLLS), RenderRolls(), *FIGHT_CHANGED)


T = TypeVar("T")


def _added(old: tuple[T, ...], new: Sequence[T]) -> tuple[T, ...]:
    """`old` and, after it, those of `new` not already there (the same document is kept once)."""
    known = {json.dumps(x, sort_keys=True) for x in old}
    return old + tuple(x for x in new if json.dumps(x, sort_keys=True) not in known)


def _file_imported(model: Model, m: FileImported) -> Result:
    """An export file: its encounters listed (under fresh ids, the last one opened), its party,
    opponents and characters added (a character already here is kept once; one whose id is taken
    gets a new id). A file that cannot be read is refused by the runtime, which reads it in steps."""
    fresh = tuple(rebase(t, f"{m.new_id}-{m.listed + i}") for i, t in enumerate(m.file.timelines))
    characters = model.characters
    for item in _added(characters, m.file.characters)[len(characters):]:
        if any(c.get("id") == item["id"] for c in characters):
            item = {**item, "id": fresh_id(characters, m.new_id)}
        characters += (item,)
    model = replace(model, roster=_added(model.roster, m.file.roster), templates=_added(model.templates, m.file.templates), characters=characters,
                    ui=state.sheet_closed(model.ui))
    stored = tuple(StoreCollection(k) for k in (ROSTER, TEMPLATES, CHARACTERS) if getattr(model, COLLECTION_OF[k]))
    return model, (AddEncounters(fresh, total=len(fresh)), *stored, CloseSheet(), Render())


def _encounters_imported(model: Model, m: EncountersImported) -> Result:
    """An import goes on with the next fight (its progress on a toast), or says what it stored, exactly
    (the runtime counts it as storage answers), and shows the last one stored."""
    if m.left:
        shown: tuple[Effect, ...] = (Toast(f"Importing: {m.stored} of {m.total} stored…"),) if m.stored else ()
        return model, (*shown, AddEncounters(m.left, m.stored, m.total, m.last))

    def count(n: int) -> str:
        return f"{n} encounter{'s' * (n != 1)}"
    if m.stored == m.total:
        said = Notice("info", f"Imported {count(m.total)}.")
    else:
        said = Notice("error", f"Imported {m.stored} of {count(m.total)}: storage is full, the other {m.total - m.stored} were "
                               "not stored. Trim history or delete an encounter, then import the file again.",
                      "trim-history", "Trim history", (("export-all", "Export all"),))
    last: tuple[Effect, ...] = (SwitchTo(m.last),) if m.last is not None else ()
    return notify(model, said), (*last, HideToast(), RenderNotices(), Render())


Handled = ShareOffered | ShareOpened | EncounterCreated | EncounterCopied | EncounterDeleted | EncounterRestored | FightChangedElsewhere | StoredElsewhere | JournalRefused | JournalAnswered | VisibilityChanged | LogToggled | AddressChanged | FileRead | PageDrawn | PageReady | FirstTime | CollectionChanged | CollectionStored | FightShown | Noticed | StorageKept | BackupKnown | StorageAsked | JournalFailed | ViewOpened | EncounterPicked | HistoryTrimmed | FileImported | EncountersImported


def handle(model: Model, message: Handled) -> Result:  # noqa: C901 - one case a message
    """The model after one of this module's messages, and its effects: a `match` that mypy checks
    is whole (`assert_never`): a message in `Handled` with no case is a type error."""
    match message:
        case ShareOffered():
            return _share_offered(model, message)
        case ShareOpened():
            return _share_opened(model, message)
        case EncounterCreated():
            return _encounter_created(model, message)
        case EncounterCopied():
            return _encounter_copied(model, message)
        case EncounterDeleted():
            return _encounter_deleted(model, message)
        case EncounterRestored():
            return _encounter_restored(model, message)
        case FightChangedElsewhere():
            return _fight_changed_elsewhere(model, message)
        case StoredElsewhere():
            return _stored_elsewhere(model, message)
        case JournalRefused():
            return _journal_refused(model, message)
        case JournalAnswered():
            return model, (SettleJournal(message.name),)
        case VisibilityChanged():
            return _visibility_changed(model, message)
        case LogToggled():
            return model, (Render(),)
        case AddressChanged():
            return model, (RenderNotices(),)
        case FileRead():
            return _file_read(model, message)
        case PageDrawn():
            return _page_drawn(model, message)
        case PageReady():
            return _page_ready(model, message)
        case FirstTime():
            return _first_time(model, message)
        case CollectionChanged():
            return _collection_changed(model, message)
        case CollectionStored():
            return _collection_stored(model, message)
        case FightShown():
            return _fight_shown(model, message)
        case Noticed():
            return _noticed(model, message)
        case StorageKept():
            return _storage_kept(model, message)
        case BackupKnown():
            return _backup_known(model, message)
        case StorageAsked():
            return _storage_asked(model, message)
        case JournalFailed():
            return _journal_failed(model, message)
        case ViewOpened():
            return _view_opened(model, message)
        case EncounterPicked():
            return _encounter_picked(model, message)
        case HistoryTrimmed():
            return _history_trimmed(model, message)
        case FileImported():
            return _file_imported(model, message)
        case EncountersImported():
            return _encounters_imported(model, message)
        case _:
            assert_never(message)
