"""A fourth game system, defined only here: "Duel", d6 initiative, a Guard stat, and a Feint action
that rolls a d6 and, on 4+, leaves the target Off guard until the end of the feinter's next turn.
Registering it and its view is all it takes to play a fight through the tracker, save it, load it
and draw it: nothing outside tests/ names it."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pyengine.dice import Rng
from pyengine.errors import RuleError
from pyengine.model import Combatant, Condition, Duration, Encounter, Event, StatField
from pyengine.record import Record
from pyengine.rules import ActionRule, System, get_system, register, unregister
from pyengine.storage import dumps, loads, timeline_from_dict, timeline_to_dict
from pyengine.tracker import Timeline, new_encounter, resolve
from tests.unit.pages import FakePage
from tests.unit.scripted import Scripted
from tests.unit.test_render import parsed
from web.app import render
from web.app.html import esc
from web.app.messages import Act
from web.app.model import Model
from web.app.screens import handler
from web.app.update import update
from web.app.views import View, datum, register_view, view_for


def _resolve_feint(enc: Encounter, args: dict, rng: Rng) -> dict:
    feinter, target = enc.get(args["id"]), enc.get(args["target"])
    if feinter.id != enc.active_id:
        raise RuleError(f"It is not {feinter.name}'s turn.")  # refused before the die is rolled
    return {"id": feinter.id, "target": target.id, "face": rng.randint(1, 6)}


class Feint(Record):
    """A request to feint at `target` (the system's own request record, beside its rules)."""

    id: str
    target: str


def _apply_feint(enc: Encounter, args: dict) -> tuple[Encounter, tuple[Event, ...]]:
    feinter, target = enc.get(args["id"]), enc.get(args["target"])
    face = int(args["face"])
    if face < 4 + int(target.stat_or("guard", 0)) // 2:
        return enc, (Event("feint", enc.round, f"{target.name} sees through {feinter.name}'s feint", f"1d6 ({face})", target.id),)
    seq = enc.seq + 1
    off = Condition(f"k{seq}", "Off guard", Duration("end", feinter.id, 2), source_id=feinter.id)
    enc = enc.with_combatant(replace(target, conditions=target.conditions + (off,)))
    return (replace(enc, seq=seq),
            (Event("feint", enc.round, f"{feinter.name} feints: {target.name} is off guard", f"1d6 ({face})", target.id),))


class DuelSystem(System):
    name = "duel"
    label = "Duel"
    round_seconds = 3
    stat_fields = (StatField("guard", "Guard", default=0, high=6), StatField("left_handed", "Left-handed", "flag", False))
    actions = {"duel_feint": ActionRule(_apply_feint, _resolve_feint, Feint)}

    def initiative_expression(self, combatant: Combatant) -> str:
        return "1d6" if not combatant.init_mod else f"1d6+{combatant.init_mod}"


class DuelView(View):
    end_label = "Sheathe swords"

    def row_chips(self, enc: Encounter, c: Combatant) -> str:
        return f'<span class="chip" data-testid="guard">Guard {esc(c.stat_or("guard", 0))}</span>'

    def sheet_html(self, enc: Encounter, c: Combatant, attack: dict, events: list[Event]) -> str:
        return (f'<button type="button" data-action="duel-feint" data-id="{esc(enc.active_id or "")}" data-target="{esc(c.id)}" '
                'data-testid="feint">Feint</button>')

    @staticmethod
    def _feint(page):
        return Act("duel_feint", Feint(datum(page, "id"), datum(page, "target")), page.rng)

    events = {"duel-feint": _feint}


@pytest.fixture
def duel():
    register(DuelSystem())
    register_view("duel", DuelView())
    yield get_system("duel")
    unregister("duel")


def test_a_fourth_system_plays_a_fight_through_the_tracker_and_its_view(duel):
    t = Timeline.start(new_encounter("d1", "Courtyard", system="duel"))
    # The add form draws the system's stats generically, and reads them back the same way.
    form = render.add_sheet_html(t.present, [], [])
    assert 'data-testid="field-stat-guard"' in form and 'data-testid="field-stat-left_handed"' in form
    page = FakePage(Model(t), {"f-stat-guard": "2", "#f-stat-left_handed": True})
    stats = view_for("duel").stats_from_form(duel, page, editing=False)
    assert stats == {"guard": 2, "left_handed": True}
    for name, mod, guard in (("Inigo", 2, 0), ("Count", 0, 2)):
        t = t.do(resolve(t.present, "add_combatant", {"combatant": {"name": name, "init_mod": mod, "max_hp": 10, "stats": {"guard": guard}}}))
    t = t.do(resolve(t.present, "start_combat", {}, Scripted([3, 4])))  # Inigo 1d6+2 = 5, Count 1d6 = 4
    assert [c.name for c in t.present.combatants] == ["Inigo", "Count"]
    assert [e.roll for e in t.log() if e.kind == "initiative"] == ["1d6 (3) + 2 = 5", "1d6 (4) = 4"]
    inigo, count = (c.id for c in t.present.combatants)
    with pytest.raises(RuleError, match="not Count's turn"):
        resolve(t.present, "duel_feint", {"id": count, "target": inigo}, Scripted([]))  # refused, nothing rolled
    # The view's button, through its own handler: a 6 beats the Count's Guard 2 (needs 5).
    html = render.combatant_sheet_html(t.present, t.present.get(count), {"attacker": None, "pending": None}, t.log())
    button = next(attrs for tag, attrs in parsed(html).tags if attrs.get("data-testid") == "feint")
    # The button's handler, found the way the runtime finds it (the screens' tables, then the fight's view).
    found = handler("click", button["data-action"], "duel")
    message = found(FakePage(Model(t), {}, {"id": button["data-id"], "target": button["data-target"]}, rng=Scripted([6])))
    t = update(Model(t), message)[0].timeline
    assert [k.name for k in t.present.get(count).conditions] == ["Off guard"]
    assert t.log()[-1].text == "Inigo feints: Count is off guard"
    # Off guard lasts until the end of Inigo's next turn: two ends of his turn.
    t = t.do(resolve(t.present, "next_turn"))
    t = t.do(resolve(t.present, "next_turn"))
    assert t.present.round == 2 and t.present.get(count).conditions
    t = t.do(resolve(t.present, "next_turn"))
    assert not t.present.get(count).conditions
    # Undo, redo, save and load.
    assert t.undo().present.get(count).conditions and t.undo().redo().present == t.present
    loaded = timeline_from_dict(loads(dumps(timeline_to_dict(t))))
    assert loaded.present == t.present and loaded.log() == t.log()
    # The screens: the view's chips and labels, the system's name and clock.
    screen = render.tracker_html(t)
    assert 'data-testid="guard">Guard 2<' in screen and "Sheathe swords" in screen and "Duel" in screen
    assert render.round_label(t.present) == "Round 2 · 0:03 in game"
    t = t.do(resolve(t.present, "end_combat"))
    assert "Sheathe swords" not in render.tracker_html(t)


def test_an_unknown_system_is_refused_and_its_save_is_unreadable(duel):
    t = Timeline.start(new_encounter("d1", "Courtyard", system="duel"))
    saved = dumps(timeline_to_dict(t))
    unregister("duel")
    with pytest.raises(Exception, match="Unknown game system"):
        timeline_from_dict(loads(saved))
    register(DuelSystem())  # the fixture's teardown unregisters it again
