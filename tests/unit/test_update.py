"""web/app/update: the page's everyday loop as messages in, a model and effects out, in CPython
without a browser: next turn with the guard, damage with the Undo toast, the batch, an attack
rolled then applied, the initiative step, saved rolls deleted and brought back, quick add."""

from __future__ import annotations

import ast
import random
import subprocess
import sys
import typing
from dataclasses import replace
from pathlib import Path

import pytest

from pyengine.characters import CHARACTER_VERSION
from pyengine.core_args import Delay, Edit, Flow, NewCondition, Target
from pyengine.text import quoted
from pyengine.tracker import Timeline, new_encounter, resolve
from tests.unit.scripted import Scripted
from web.app import messages as msg
from web.app import ui as state
from web.app.effects import (
    AskToKeepStorage,
    ClearLink,
    CloseSheet,
    Effect,
    ForgetStored,
    HideToast,
    KeepAwake,
    RefreshOdds,
    Refuse,
    Render,
    RenderNotices,
    RenderRolls,
    RenderSheet,
    RollStale,
    SaveFight,
    SayOnLine,
    SetField,
    ShowSheet,
    StopOdds,
    StorageEffect,
    StoreCollection,
    SwitchTo,
    Toast,
)
from web.app.exchange import share_payload
from web.app.model import Model
from web.app.storage.records import ROLLS, SAVED_ROLLS, Notice
from web.app.update import FIGHT_CHANGED, HANDLERS, batch_actions, numbered_name, update

ROOT = Path(__file__).resolve().parents[2]
RNG = random.Random(1)


def fight(*people: dict, system: str = "generic", started: bool = False) -> Model:
    """A model whose fight holds `people` (add requests' fields), started if asked."""
    t = Timeline.start(new_encounter("e1", "Bridge", system=system))
    for fields in people:
        t = t.do(resolve(t.present, "add_combatant", {"combatant": fields}, random.Random(0)))
    if started:
        t = t.do(resolve(t.present, "start_combat", {}, random.Random(0)))
    return Model(t)


PARTY = ({"name": "Cyra", "side": "party", "pc": True, "initiative": 18, "max_hp": 20, "stats": {"to_hit": 5, "damage": "1d8+3"}},
         {"name": "Dax", "side": "party", "pc": True, "initiative": 12, "max_hp": 24},
         {"name": "Goblin", "initiative": 15, "max_hp": 7},
         {"name": "Ogre", "initiative": 5, "max_hp": 30, "stats": {"ac": 10}})


def ids(model: Model) -> dict[str, str]:
    return {c.name: c.id for c in model.timeline.present.combatants}


def hp(model: Model, name: str) -> int | None:
    return next(c.hp for c in model.timeline.present.combatants if c.name == name)


# -- next turn and its guard -------------------------------------------------------------------

def test_next_turn_moves_the_turn_and_saves_without_a_toast():
    model = fight(*PARTY, started=True)
    first = model.timeline.present.active_id
    after, effects = update(model, msg.NextTurnTapped(10.0, RNG))
    assert after.timeline.present.active_id != first
    assert effects == FIGHT_CHANGED  # the order on screen says it: no toast
    assert after.ui.last_next_turn == 10.0


def test_a_second_tap_within_the_guard_is_the_same_tap():
    model, _ = update(fight(*PARTY, started=True), msg.NextTurnTapped(10.0, RNG))
    again, effects = update(model, msg.NextTurnTapped(10.3, RNG))
    assert again is model and effects == ()
    later, _ = update(model, msg.NextTurnTapped(10.5, RNG))
    assert later.timeline.cursor == model.timeline.cursor + 1


def test_next_turn_before_the_fight_starts_it_when_every_number_is_known():
    after, effects = update(fight(*PARTY), msg.NextTurnTapped(1.0, RNG))
    assert after.timeline.present.started
    assert after.timeline.present.active_id == ids(after)["Cyra"]  # 18 is highest
    assert effects == FIGHT_CHANGED


def test_start_asks_the_players_for_their_numbers_first():
    model = fight({"name": "Cyra", "side": "party", "pc": True}, {"name": "Goblin", "initiative": 10})
    after, effects = update(model, msg.StartTapped(RNG))
    assert after.ui.sheet == ("init", None) and after.timeline is model.timeline and effects == (ShowSheet(True),)


def test_the_called_out_numbers_start_the_fight_and_close_the_step():
    model = fight({"name": "Cyra", "side": "party", "pc": True}, {"name": "Goblin", "init_mod": 2})
    after, effects = update(model, msg.InitiativeEntered({ids(model)["Cyra"]: 17}, Scripted([9])))
    enc = after.timeline.present
    assert {c.name: c.initiative for c in enc.combatants} == {"Cyra": 17, "Goblin": 11}
    assert effects[-1] == CloseSheet() and SaveFight() in effects


def test_start_fight_on_a_fight_already_started_is_refused_not_a_next_turn():
    model = fight(*PARTY, started=True)
    after, effects = update(model, msg.StartTapped(RNG))
    assert after.timeline.present.active_id == model.timeline.present.active_id


# -- damage, its toast and Undo ------------------------------------------------------------------

def test_damage_typed_on_a_sheet_is_said_with_undo_and_undo_brings_it_back():
    model = fight(*PARTY, started=True)
    hit, effects = update(model, msg.HitPointsTyped("damage", ids(model)["Ogre"], " 12 ", RNG))
    assert hp(hit, "Ogre") == 18
    assert effects == FIGHT_CHANGED + (Toast("Ogre took 12 damage", undo=True),)
    back, effects = update(hit, msg.UndoTapped(from_toast=True))
    assert hp(back, "Ogre") == 30
    assert effects == FIGHT_CHANGED + (Toast("Undone: Ogre took 12 damage", redo=True),)  # what it undid, with Redo
    again, effects = update(back, msg.RedoTapped(from_toast=True))
    assert hp(again, "Ogre") == 18
    assert effects == FIGHT_CHANGED + (Toast("Redone: Ogre took 12 damage", undo=True),)
    assert update(fight(), msg.UndoTapped(from_toast=True))[1] == (HideToast(),)  # nothing to undo


def test_a_condition_that_runs_out_is_said_at_the_turn_it_ends():
    """Next turn shows itself on screen (no toast), except what runs out at it: "Stunned on Ogre
    ended" is said at that turn (with Undo), not only in the Log."""
    model = fight(*PARTY, started=True)
    active = model.timeline.present.active_id
    model, _ = update(model, msg.Act("add_condition", NewCondition(ids(model)["Ogre"], "Stunned", "end", anchor=active), RNG))
    said = []
    for turn in range(6):
        model, effects = update(model, msg.NextTurnTapped(100.0 * (turn + 1), RNG))
        ended = any(e.kind == "condition_expired" for e in model.timeline.logs[model.timeline.cursor - 1])
        toasts = [e for e in effects if isinstance(e, Toast)]
        assert bool(toasts) == ended
        said += [t.text for t in toasts if t.undo]
    assert said == ["Stunned on Ogre ended (end of Cyra's turn)"]


