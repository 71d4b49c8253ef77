"""What the page keeps, run in CPython: the loop (web/app/loop.py: not re-entrant, every effect given the
model its message made) and the storage side (web/app/storage/keeper.py) with a MemoryStore shared by two "tabs":
a save, another tab's write at the same moment, the merge and its save, a pick-up, the journal's race,
a trim, a delete, a full storage, and the small things kept (the device id, the hosted room)."""

from __future__ import annotations

import json
import random

import pytest

from pyengine.core_args import HitPoints, Join
from pyengine.tracker import Timeline, new_encounter, resolve
from web.app.effects import (
    Effect,
    ForgetStored,
    KeepAwake,
    LoadEncounter,
    PickUpStored,
    Render,
    RenderNotices,
    SaveFight,
    SettleJournal,
    ShowSheet,
    StorageEffect,
    TrimStored,
)
from web.app.loop import Loop
from web.app.messages import (
    Act,
    CollectionChanged,
    FightChangedElsewhere,
    JournalRefused,
    Message,
    Noticed,
    RollSaved,
    SheetClosed,
    StoredElsewhere,
    VisibilityChanged,
)
from web.app.model import Model
from web.app.storage.keeper import DEVICE_KEY, FULL, LIVE_KEY, LIVE_TABLE_KEY, Keeper, describe_entry, slug, valid_device
from web.app.storage.records import INDEX, SAVED_ROLLS, MemoryStore, StorageFull
from web.app.storage.workspace import Persistence

RNG = random.Random(0)


class Tab(Loop):
    """One browser tab in CPython: the loop with the runtime's storage performer (Keeper.perform, which
    web/page/runtime.perform hands the same effects); every other effect is recorded."""

    def __init__(self, store: MemoryStore, status: str = "ok") -> None:
        self.keeper = Keeper(store, status)
        super().__init__(self.keeper.first_model())
        self.keeper.dispatch = self.dispatch
        self.keeper.snapshot = lambda timeline: f"<snapshot of {timeline.present.id}>"
        self.seen: list[tuple[Effect, Model]] = []

    def perform(self, effect: Effect, model: Model) -> None:
        self.seen.append((effect, model))
        if isinstance(effect, StorageEffect):
            self.keeper.perform(effect, model)

    def add(self, name: str) -> None:
        self.dispatch(Act("add_combatant", Join({"name": name, "max_hp": 10, "initiative": 10}), RNG))

    def names(self) -> list[str]:
        return [c.name for c in self.model.timeline.present.combatants]


def stored_names(store: MemoryStore, eid: str) -> list[str]:
    """The combatants of the fight as stored (read back as a new tab would)."""
    timeline, _ = Persistence(store).load_timeline(eid, [])
    assert timeline is not None
    return [c.name for c in timeline.present.combatants]


# -- the loop ----------------------------------------------------------------------------------------

class Recorder(Loop):
    """A loop whose performer dispatches while it performs (as a drawing that finds its screen gone does)."""

    def __init__(self) -> None:
        super().__init__(Model(Timeline.start(new_encounter("e1"))))
        self.log: list[tuple[str, object]] = []
        self.settles = 0

    def perform(self, effect: Effect, model: Model) -> None:
        self.log.append((type(effect).__name__, model.ui.sheet))
        if isinstance(effect, ShowSheet) and model.ui.sheet is not None:
            returned = self.dispatch(SheetClosed())  # raised inside: queued, not run inside this effect
            assert returned is self.model and self.model.ui.sheet is not None
            self.log.append(("raised", self.model.ui.sheet))

    def settled(self, model: Model) -> None:
        self.settles += 1


def test_a_message_raised_while_effects_are_performed_runs_after_them_and_each_effect_sees_its_own_model():
    from web.app.messages import SheetOpened

    loop = Recorder()
    loop.dispatch(SheetOpened("menu"))
    opened = [entry for entry in loop.log if entry[1] == ("menu", None)]
    assert opened and loop.model.ui.sheet is None  # the queued SheetClosed ran after the opening's effects
    names = [name for name, _ in loop.log]
    assert "raised" in names and names.index("raised") < len(names) - 1
    after_raise = loop.log[names.index("raised") + 1:]
    assert after_raise and all(sheet is None for _, sheet in after_raise)  # the closing's effects: its own model
    assert loop.settles == 1  # the timers are matched once, when the queue ran out