@pytest.mark.parametrize("typed, said", [("", "Type an amount first."), ("lots", "“lots” is neither a number nor dice (such as 8d6)"),
                                         ("-3", "Enter a number from 0 to 1,000,000."), ("8d6+", "“8d6+” is neither a number nor dice")])
def test_a_bad_amount_is_refused_and_changes_nothing(typed, said):
    model = fight(*PARTY, started=True)
    after, effects = update(model, msg.HitPointsTyped("damage", ids(model)["Ogre"], typed, RNG))
    assert after is model and len(effects) == 1 and isinstance(effects[0], Refuse) and effects[0].text.startswith(said)


def test_dice_as_the_amount_are_rolled_shown_and_applied_in_one_step():
    """8d6 typed as damage: rolled with the engine (the page's RNG), the dice in the toast and the
    log, the total applied, one undoable step; a fireball on several, one roll, halved for savers."""
    from pyengine.dice import roll

    model = fight(*PARTY, started=True)
    ogre = ids(model)["Ogre"]
    after, effects = update(model, msg.HitPointsTyped("damage", ogre, "3d6+2", random.Random(9)))
    rolled = roll("3d6+2", random.Random(9))
    assert hp(after, "Ogre") == 30 - rolled.total and after.timeline.cursor == model.timeline.cursor + 1
    toast = next(e for e in effects if isinstance(e, Toast))
    assert toast.text.startswith(rolled.text) and toast.undo
    assert after.timeline.log()[-1].roll == rolled.text
    everyone = replace(model, ui=replace(model.ui, selected=(ogre, ids(model)["Goblin"])))
    fireball, _ = update(everyone, msg.BatchApplied("damage", random.Random(3), amount="8d6", halves=(ids(model)["Goblin"],)))
    total = roll("8d6", random.Random(3)).total
    assert hp(fireball, "Ogre") == max(0, 30 - total) and hp(fireball, "Goblin") == max(0, 7 - total // 2)
    assert fireball.timeline.cursor == model.timeline.cursor + 1


def test_healing_and_temporary_hp_go_through_the_same_message():
    model = fight(*PARTY, started=True)
    model, _ = update(model, msg.HitPointsTyped("damage", ids(model)["Dax"], "10", RNG))
    model, _ = update(model, msg.HitPointsTyped("temp_hp", ids(model)["Dax"], "5", RNG))
    model, effects = update(model, msg.HitPointsTyped("heal", ids(model)["Dax"], "4", RNG))
    dax = model.timeline.present.get(ids(model)["Dax"])
    assert (dax.hp, dax.temp_hp) == (18, 5)
    assert effects[-1] == Toast("Dax healed 4", undo=True)


def test_undo_with_nothing_to_undo_only_hides_the_toast():
    model = fight()
    assert update(model, msg.UndoTapped(from_toast=True)) == (model, (HideToast(),))
    assert update(model, msg.UndoTapped()) == (model, ())
    assert update(model, msg.RedoTapped()) == (model, ())


# -- the batch -------------------------------------------------------------------------------------

def selecting(model: Model, *names: str) -> Model:
    ui = state.selecting_toggled(model.ui)
    for name in names:
        ui = state.selection_toggled(ui, ident=ids(model)[name])
    return replace(model, ui=ui)


def test_a_fireball_halves_for_those_who_saved_in_one_undoable_step():
    model = selecting(fight(*PARTY, {"name": "Wolf", "initiative": 3, "max_hp": 11}, started=True), "Goblin", "Ogre", "Wolf")
    saved = (ids(model)["Ogre"],)
    after, effects = update(model, msg.BatchApplied("damage", RNG, amount="9", halves=saved))
    assert (hp(after, "Goblin"), hp(after, "Ogre"), hp(after, "Wolf")) == (0, 26, 2)
    assert after.timeline.cursor == model.timeline.cursor + 1  # one step
    assert after.ui.selected is None
    assert effects[:4] == FIGHT_CHANGED and effects[-2:] == (CloseSheet(), Render())
    assert isinstance(effects[4], Toast) and effects[4].undo
    assert hp(update(after, msg.UndoTapped())[0], "Ogre") == 30


def test_a_batch_toast_names_every_target_a_groups_members_by_number():
    """Four goblins and an ogre in one fireball: every target named, the group's numbers after its first."""
    goblins = [{"name": f"Goblin {n}", "initiative": 5, "max_hp": 20} for n in range(1, 5)]
    model = selecting(fight(*PARTY, *goblins, started=True), "Goblin 1", "Goblin 2", "Goblin 3", "Goblin 4", "Ogre")
    after, effects = update(model, msg.BatchApplied("damage", RNG, amount="12", halves=(ids(model)["Goblin 3"],)))
    toast = next(e for e in effects if isinstance(e, Toast))
    assert toast.text == "Goblin 1, 2, 4 and Ogre took 12 damage; Goblin 3 took 6 damage (saved: half damage)"
    model = selecting(after, "Goblin 1", "Goblin 2")
    _, effects = update(model, msg.BatchApplied("damage", RNG, amount="20"))
    assert next(e for e in effects if isinstance(e, Toast)).text == "Goblin 1 and 2 took 20 damage; Goblin 1 and 2 die"
    one = selecting(after, "Goblin 4")
    _, effects = update(one, msg.BatchApplied("heal", RNG, amount="3"))
    assert next(e for e in effects if isinstance(e, Toast)).text.startswith("Goblin 4 ")


def test_the_batch_requests_halve_damage_only_and_round_down():
    model = selecting(fight(*PARTY, started=True), "Goblin", "Ogre")
    ogre = ids(model)["Ogre"]
    heal = batch_actions(model, msg.BatchApplied("heal", RNG, amount="7", halves=(ogre,)))
    assert [a["args"]["amount"] for a in heal] == [7, 7]
    hurt = batch_actions(model, msg.BatchApplied("damage", RNG, amount="7", halves=(ogre,)))
    assert [a["args"] for a in hurt] == [{"id": ids(model)["Goblin"], "amount": 7}, {"id": ogre, "amount": 3, "half": True}]


def test_a_condition_for_several_and_a_refused_batch():
    model = selecting(fight(*PARTY, started=True), "Cyra", "Dax")
    after, _ = update(model, msg.BatchApplied("add_condition", RNG, condition="Blessed"))
    assert all("Blessed" in [k.name for k in c.conditions] for c in after.timeline.present.combatants if c.pc)
    refused, effects = update(model, msg.BatchApplied("damage", RNG, amount=""))
    assert refused is model and effects == (Refuse("Type an amount first."),)
    nobody, effects = update(model, msg.BatchApplied("add_condition", RNG, condition=""))
    assert nobody.timeline is model.timeline and isinstance(effects[0], Refuse)
    assert nobody.ui.selected == model.ui.selected  # a refused batch keeps the selection


# -- an attack rolled, then applied ------------------------------------------------------------------

def test_an_attack_rolled_on_the_panel_is_applied_as_one_step_and_remembers_its_target():
    model = fight(*PARTY, started=True)
    attack = resolve(model.timeline.present, "d20_attack", {"attacker": ids(model)["Cyra"], "target": ids(model)["Ogre"]},
                     Scripted([15, 6]))
    ui = state.attack_rolled(state.sheet_opened(model.ui, kind="combatant", ident=ids(model)["Ogre"]), pending={**attack.args, "action": attack})
    after, effects = update(replace(model, ui=ui), msg.AttackApplied())
    assert hp(after, "Ogre") == 21
    assert after.ui.last_target == ids(model)["Ogre"] and after.ui.attack["pending"] is None
    # Apply says what the attack did, with Undo (as the manual Damage does)
    assert effects == FIGHT_CHANGED + (Toast("Cyra attacks Ogre: hit, 9 damage; Ogre took 9 damage from Cyra", undo=True),)
    assert after.timeline.cursor == model.timeline.cursor + 1


def test_every_way_damage_arrives_gives_the_concentration_reminder():
    """The attack panel's Apply, the manual Damage and a batch on several each say the save to keep
    concentrating (a toast that keeps reminders past its first three lines)."""
    model = fight(*PARTY, started=True)
    ogre = ids(model)["Ogre"]
    model, _ = update(model, msg.Act("add_condition", NewCondition(ogre, "Concentrating"), RNG))
    attack = resolve(model.timeline.present, "d20_attack", {"attacker": ids(model)["Cyra"], "target": ogre}, Scripted([15, 6]))
    ui = state.attack_rolled(state.sheet_opened(model.ui, kind="combatant", ident=ogre), pending={**attack.args, "action": attack})
    _, applied = update(replace(model, ui=ui), msg.AttackApplied())
    _, manual = update(model, msg.HitPointsTyped("damage", ogre, "9", RNG))
    selected = replace(model, ui=replace(model.ui, selected=tuple(c.id for c in model.timeline.present.combatants)))
    _, batch = update(selected, msg.BatchApplied("damage", RNG, amount="30"))
    for effects in (applied, manual, batch):
        toast = next(e for e in effects if isinstance(e, Toast))
        assert "Ogre is concentrating: Constitution save DC" in toast.text, toast.text


def test_a_practice_attack_or_none_rolled_changes_no_fight():
    model = fight(*PARTY, started=True)
    assert update(model, msg.AttackApplied()) == (model, ())
    ui = state.attack_rolled(state.sheet_opened(model.ui, kind="character", ident="k1"), pending={"action": None})
    practising = replace(model, ui=ui)
    assert update(practising, msg.AttackApplied()) == (practising, ())


# -- quick add ------------------------------------------------------------------------------------------

def test_a_saved_opponent_joins_again_numbered_and_a_party_member_only_once():
    model = fight(*PARTY)
    twice, effects = update(model, msg.QuickAdded(False, {"name": "Goblin", "max_hp": 7}, RNG))
    thrice, _ = update(twice, msg.QuickAdded(False, {"name": "Goblin", "max_hp": 7}, RNG))
    assert [c.name for c in thrice.timeline.present.combatants][-2:] == ["Goblin 2", "Goblin 3"]
    assert effects[-1] == CloseSheet()
    again, effects = update(model, msg.QuickAdded(True, {"name": "Cyra", "side": "party"}, RNG))
    assert again is model and effects == (Refuse("Cyra is already in this fight."),)


def test_numbered_names_skip_the_taken_ones():
    assert numbered_name("Orc", set()) == "Orc"
    assert numbered_name("Orc", {"Orc", "Orc 2", "Orc 4"}) == "Orc 3"


# -- saved rolls, the history and notices -------------------------------------------------------------

SAVED = ({"name": "Longsword", "expr": "1d8+3"}, {"name": "Fireball", "expr": "8d6"}, {"name": "Sneak", "expr": "3d6"})


def test_a_deleted_saved_roll_comes_back_where_it_stood():
    model = replace(fight(), saved_rolls=SAVED)
    gone, effects = update(model, msg.SavedRollDeleted(1))
    assert [s["name"] for s in gone.saved_rolls] == ["Longsword", "Sneak"]
    assert effects == (StoreCollection(SAVED_ROLLS), RenderRolls(), RenderNotices())
    assert gone.notices[-1] == Notice("info", f"Deleted the saved roll {quoted('Fireball')}.", "undelete-roll", "Undo")
    back, effects = update(gone, msg.SavedRollRestored())
    assert back.saved_rolls == SAVED and back.notices == () and back.trash.rolls == ()
    assert effects == (StoreCollection(SAVED_ROLLS), RenderRolls(), RenderNotices())


def test_undeleting_two_saved_rolls_brings_the_newest_first():
    model, _ = update(replace(fight(), saved_rolls=SAVED), msg.SavedRollDeleted(0))
    model, _ = update(model, msg.SavedRollDeleted(1))
    assert [s["name"] for s in model.saved_rolls] == ["Fireball"]
    model, _ = update(model, msg.SavedRollRestored())
    assert [s["name"] for s in model.saved_rolls] == ["Fireball", "Sneak"]
    model, _ = update(model, msg.SavedRollRestored())
    assert model.saved_rolls == SAVED


def test_a_saved_roll_of_the_same_name_saved_since_is_replaced_by_the_one_brought_back():
    model, _ = update(replace(fight(), saved_rolls=SAVED), msg.SavedRollDeleted(0))
    model = replace(model, saved_rolls=model.saved_rolls + ({"name": "Longsword", "expr": "1d10"},))
    back, _ = update(model, msg.SavedRollRestored())
    assert [s["expr"] for s in back.saved_rolls if s["name"] == "Longsword"] == ["1d8+3"]


def test_deleting_a_saved_roll_out_of_range_or_undoing_with_an_empty_trash_changes_nothing():
    model = replace(fight(), saved_rolls=SAVED)
    assert update(model, msg.SavedRollDeleted(3)) == (model, ())
    after, effects = update(model, msg.SavedRollRestored())
    assert after.saved_rolls == SAVED and effects == (RenderNotices(),)


def test_clearing_the_history_and_dismissing_a_notice():
    model = replace(fight(), rolls=({"expr": "1d20", "total": 4},), notices=(Notice("info", "a"), Notice("warn", "b")))
    cleared, effects = update(model, msg.HistoryCleared())
    assert cleared.rolls == () and effects == (StoreCollection(ROLLS), RenderRolls())
    dismissed, effects = update(model, msg.NoticeDismissed(0))
    assert [n.text for n in dismissed.notices] == ["b"] and effects == (RenderNotices(),)
    assert update(model, msg.NoticeDismissed(5)) == (model, ())


# -- the screen --------------------------------------------------------------------------------------

def test_selecting_and_picking_a_section_draw_what_changed():
    model = fight(*PARTY)
    on, effects = update(model, msg.SelectingToggled())
    assert on.ui.selected == () and effects == (Render(),)
    chosen, _ = update(on, msg.SelectionToggled(ids(model)["Ogre"]))
    assert chosen.ui.selected == (ids(model)["Ogre"],)
    picked, effects = update(model, msg.SectionPicked("resources"))
    assert picked.ui.section == "resources" and effects == (RenderSheet(),)


def test_an_action_of_the_fight_said_with_undo_and_one_refused():
    model = fight(*PARTY, started=True)
    after, effects = update(model, msg.Act("add_condition", NewCondition(ids(model)["Ogre"], "Prone"), RNG, close_sheet=True))
    assert effects[:4] == (SaveFight(), Render(), KeepAwake(), AskToKeepStorage())
    assert effects[4].undo and effects[5] == CloseSheet()
    refused, effects = update(model, msg.Act("remove_combatant", Target("c99"), RNG, close_sheet=True))
    assert refused is model and effects == (Refuse("That combatant is no longer in this encounter."),)


def test_every_message_goes_to_one_update():
    """mypy checks that each module's `match` is whole and that every message reaches one; this
    checks that none is in two modules' unions (the first would take it unseen by the second)."""
    handled = [t for module in HANDLERS for t in typing.get_args(module.Handled)]
    assert len(handled) == len(set(handled))
    assert set(handled) == set(typing.get_args(msg.Message))


def test_update_imports_nothing_of_the_browser():
    """The update and everything it imports load in a plain CPython without pyscript or js."""
    code = ("import sys, web.app.update, web.app.model, web.app.messages, web.app.effects; "
            "print(sorted(m for m in ('pyscript', 'js', 'pyodide') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


# -- My characters ---------------------------------------------------------------------------------------

CHARACTERS = ({"v": 1, "id": "k1", "name": "Cyra", "system": "generic"}, {"v": 1, "id": "k2", "name": "Dax", "system": "generic"})


def test_a_deleted_character_goes_to_the_trash_and_comes_back():
    model = replace(fight(), characters=CHARACTERS)
    gone, effects = update(model, msg.CharacterDeleted("k1"))
    assert [c["id"] for c in gone.characters] == ["k2"] and gone.trash.characters == (CHARACTERS[0],)
    assert gone.ui.sheet == ("characters", None)
    assert effects == (StoreCollection("characters"), ShowSheet(), RenderNotices())
    assert gone.notices[-1].action == "undelete-character"
    back, effects = update(gone, msg.CharacterRestored())
    assert {c["id"] for c in back.characters} == {"k1", "k2"} and back.trash.characters == () and back.notices == ()
    assert StoreCollection("characters") in effects


def test_deleting_a_character_already_gone_changes_nothing():
    model = replace(fight(), characters=CHARACTERS)
    assert update(model, msg.CharacterDeleted("k9")) == (model, ())


# -- the add form ----------------------------------------------------------------------------------------

def test_an_added_combatant_remembered_goes_to_the_party_or_the_saved_opponents_by_name():
    model = fight(*PARTY)
    fields = {"name": "Wolf", "side": "opponents", "pc": False, "init_mod": 2, "max_hp": 11, "initiative": 7, "notes": ""}
    after, effects = update(model, msg.CombatantAdded(fields, 2, True, RNG))
    assert [c.name for c in after.timeline.present.combatants][-2:] == ["Wolf 1", "Wolf 2"]  # a group, numbered
    assert after.templates == ({"name": "Wolf", "side": "opponents", "pc": False, "init_mod": 2, "max_hp": 11},)  # no initiative kept
    assert after.ui.last_added == ("opponents", False)
    assert effects[-2:] == (StoreCollection("templates"), CloseSheet())
    again, _ = update(after, msg.CombatantAdded({**fields, "max_hp": 13}, 1, True, RNG))
    assert [t["max_hp"] for t in again.templates] == [13]  # the same name replaces it
    hero = {"name": "Ayla", "side": "party", "pc": True, "max_hp": 20}
    joined, effects = update(model, msg.CombatantAdded(hero, 1, True, RNG))
    assert joined.roster[-1]["name"] == "Ayla" and StoreCollection("roster") in effects and joined.ui.last_added == ("party", True)


def test_an_added_combatant_not_remembered_or_refused():
    model = fight(*PARTY)
    after, effects = update(model, msg.CombatantAdded({"name": "Bat", "side": "opponents"}, 1, False, RNG))
    assert after.templates == () and effects[-1] == CloseSheet() and StoreCollection("templates") not in effects
    refused, effects = update(model, msg.CombatantAdded({"name": "Bat"}, 51, True, RNG))
    assert refused is model and effects == (Refuse("Add between 1 and 50 combatants at once."),)


# -- the dice roller ----------------------------------------------------------------------------------------

def test_a_roll_goes_first_in_the_history_with_its_dice_and_time():
    model = replace(fight(), ui=state.dice_typed(Model(fight().timeline).ui))
    after, effects = update(model, msg.RollTyped(" 2d6+1 ", Scripted([3, 5]), 1_700_000_000_000))
    assert after.rolls[0] == {"expr": "2d6+1", "total": 9, "text": after.rolls[0]["text"], "at": 1_700_000_000_000, "crits": 0, "fumbles": 0}
    assert "3" in after.rolls[0]["text"] and "5" in after.rolls[0]["text"]
    assert not after.ui.building  # the next quick die starts a new expression
    assert [type(e).__name__ for e in effects] == ["SayOnLine", "ShowRoll", "StoreCollection", "RenderRolls"]
    assert effects[0] == SayOnLine("dice-error", "") and effects[1].result.total == 9


def test_a_mistyped_roll_is_said_on_the_roller_and_changes_nothing():
    model = fight()
    after, effects = update(model, msg.RollTyped("2d", RNG, 0))
    assert after is model and len(effects) == 1 and effects[0].line == "dice-error" and effects[0].text


def test_the_history_keeps_the_newest_hundred():
    model = replace(fight(), rolls=tuple({"expr": "1", "total": 1} for _ in range(100)))
    after, _ = update(model, msg.RollTyped("7", RNG, 0))
    assert len(after.rolls) == 100 and after.rolls[0]["total"] == 7


def test_a_saved_roll_tapped_fills_the_box_rolls_and_shows_its_odds():
    model = replace(fight(), saved_rolls=SAVED)
    after, effects = update(model, msg.SavedRollTapped(1, Scripted([1, 2, 3, 4, 5, 6, 1, 2]), 5))
    assert effects[0] == SetField("dice-input", "8d6") and effects[-1] == RefreshOdds()
    assert after.rolls[0]["total"] == 24
    assert update(model, msg.SavedRollTapped(7, RNG, 5)) == (model, ())


def test_saving_a_roll_names_it_replaces_the_same_name_and_refuses_a_bad_one():
    model = replace(fight(), saved_rolls=SAVED)
    after, effects = update(model, msg.RollSaved(" 1d8+4 ", "Longsword"))
    assert [(s["name"], s["expr"]) for s in after.saved_rolls][-1] == ("Longsword", "1d8+4") and len(after.saved_rolls) == 3
    assert effects == (StoreCollection(SAVED_ROLLS), RenderRolls(), SetField("save-name", ""))
    unnamed, _ = update(model, msg.RollSaved("2d20kh1", "  "))
    assert unnamed.saved_rolls[-1] == {"name": "2d20kh1", "expr": "2d20kh1"}
    refused, effects = update(model, msg.RollSaved("2d", "Oops"))
    assert refused is model and effects[0].line == "dice-error"


def test_quick_dice_build_an_expression_and_adv_rewrites_its_d20():
    model = fight()
    first, effects = update(model, msg.QuickDieTapped("6", "1d20"))  # not building yet: a new expression
    # (RollStale: the result shown is now the previous roll's, issue 38)
    assert effects == (SetField("dice-input", "1d6"), RefreshOdds(), RollStale()) and first.ui.building
    second, effects = update(first, msg.QuickDieTapped("6", "1d6"))
    assert effects[0] == SetField("dice-input", "2d6")
    _, effects = update(second, msg.QuickDieTapped("adv", "1d20+5"))
    assert effects[0] == SetField("dice-input", "2d20kh1+5")


def test_typing_in_the_dice_box_builds_on_it_and_schedules_the_odds():
    after, effects = update(fight(), msg.DiceTyped())
    assert after.ui.building and effects == (StopOdds(), RollStale()) and after.odds_due  # the odds once typing stops (test_timers)


def test_every_effect_has_a_performer_in_the_runtime():
    """web/page/runtime.py's `perform` hands the storage effects (effects.StorageEffect) to Keeper.perform,
    whose match has exactly those, and matches every other effect update may return, once each; both
    matches end in assert_never (mypy then finds a case missing)."""
    def cases(tree: ast.AST) -> list[str]:
        perform = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "perform")
        match = next(n for n in ast.walk(perform) if isinstance(n, ast.Match))
        last = match.cases[-1]
        assert isinstance(last.pattern, ast.MatchAs) and last.pattern.pattern is None
        assert ast.unparse(last.body[0]) == "assert_never(effect)"
        return [c.pattern.cls.attr for c in match.cases[:-1] if isinstance(c.pattern, ast.MatchClass) and isinstance(c.pattern.cls, ast.Attribute)]

    runtime = ast.parse((ROOT / "web" / "page" / "runtime.py").read_text())
    storage = sorted(t.__name__ for t in typing.get_args(StorageEffect))
    assert sorted(cases(runtime)) == sorted({t.__name__ for t in typing.get_args(Effect)} - set(storage))
    perform = next(n for n in ast.walk(runtime) if isinstance(n, ast.FunctionDef) and n.name == "perform")
    first = next(n for n in perform.body if isinstance(n, ast.If))
    assert ast.unparse(first) == "if isinstance(effect, fx.StorageEffect):\n    keeper.perform(effect, model)\n    return"
    assert sorted(cases(ast.parse((ROOT / "web" / "app" / "storage" / "keeper.py").read_text()))) == storage


# -- an attack rolled on a panel, in the fight and in practice ------------------------------------------------

def on_sheet_of(model: Model, name: str) -> Model:
    return replace(model, ui=state.sheet_opened(model.ui, kind="combatant", ident=ids(model)[name]))


def test_an_attack_is_rolled_by_the_attacker_the_panel_shows_and_waits_for_apply():
    model = on_sheet_of(fight(*PARTY, started=True), "Ogre")
    after, effects = update(model, msg.AttackRolled(ids(model)["Ogre"], ids(model)["Cyra"], Scripted([15, 6]), 0))
    pending = after.ui.attack["pending"]
    assert pending["attacker"] == ids(model)["Cyra"] and pending["target"] == ids(model)["Ogre"]
    assert after.timeline is model.timeline and effects == (RenderSheet(),)  # nothing applied yet
    applied, _ = update(after, msg.AttackApplied())
    assert hp(applied, "Ogre") == 21


def test_without_a_shown_attacker_whoever_has_the_turn_attacks():
    model = on_sheet_of(fight(*PARTY, started=True), "Ogre")  # Cyra (18) has the turn
    after, _ = update(model, msg.AttackRolled(ids(model)["Ogre"], None, Scripted([15, 6]), 0))
    assert after.ui.attack["pending"]["attacker"] == ids(model)["Cyra"]


def test_a_refused_attack_is_said_and_nothing_waits():
    model = on_sheet_of(fight(*PARTY, started=True), "Goblin")  # the goblin has no AC
    after, effects = update(model, msg.AttackRolled(ids(model)["Goblin"], ids(model)["Cyra"], RNG, 0))
    assert after is model and isinstance(effects[0], Refuse) and "no AC" in effects[0].text


PRACTISED = {"v": 1, "id": "k1", "name": "Ayla", "system": "generic", "stats": {"to_hit": 5, "damage": "1d8+3"},
             "attacks": [{"name": "Longsword", "stats": {}, "config": {}}]}


def practising(target: dict | None = None) -> Model:
    model = replace(fight(), characters=(PRACTISED,))
    ui = state.character_opened(model.ui, ident="k1", attack=0, config={})
    ui = state.target_described(ui, target=target or {"ac": 12}, hp=30, name="Ogre")
    return replace(model, ui=ui)


def test_a_practice_attack_goes_into_the_history_and_never_the_fight():
    model = practising()
    after, effects = update(model, msg.AttackRolled("ignored", None, Scripted([15, 6]), 1234))
    assert after.timeline is model.timeline
    assert after.rolls[0]["label"] == "Ayla: Longsword vs Ogre" and after.rolls[0]["total"] == 9 and after.rolls[0]["at"] == 1234
    assert effects == (StoreCollection(ROLLS), RenderRolls(), RenderSheet())
    assert update(after, msg.AttackApplied()) == (after, ())  # practice is never applied


def test_a_practice_attack_on_a_deleted_character_is_refused():
    model = replace(practising(), characters=())
    after, effects = update(model, msg.AttackRolled("x", None, RNG, 0))
    assert after is model and effects == (Refuse("That character is gone (deleted in another tab?)."),)


# -- My characters: the form ---------------------------------------------------------------------------------

def test_a_new_character_is_saved_in_the_current_format_and_its_screen_opens():
    model = fight()
    after, effects = update(model, msg.CharacterSaved("generic", None, "k7-abc", "Bryn", "18", "", {"to_hit": 4}))
    doc = after.characters[-1]
    assert doc["id"] == "k7-abc" and doc["name"] == "Bryn" and doc["max_hp"] == 18 and doc["v"] == CHARACTER_VERSION
    assert after.ui.sheet == ("character", "k7-abc")
    assert effects == (StoreCollection("characters"), ShowSheet())


def test_a_saved_character_shows_its_card_and_its_practice_opens_when_asked_without_an_error():
    """Issue 50, item 2: saving a new character showed a practice attack with a red "Target has no AC"
    already. Now its card comes first; tapping an attack (or "Practice an attack" when it has none)
    opens the practice, which says what to type until the target's defences are typed."""
    from web.app.screens import SCREENS, Context

    def drawn(model: Model) -> str:
        return str(SCREENS["character"].draw(Context(model, page_url="http://127.0.0.1/"), model.ui.sheet[1]))

    saved, _ = update(fight(), msg.CharacterSaved("generic", None, "k7-abc", "Bryn", "18", "", {"to_hit": 4},
                                                  ("Longsword", {"damage": "1d8+2"})))
    saved, _ = update(saved, msg.CharacterSaved("generic", "k7-abc", "unused", "Bryn", "18", "", {"to_hit": 4}))
    card = drawn(saved)
    assert saved.ui.sheet == ("character", "k7-abc") and not saved.ui.practice["open"]
    assert 'data-testid="practice"' not in card and "attack-error" not in card and 'data-testid="character-attack"' in card
    assert 'aria-pressed="true"' not in card and 'data-testid="character-qr"' in card
    asked, effects = update(saved, msg.CharacterOpened("k7-abc", 0, practice=True))
    practice = drawn(asked)
    assert effects == (ShowSheet(),) and 'data-testid="practice"' in practice and 'aria-pressed="true"' in practice
    assert "attack-error" not in practice and 'data-testid="practice-hint"' in practice
    aimed, _ = update(asked, msg.TargetDescribed({"ac": "15"}, "", "", "Goblin"))
    panel = drawn(aimed)
    assert "practice-hint" not in panel and "attack-error" not in panel and "data-action=\"attack-roll\"" in panel
    bare, _ = update(fight(), msg.CharacterSaved("generic", None, "k8-abc", "Ayla", "18", "", {"to_hit": 4}))
    assert 'data-testid="practice-attack"' in drawn(bare) and 'data-testid="practice"' not in drawn(bare)
    own, _ = update(bare, msg.CharacterOpened("k8-abc", practice=True))
    assert 'data-testid="practice"' in drawn(own) and "practice-attack" not in drawn(own)


def test_save_attack_adds_then_replaces_an_attack_by_name_keeping_its_options():
    model = replace(fight(), characters=({**PRACTISED, "attacks": [{"name": "Longsword", "stats": {}, "config": {"adv": "adv"}}]},))
    after, effects = update(model, msg.CharacterSaved("generic", "k1", "unused", "Ayla", "", "2", {}, ("Longsword", {"damage": "1d10+3"})))
    attack = after.characters[0]["attacks"][0]
    assert attack["stats"] == {"damage": "1d10+3"} and attack["config"] == {"adv": "adv"} and len(after.characters[0]["attacks"]) == 1
    assert after.ui.sheet == ("character-edit", "k1")
    assert effects == (StoreCollection("characters"), ShowSheet(), Toast(f"Saved the attack {quoted('Longsword')}."))
    bow, _ = update(after, msg.CharacterSaved("generic", "k1", "unused", "Ayla", "", "2", {}, ("Bow", {})))
    assert [a["name"] for a in bow.characters[0]["attacks"]] == ["Longsword", "Bow"]


@pytest.mark.parametrize("saved, said", [
    (msg.CharacterSaved("generic", "k1", "x", "Ayla", "", "", {}, ("  ", {})), "Name the attack first (e.g. Longsword)."),
    (msg.CharacterSaved("generic", "k9", "x", "Ayla", "", "", {}), "That character is gone (deleted in another tab?)."),
    (msg.CharacterSaved("generic", None, "x", "Ayla", "lots", "", {}), "“lots” is not a whole number."),
])
def test_a_character_form_that_cannot_be_saved_is_refused_and_nothing_changes(saved, said):
    model = replace(fight(), characters=(PRACTISED,))
    assert update(model, saved) == (model, (Refuse(said),))


# -- a fight shared by link: offered, then opened or replacing the copy opened before ----------------------

def shared() -> str:
    return share_payload(fight(*PARTY, started=True).timeline.present)


def test_a_shared_fight_is_offered_never_opened_unasked():
    model = fight()
    after, effects = update(model, msg.ShareOffered(shared(), ()))
    assert after.timeline is model.timeline and after.ui.pending_share is not None
    offer = after.notices[-1]
    assert offer.action == "open-share" and "Bridge" in offer.text and "round 1" in offer.text
    assert effects == (RenderNotices(),)


def test_a_fight_shared_again_offers_to_replace_the_copy_opened_before():
    listed = ({"id": "e9", "name": "Bridge (from Dana)", "source": "e1"},)
    after, _ = update(fight(), msg.ShareOffered(shared(), listed))
    offer = after.notices[-1]
    assert offer.action == "replace-share" and offer.more == (("open-share", "Open a copy"),) and "Bridge (from Dana)" in offer.text
    locked, _ = update(fight(), msg.ShareOffered(shared(), listed, frozenset({"e9"})))  # saved by a newer version: never replaced
    assert locked.notices[-1].action == "open-share"


def test_opening_a_shared_fight_makes_a_new_encounter_that_remembers_its_source():
    offered, _ = update(fight(), msg.ShareOffered(shared(), ()))
    after, effects = update(offered, msg.ShareOpened(False, "e42", ()))
    switch, clear = effects
    assert isinstance(switch, SwitchTo) and clear == ClearLink()
    assert switch.timeline.present.id == "e42" and switch.replacing is None and dict(switch.origin) == {"from": "link", "source": "e1"}
    assert switch.timeline.present.round == 1 and after.ui.pending_share is None and after.notices == ()


def test_replacing_writes_the_shared_fight_over_the_copy_opened_before():
    listed = ({"id": "e9", "name": "Bridge (from Dana)", "source": "e1"},)
    offered, _ = update(fight(), msg.ShareOffered(shared(), listed))
    _, (switch, _) = update(offered, msg.ShareOpened(True, "e42", listed))
    assert switch.replacing == "e9" and switch.timeline.present.id == "e9"
    _, (copy, _) = update(offered, msg.ShareOpened(False, "e42", listed))  # Open a copy
    assert copy.timeline.present.id == "e42" and copy.replacing is None


def test_a_damaged_link_is_said_and_taken_off_the_address_bar():
    model = fight()
    after, effects = update(model, msg.ShareOffered("not-a-fight", ()))
    assert after.timeline is model.timeline and after.ui.pending_share is None
    assert after.notices[-1].level == "error" and "could not be opened" in after.notices[-1].text
    assert effects == (ClearLink(), RenderNotices())
    assert update(model, msg.ShareOpened(False, "e42", ())) == (model, ())  # nothing pending: nothing opens


# -- encounters ---------------------------------------------------------------------------------------------

def test_a_new_encounter_is_numbered_of_the_chosen_system_and_opened():
    model = fight()
    _, effects = update(model, msg.EncounterCreated("realms", "e50", 2))
    switch, close = effects
    assert (switch.timeline.present.id, switch.timeline.present.name, switch.timeline.present.system) == ("e50", "Encounter 3", "realms")
    assert switch.timeline.present.combatants == () and close == CloseSheet()
    _, (same, _) = update(model, msg.EncounterCreated(None, "e51", 0))
    assert same.timeline.present.system == "generic"
    refused, effects = update(model, msg.EncounterCreated("chess", "e52", 0))
    assert refused is model and isinstance(effects[0], Refuse) and "Unknown game system" in effects[0].text


def test_a_copied_encounter_keeps_its_history_under_a_new_id():
    model, _ = update(fight(*PARTY, started=True), msg.NextTurnTapped(1.0, RNG))
    _, (switch, _) = update(model, msg.EncounterCopied("e60"))
    copy = switch.timeline
    assert copy.present.id == "e60" and copy.present.name == "Bridge (copy)"
    assert copy.cursor == model.timeline.cursor and copy.present.active_id == model.timeline.present.active_id
    assert copy.can_undo


def test_a_deleted_encounter_goes_to_the_trash_with_its_history_and_comes_back():
    model, _ = update(fight(*PARTY, started=True), msg.NextTurnTapped(1.0, RNG))
    gone, effects = update(model, msg.EncounterDeleted("e70", 2))
    forget, notices, close = effects
    assert isinstance(forget, ForgetStored) and forget.ident == "e1" and forget.fresh.present.id == "e70"
    assert forget.fresh.present.name == "Encounter 3"  # two others listed: shown only if neither can be read
    assert forget.fresh.present.system == "generic" and (notices, close) == (RenderNotices(), CloseSheet())
    assert gone.trash.encounters[-1]["timeline"] is model.timeline and gone.notices[-1].action == "undelete"
    back, effects = update(gone, msg.EncounterRestored(-1))
    switch = effects[0]
    assert switch.timeline is model.timeline and switch.replacing == "e1"  # stored again under its own id
    assert back.trash.encounters == () and back.notices == ()
    assert update(back, msg.EncounterRestored(-1)) == (back, ())  # an empty trash: nothing
    assert update(gone, msg.EncounterRestored(5)) == (gone, ())


def test_attack_defaults_never_pit_a_side_against_itself():
    """A group's turn: its first member still standing attacks, and Attack… opens a foe, never
    another member of the group; a PC tapped on its own turn is not offered its friend's attack."""
    from web.app.views import attacker_choice

    archers = {"name": "Goblin Archer", "initiative": 20, "max_hp": 7}
    model = fight(*PARTY, started=True)
    t = model.timeline
    t = t.do(resolve(t.present, "add_combatant", {"combatant": archers, "count": 3}, RNG))
    model = replace(model, timeline=t)
    enc = model.timeline.present
    group = [c for c in enc.combatants if c.group]
    assert len(group) == 3
    first, second = group[0], group[1]
    while model.timeline.present.active_id != first.id:  # on to the group's turn
        model, _ = update(model, msg.Act("next_turn", Flow(), RNG))
    model, _ = update(model, msg.HitPointsTyped("damage", first.id, "7", RNG))  # its first archer falls
    enc = model.timeline.present
    assert enc.get(enc.active_id).group == first.group
    target = enc.get(ids(model)["Dax"])
    chosen, _ = attacker_choice(enc, target, None)
    assert chosen == second.id  # the first member still standing
    opened, _ = update(model, msg.AttackLastTapped())
    assert enc.get(opened.ui.sheet[1]).side == "party"  # a foe of the archers, not an archer
    # Dax's own turn, Dax's sheet: a foe attacks him by default, not Cyra
    while model.timeline.present.active_id != target.id:
        model, _ = update(model, msg.Act("next_turn", Flow(), RNG))
    enc = model.timeline.present
    chosen, _ = attacker_choice(enc, enc.get(target.id), None)
    assert enc.get(chosen).side == "opponents" and not enc.get(chosen).down


@pytest.mark.parametrize("system, offered", [("generic", True), ("realms", False), ("strife", False)])
def test_delay_is_offered_only_where_the_rules_allow_holding_a_turn(system, offered):
    """Enchanted Realms has no holding an action; Realm of Strife only its bottom of the queue
    (shared/RULES.md §1, §2): no "Delay until after" there, and a request is refused with the rule.
    A delay already in a saved fight's history still replays."""
    from web.app import render

    model = fight(*PARTY, system=system, started=True)
    enc = model.timeline.present
    c = enc.get(enc.active_id)
    html = render.combatant_sheet_html(enc, c, None)
    assert ('data-testid="delay"' in html) == offered
    other = next(x.id for x in enc.combatants if x.id != c.id)
    after, effects = update(model, msg.Act("delay", Delay(c.id, other), RNG))
    if offered:
        assert after.timeline.cursor == model.timeline.cursor + 1
    else:
        assert after is model and isinstance(effects[0], Refuse)
        assert ("holding" if system == "realms" else "bottom of the queue") in effects[0].text
        from pyengine.tracker import Action
        replayed = model.timeline.do(Action("delay", {"id": c.id, "after": other}))  # a saved delay replays
        assert replayed.present.active_id != c.id


def test_a_known_opponents_name_puts_the_add_form_on_the_opponents_side():
    """After four PCs the form starts on the party's side; typing "Goblin" (an opponent already in
    the fight, or a saved one) moves it to Opponents, not a player character; a saved party member's
    name to the party's; an unknown name changes nothing."""
    from web.app.effects import SetField

    model = replace(fight(*PARTY), templates=({"name": "Goblin Archer", "max_hp": 7},),
                    roster=({"name": "Bryn", "side": "party", "pc": True},))
    opponents = (SetField("f-side", "opponents"), SetField("f-pc", "0"))
    assert update(model, msg.NameTyped("Goblin"))[1] == opponents      # another copy of one in the fight
    assert update(model, msg.NameTyped("ogre 2"))[1] == opponents      # a numbered copy
    assert update(model, msg.NameTyped(" goblin  archer "))[1] == opponents  # a saved opponent
    assert update(model, msg.NameTyped("Bryn"))[1] == (SetField("f-side", "party"), SetField("f-pc", "1"))
    assert update(model, msg.NameTyped("Cyra"))[1] == ()  # a PC in the fight: nothing to correct
    assert update(model, msg.NameTyped("Mysterious stranger"))[1] == ()


def test_a_notice_about_a_step_goes_when_the_step_is_undone_or_another_fight_is_shown():
    """"Dax joined the fight" belongs to that fight and that step: undone, it is not shown; redone,
    it is; in another encounter it is not; another step in its place does not bring it back."""
    from web.app import render
    from web.app.storage.records import Notice

    model = fight(*PARTY, started=True)
    t = model.timeline.do(resolve(model.timeline.present, "add_combatant", {"combatant": {"name": "Bryn"}}, RNG))
    notice = Notice("info", "Bryn joined the fight.").about(t)
    assert "Bryn joined" in render.notices_html([notice], t)
    assert "Bryn joined" not in render.notices_html([notice], t.undo())
    assert "Bryn joined" in render.notices_html([notice], t.undo().redo())
    other = t.undo().do(resolve(t.present, "add_combatant", {"combatant": {"name": "Zed"}}, RNG))
    assert "Bryn joined" not in render.notices_html([notice], other)
    elsewhere = fight(*PARTY).timeline
    assert "Bryn joined" not in render.notices_html([notice], elsewhere)
    assert "Saved" in render.notices_html([Notice("info", "Saved")], elsewhere)  # a notice about no fight stays


def test_the_first_run_hint_goes_when_the_fight_starts():
    from web.app.update import FIRST_RUN_HINT

    model = replace(fight(*PARTY), notices=(FIRST_RUN_HINT,))
    started, effects = update(model, msg.StartTapped(RNG))
    if not started.timeline.present.started:  # the players' initiative step first
        started, effects = update(started, msg.InitiativeEntered({}, RNG))
    assert started.timeline.present.started and FIRST_RUN_HINT not in started.notices
    assert any(type(e).__name__ == "RenderNotices" for e in effects)


def test_a_dying_pcs_turn_offers_its_death_save_and_a_critical_hit_counts_two_failures():
    """SRD: at a dying PC's turn "Now:" offers the death save (not Attack…); a hit on a dying PC is
    a failed death save, a critical hit two (shown, one undoable step). A fight saved before the
    second failure existed replays as it was played (the rule is decided when the attack is rolled)."""
    from pyengine.tracker import Action
    from web.app import render

    model = fight(*PARTY, started=True)
    cyra, ogre = ids(model)["Cyra"], ids(model)["Ogre"]
    model, _ = update(model, msg.Act("update_combatant", Edit(cyra, {"stats": {"ac": 12, "to_hit": 5, "damage": "1d8+3"}}), RNG))
    model, _ = update(model, msg.Act("update_combatant", Edit(ogre, {"stats": {"ac": 10, "to_hit": 4, "damage": "1d6+2"}}), RNG))
    model, _ = update(model, msg.HitPointsTyped("damage", cyra, "20", RNG))
    while model.timeline.present.active_id != cyra:
        model, _ = update(model, msg.Act("next_turn", Flow(), RNG))
    bar = render.tracker_html(model.timeline, None)
    assert 'data-testid="turn-death-save"' in bar and 'data-testid="attack-open"' not in bar
    crit = resolve(model.timeline.present, "d20_attack", {"attacker": ogre, "target": cyra}, Scripted([20, 3, 4]))
    assert crit.args["crit"] and crit.args["second_failure"] is True
    ui = state.attack_rolled(state.sheet_opened(model.ui, kind="combatant", ident=cyra), pending={**crit.args, "action": crit})
    after, effects = update(replace(model, ui=ui), msg.AttackApplied())
    cyra_now = after.timeline.present.get(cyra)
    assert cyra_now.stat("death_failures") == 2 and after.timeline.cursor == model.timeline.cursor + 1
    toast = next(e for e in effects if isinstance(e, Toast))
    assert "Critical hit: Cyra fails a death save (0 ✓, 2 ✗)" in toast.text, toast.text
    old = model.timeline.do(Action("d20_attack", {k: v for k, v in crit.args.items() if k != "second_failure"}))
    assert old.present.get(cyra).stat("death_failures") == 1  # as saved before: one failure


def test_the_early_view_left_draws_the_open_sheet_as_the_model_has_it():
    """The early view's join taken over (or the display's wait over): the runtime says so and the sheet
    is drawn from the model (web/page/runtime.took_over reads no model of its own)."""
    model = fight()
    assert update(model, msg.EarlyViewLeft()) == (model, (RenderSheet(),))


def test_the_pages_start_and_its_events_are_messages_that_update_answers_from_the_model():
    """Issue 49, item 2: the start-up and the page's events read no model of the runtime's: they are
    messages, and update answers them from the model they came to."""
    from web.app.effects import AskFirstTime, RenderRoller
    from web.app.storage.records import HINT_FIRST, HINT_HOME
    from web.app.update.common import FIRST_RUN_HINT
    from web.app.update.encounters import SAFARI_HINT

    empty, busy = fight(), fight({"name": "Aldric", "hp": 30, "side": "party"})
    assert update(empty, msg.PageDrawn()) == (empty, (Render(), RenderRoller()))
    assert update(empty, msg.PageDrawn(display=True)) == (empty, (Render(),))  # the table display has no roller
    # Ready: the wake lock as the model wants it, the first-run hint on an empty fight only, Safari's in a Safari tab.
    assert update(empty, msg.PageReady())[1] == (KeepAwake(), AskFirstTime(HINT_FIRST), RenderNotices(), AskToKeepStorage())
    assert update(busy, msg.PageReady())[1] == (KeepAwake(), RenderNotices(), AskToKeepStorage())
    assert update(busy, msg.PageReady(safari_tab=True))[1] == (KeepAwake(), AskFirstTime(HINT_HOME), RenderNotices(), AskToKeepStorage())
    # The device meets a hint's mark for the first time (the runtime asked its storage): the hint is said.
    said, effects = update(empty, msg.FirstTime(HINT_FIRST))
    assert said.notices[-1] == FIRST_RUN_HINT and effects == (RenderNotices(),)
    assert update(busy, msg.FirstTime(HINT_HOME))[0].notices[-1] == SAFARI_HINT
    assert "7 days" in SAFARI_HINT.text and SAFARI_HINT.action == "export-all"
    assert update(busy, msg.FirstTime("hint:other")) == (busy, ())
    assert update(busy, msg.LogToggled()) == (busy, (Render(),))
    assert update(busy, msg.AddressChanged()) == (busy, (RenderNotices(),))
    # A file being read: the count on a toast, which is hidden in its time like any other (its number set).
    model, effects = update(busy, msg.FileRead(1))
    assert effects == (Toast("Reading the file: 1 encounter…"),) and model.toast
    assert update(model, msg.FileRead(3))[1] == (Toast("Reading the file: 3 encounters…"),)