def test_an_effect_that_fails_leaves_no_queued_message_to_run_out_of_order():
    class Failing(Recorder):
        failed = False

        def perform(self, effect: Effect, model: Model) -> None:
            self.dispatch(SheetClosed())
            if not self.failed:
                self.failed = True
                raise ValueError("a performer failed")

    from web.app.messages import SheetOpened

    loop = Failing()
    with pytest.raises(ValueError):
        loop.dispatch(SheetOpened("menu"))
    assert loop.model.ui.sheet == ("menu", None)
    loop.dispatch(SheetOpened("menu"))  # the next dispatch is a fresh one (not stuck "performing"): its raised message runs
    assert loop.model.ui.sheet is None


def test_a_message_that_raises_itself_forever_is_stopped():
    from web.app import loop as loop_module

    class Echo(Loop):
        def perform(self, effect: Effect, model: Model) -> None:
            self.dispatch(Noticed(()))  # Noticed(()) has no effect: the echo is the message itself

    echo = Echo(Model(Timeline.start(new_encounter("e1"))), update=lambda m, msg: (m, (Render(),)))
    with pytest.raises(RuntimeError, match=str(loop_module.MAX_ROUND)):
        echo.dispatch(Noticed(()))


# -- two tabs on one storage --------------------------------------------------------------------------

def hp(tab: Tab, name: str) -> int:
    return next(c.hp for c in tab.model.timeline.present.combatants if c.name == name)


def test_a_change_saved_in_two_tabs_at_once_is_merged_saved_and_said_and_the_other_tab_picks_it_up():
    store = MemoryStore()
    a = Tab(store)
    a.add("Ann")
    eid = a.model.timeline.present.id
    assert stored_names(store, eid) == ["Ann"]
    b = Tab(store)  # a second tab opened now: the same fight
    assert b.names() == ["Ann"]
    a.add("Bob")    # tab A stores revision 2 ...
    ann = b.model.timeline.present.combatants[0].id
    b.dispatch(Act("damage", HitPoints(ann, 3), RNG))  # ... and tab B, which had not taken it in, its own on revision 1
    # B's save found A's write: its change is done again on A's version, saved as the next revision, said.
    assert b.names() == ["Ann", "Bob"] and hp(b, "Ann") == 7 and stored_names(store, eid) == ["Ann", "Bob"]
    assert Persistence(store).load_timeline(eid, [])[0].present.combatants[0].hp == 7
    merged = [e for e, _ in b.seen if isinstance(e, SaveFight) and e.made_from is not None]
    assert len(merged) == 1 and merged[0].made_from == a.keeper.persistence.vids[eid]  # made from A's version
    assert any("both are kept" in n.text for n in b.model.notices)
    # Tab A hears the storage event (web/page/listeners.on_storage): it shows B's merged fight, and its
    # next change builds on it.
    a.dispatch(StoredElsewhere(f"enc:{eid}"))
    assert a.names() == ["Ann", "Bob"] and hp(a, "Ann") == 7
    a.add("Dax")
    assert stored_names(store, eid) == ["Ann", "Bob", "Dax"] and store.data["snapshot"] == f"<snapshot of {eid}>"


def test_two_tabs_adding_at_once_keep_the_first_and_say_the_other_was_refused():
    """(A limit seen here, left as it is: the second add is done again with the id the first took, and
    the rules refuse it; it is said, never silent.)"""
    store = MemoryStore()
    a = Tab(store)
    a.add("Ann")
    b = Tab(store)
    a.add("Bob")
    b.add("Cyd")
    assert b.names() == ["Ann", "Bob"] and any("could not follow it" in n.text for n in b.model.notices)


def test_the_journal_s_race_merges_our_change_on_the_version_it_kept():
    store = MemoryStore()
    a = Tab(store)
    a.add("Ann")
    eid = a.model.timeline.present.id
    theirs_raw = store.data[f"enc:{eid}"]
    theirs = json.loads(theirs_raw)
    b = Tab(store)
    b.add("Bob")  # stored over revision 1 here; the journal says another tab's revision 2 came first
    other = Tab(MemoryStore({k: v for k, v in store.data.items()}))
    other.keeper.persistence.revs[eid] = theirs.get("rev", 1)
    vid = b.keeper.persistence.vids[eid]  # B's refused version
    b.dispatch(JournalRefused(f"enc:{eid}", vid, theirs_raw))  # (the journal's onConflict, as web/page/runtime says it)
    assert b.names() == ["Ann", "Bob"] and stored_names(store, eid) == ["Ann", "Bob"]
    # The merge's own message first, then the key answered on the fight as merged.
    kinds = [type(e).__name__ for e, _ in b.seen[-4:]]
    assert kinds.index("SaveFight") < kinds.index("SettleJournal"), kinds
    assert [m for e, m in b.seen if isinstance(e, SettleJournal)][-1].timeline.present.combatants == b.model.timeline.present.combatants


def test_another_tab_s_collection_is_shown_and_a_damaged_copy_is_said_and_ours_stored_again():
    store = MemoryStore()
    a, b = Tab(store), Tab(store)
    a.dispatch(RollSaved("8d6", "Fireball"))
    b.dispatch(StoredElsewhere(SAVED_ROLLS))
    assert [r["name"] for r in b.model.saved_rolls] == ["Fireball"]
    store.data[SAVED_ROLLS] = "{not json"
    b.dispatch(StoredElsewhere(SAVED_ROLLS))
    assert [r["name"] for r in b.model.saved_rolls] == ["Fireball"]
    assert any("could not be read" in n.text for n in b.model.notices)
    assert json.loads(store.data[SAVED_ROLLS])[0]["name"] == "Fireball"  # ours, stored again
    # The list of encounters: the open screen that shows it is asked to draw again.
    before = len(b.seen)
    b.dispatch(StoredElsewhere(INDEX))
    assert all(not isinstance(e, CollectionChanged) for e, _ in b.seen[before:])


def test_a_storage_event_is_read_for_the_fight_on_screen_the_collections_and_the_list_only():
    """Another tab's write of another fight, of a mark (the theme, the device id) or of a key this page
    does not know reads nothing (that fight is read when it is opened); the visible page asks for its
    wake lock again as the model wants it (a following phone too, not only a fight started here)."""
    store = MemoryStore()
    a = Tab(store)
    a.add("Ann")
    eid = a.model.timeline.present.id
    b = Tab(store)  # a second tab opened now: the same fight
    a.add("Bob")
    for name in ("enc:elsewhere", "theme", "live-device", "nonsense"):
        b.dispatch(StoredElsewhere(name))
        assert b.seen == [] and b.names() == ["Ann"], name
    b.dispatch(StoredElsewhere(f"enc:{eid}"))
    assert b.names() == ["Ann", "Bob"] and isinstance(b.seen[0][0], PickUpStored)
    before = len(b.seen)
    b.dispatch(VisibilityChanged())
    assert [e for e, _ in b.seen[before:]] == [KeepAwake()]
    before = len(b.seen)
    b.dispatch(JournalRefused(f"enc:{eid}", "v-gone", None))  # nothing the journal could read: answered, nothing merged
    assert [e for e, _ in b.seen[before:]] == [SettleJournal(f"enc:{eid}")]


def test_a_full_storage_is_said_once_with_its_way_out_and_nothing_on_screen_is_lost():
    store = MemoryStore()
    tab = Tab(store)
    tab.add("Ann")
    store.quota = sum(len(k) + len(v) for k, v in store.data.items())  # nothing more fits
    tab.add("Bob")
    assert tab.names() == ["Ann", "Bob"]
    assert FULL in tab.model.notices and tab.keeper.storage_state(tab.model) == "full"
    tab.add("Cyd")
    assert [n for n in tab.model.notices if n == FULL] == [FULL]  # said once (the same text moves, never doubles)
    store.quota = None
    tab.add("Dax")
    assert stored_names(store, tab.model.timeline.present.id) == ["Ann", "Bob", "Cyd", "Dax"]


# -- encounters -------------------------------------------------------------------------------------

def test_switching_stores_the_one_left_lists_the_new_one_and_a_delete_shows_the_first_left():
    store = MemoryStore()
    tab = Tab(store)
    tab.add("Ann")
    first = tab.model.timeline.present.id
    other = Timeline.start(new_encounter("e-other", "Other"))
    other = other.do(resolve(other.present, "add_combatant", {"combatant": {"name": "Orc", "max_hp": 15}}, RNG))
    tab.dispatch(FightChangedElsewhere(tab.model.timeline))  # (a message to run effects from; nothing changes)
    tab.keeper.switch_to(tab.model, other, {"from": "file"})
    assert tab.model.timeline.present.id == "e-other" and tab.names() == ["Orc"]
    listed = {e["id"]: e for e in tab.keeper.ws.encounters}
    assert listed["e-other"]["from"] == "file" and listed["e-other"]["name"] == "Other"
    assert stored_names(store, "e-other") == ["Orc"]  # shown means stored (FightShown asks for the save)
    tab.perform(LoadEncounter(first), tab.model)
    assert tab.names() == ["Ann"]
    tab.perform(ForgetStored(first, Timeline.start(new_encounter("fresh"))), tab.model)
    assert tab.model.timeline.present.id == "e-other" and f"enc:{first}" not in store.data


def test_a_fight_that_cannot_be_read_is_said_and_the_one_on_screen_stays():
    store = MemoryStore()
    tab = Tab(store)
    tab.add("Ann")
    tab.keeper.ws.encounters.append({"id": "broken", "name": "Broken"})
    store.data["enc:broken"] = "{damaged"
    tab.perform(LoadEncounter("broken"), tab.model)
    assert tab.names() == ["Ann"] and any("Broken" in n.text or "could not" in n.text for n in tab.model.notices)
    assert any(isinstance(e, RenderNotices) for e, _ in tab.seen)


def test_trim_keeps_the_last_steps_of_every_stored_fight_but_the_one_on_screen():
    store = MemoryStore()
    tab = Tab(store)
    for name in ("A", "B", "C", "D"):
        tab.add(name)
    old = tab.model.timeline
    tab.keeper.switch_to(tab.model, Timeline.start(new_encounter("e2")))
    tab.add("Z")
    tab.perform(TrimStored(1), tab.model)
    trimmed, _ = tab.keeper.persistence.load_timeline(old.present.id, [])
    assert trimmed is not None and len(trimmed.actions) == 1 and [c.name for c in trimmed.present.combatants] == ["A", "B", "C", "D"]
    assert len(tab.model.timeline.actions) == 1  # the one on screen keeps its own (it had one step)


# -- small things kept ----------------------------------------------------------------------------

def test_the_device_id_is_kept_and_anything_else_stored_under_its_key_is_replaced():
    store = MemoryStore()
    keeper = Keeper(store, "ok")
    made = keeper.device()
    assert valid_device(made) and keeper.device() == made and store.data[DEVICE_KEY] == made
    for hostile in ("<img src=x onerror=alert(1)>", "short", "x" * 41, "ünïcödé-id-123"):
        store.data[DEVICE_KEY] = hostile
        again = keeper.device()
        assert again != hostile and valid_device(again)


def test_the_hosted_room_is_kept_read_back_checked_and_forgotten_with_its_table():
    store = MemoryStore()
    keeper = Keeper(store, "ok")
    assert keeper.stored_live() is None
    keeper.keep_live(("roomroomroom", "secretsecretsecretse", '{"kty":"EC"}'))
    keeper.keep(LIVE_TABLE_KEY, "{}")
    assert keeper.stored_live() == ("roomroomroom", "secretsecretsecretse", '{"kty":"EC"}')
    store.data[LIVE_KEY] = json.dumps({"room": "<bad>", "secret": "x", "key": "k"})
    assert keeper.stored_live() is None  # a damaged room is no room (the page starts, not live)
    store.data[LIVE_KEY] = "x" * 5000
    assert keeper.stored_live() is None
    keeper.keep_live(None)
    assert LIVE_KEY not in store.data and LIVE_TABLE_KEY not in store.data


def test_a_blocked_storage_keeps_nothing_and_says_so():
    class Refusing(MemoryStore):
        def set(self, key: str, value: str) -> None:
            raise StorageFull(key)

    keeper = Keeper(MemoryStore(), "blocked")
    assert not keeper.persistent and any("not letting Roundkeeper save" in n.text for n in keeper.notices)
    assert not keeper.first_time("hint") and keeper.storage_state(keeper.first_model()) == "blocked"
    full = Keeper(Refusing(), "ok")
    assert not full.keep("theme", "dark") and not full.first_time("hint")


def test_describe_entry_and_slug():
    t = Timeline.start(new_encounter("e9", "The Bridge"))
    entry = describe_entry({"id": "e9"}, t, now=125.0)
    assert entry == {"id": "e9", "name": "The Bridge", "system": "generic", "round": 0, "at": 120_000}
    assert slug("<img src=x>") == "img-src-x" and slug("") == "encounter" and len(slug("a" * 99)) == 40


def test_messages_from_the_keeper_reach_the_model_only_through_update():
    """The keeper holds no model: what it learns is a message (the loop's model changes in dispatch alone)."""
    store = MemoryStore()
    tab = Tab(store)
    said: list[Message] = []
    tab.keeper.dispatch = said.append
    tab.keeper.say()
    assert said == []
    tab.keeper.load("nothing-stored")
    tab.keeper.store_collection(tab.model, SAVED_ROLLS)
    assert [type(m).__name__ for m in said] == ["CollectionStored"]
