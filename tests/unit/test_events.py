"""web/app/screens: the DOM events each screen turns into messages, read through a fake page in CPython,
and the messages that came with them (sheets, other tabs, links, imports, My characters' forms)
through `update`. The e2e suite drives the same handlers through the real DOM."""

from __future__ import annotations

import random
import re
from dataclasses import replace
from pathlib import Path

import pytest

from pyengine.characters import character_from_dict, character_payload
from pyengine.core_args import Flow, Option, Rename
from pyengine.errors import SchemaError
from pyengine.handoff import view_payload
from pyengine.tracker import Timeline, new_encounter
from tests.unit.pages import FakePage
from tests.unit.scripted import Scripted
from tests.unit.test_update import PARTY, fight, ids
from web.app import messages as msg
from web.app import ui as state
from web.app.effects import (
    AddEncounters,
    ClearLink,
    CloseSheet,
    FillForm,
    HideToast,
    LoadEncounter,
    Refuse,
    Render,
    RenderNotices,
    RenderRolls,
    RenderSheet,
    SetTheme,
    ShowSheet,
    StoreCollection,
    SwitchTo,
    Toast,
    TrimStored,
)
from web.app.exchange import export_encounter, read_import
from web.app.model import Model
from web.app.screens import CHANGES, EVENTS, INPUTS, SUBMITS, handler, screen_of
from web.app.screens.initiative import initiative_sheet_html
from web.app.storage.records import CHARACTERS, ROLLS, Notice
from web.app.update import FIGHT_CHANGED, update
from web.app.views import VIEWS, view_for

ROOT = Path(__file__).resolve().parents[2]


def page(model: Model, inputs: dict | None = None, node: dict | None = None, **kw) -> FakePage:
    return FakePage(model, inputs, node, **kw)


def click(model: Model, action: str, inputs: dict | None = None, **node) -> object:
    found = handler("click", action, model.timeline.present.system)
    assert found is not None, action
    return found(page(model, inputs, {"action": action, **node}))


# -- every event the page can send has its handler ------------------------------------------------

def names_in_source(attribute: str) -> set[str]:
    """Every literal `attribute="name"` written in web/ (the HTML the screens draw)."""
    found = set()
    for path in (ROOT / "web").rglob("*.py"):
        found |= set(re.findall(attribute + r'="([a-z0-9-]+)"', path.read_text()))
    return found


def test_every_tap_the_page_draws_has_a_handler():
    views = set()
    for name in VIEWS:
        views |= set(view_for(name).events)
    drawn = names_in_source("data-action") - {"undo", "redo", "next-turn"}  # the bar's buttons get theirs at start
    assert drawn - set(EVENTS) - views == set()
    assert {"undo", "redo", "next-turn"} <= set(EVENTS)


def test_every_form_and_choice_the_page_draws_has_a_handler():
    assert names_in_source("data-action-submit") <= set(SUBMITS)
    assert names_in_source("data-action-change") <= set(CHANGES)
    assert {"dice-input", "odds-target", "f-name", "srd-search"} == set(INPUTS)


def test_a_notice_button_is_a_tap_named_after_it():
    """render.notices_html names a notice's button notice-<action>: each action offered has its handler."""
    offered = set()
    for path in (ROOT / "web").rglob("*.py"):
        offered |= set(re.findall(r'Notice\("(?:info|warn|error)", [^()]*?"([a-z-]+)", "[A-Z]', path.read_text()))
    assert offered and {f"notice-{a}" for a in offered} - {"notice-export-all"} <= set(EVENTS) | {"notice-export-all"}
    assert "notice-export-all" in EVENTS


# -- the tracker and its bar -------------------------------------------------------------------------

def test_next_turn_carries_the_clock_and_the_start_options_before_the_fight():
    model = fight(*PARTY)
    m = EVENTS["next-turn"](page(model, monotonic=42.5))
    assert isinstance(m, msg.NextTurnTapped) and m.now == 42.5 and m.start_args == {}
    assert EVENTS["toast-undo"](page(model)) == msg.UndoTapped(from_toast=True)


def test_a_combatants_buttons_become_requests_to_the_fight():
    model = fight(*PARTY, started=True)
    goblin = ids(model)["Goblin"]
    damage = click(model, "damage", {"hp-amount": "5"}, id=goblin)
    assert isinstance(damage, msg.HitPointsTyped) and (damage.kind, damage.ident, damage.amount) == ("damage", goblin, "5")
    temp = click(model, "temp", {"hp-amount": "3"}, id=goblin)
    assert temp.kind == "temp_hp"
    after, _ = update(model, damage)
    assert next(c.hp for c in after.timeline.present.combatants if c.id == goblin) == 2
    cond = click(model, "add-condition", {"cond-name": "Prone", "cond-until": "rounds", "cond-rounds": "2"}, id=goblin)
    assert cond.kind == "add_condition" and cond.args.rounds == 2 and cond.args.source == model.timeline.present.active_id


def test_a_number_that_is_not_one_is_refused_by_the_handler():
    model = fight(*PARTY, started=True)
    with pytest.raises(Exception, match="not a whole number"):
        click(model, "add-condition", {"cond-name": "Prone", "cond-rounds": "two"}, id=ids(model)["Goblin"])


def test_the_initiative_step_reads_every_field_and_leaves_empty_ones_to_the_dice():
    model = fight(*PARTY)
    fields = {"[data-testid=init-input]": [("c1", "17", False, "number"), ("c2", "", False, "number")]}
    m = SUBMITS["init-start"](page(model, fields=fields))
    assert isinstance(m, msg.InitiativeEntered) and m.typed == {"c1": 17}


def test_the_initiative_step_takes_totals_or_the_die_alone_as_said():
    """The step says what is typed: the total (die + modifier, shown beside each name), or the die
    alone, when the modifier is added here."""

    model = fight({**PARTY[0], "init_mod": 3}, *PARTY[1:])
    cyra = ids(model)["Cyra"]
    html = initiative_sheet_html(model.timeline.present)
    assert 'data-testid="init-typed"' in html and "Cyra <span class=\"muted\">(+3)</span>" in html
    fields = {"[data-testid=init-input]": [(cyra, "12", False, "number")]}
    assert SUBMITS["init-start"](page(model, fields=fields)).typed == {cyra: 12}
    assert SUBMITS["init-start"](page(model, {"init-typed": "die"}, fields=fields)).typed == {cyra: 15}


def test_the_batch_reads_the_amount_and_who_saved():
    model = fight(*PARTY, started=True)
    m = click(model, "apply-batch", {"batch-amount": "8", "#sheet-body input.half": ["c3"]}, kind="damage")
    assert m.kind == "damage" and m.amount == "8" and m.halves == ("c3",)


# -- the add form ------------------------------------------------------------------------------------

def test_the_add_form_reads_a_group_and_remember():
    model = fight()
    inputs = {"f-name": "Goblin", "f-side": "opponents", "f-pc": "0", "f-max_hp": "7", "f-count": "3", "f-remember": True,
              "f-init_mod": "2", "f-stat-ac": "15", "f-stat-to_hit": "4"}
    m = SUBMITS["save-add"](page(model, inputs))
    assert isinstance(m, msg.CombatantAdded) and m.count == 3 and m.remember
    assert m.fields["name"] == "Goblin" and m.fields["max_hp"] == 7 and m.fields["init_mod"] == 2 and m.fields["stats"]["ac"] == 15
    after, _ = update(model, m)
    assert [c.name for c in after.timeline.present.combatants] == ["Goblin 1", "Goblin 2", "Goblin 3"]
    assert after.templates[0]["name"] == "Goblin"


def test_a_saved_party_member_is_one_tap_and_a_stale_index_is_nothing():
    model = replace(fight(), roster=({"name": "Cyra", "side": "party", "pc": True, "max_hp": 20},))
    m = EVENTS["quick-add"](page(model, node={"source": "roster", "index": "0"}))
    assert isinstance(m, msg.QuickAdded) and m.roster and m.entry["name"] == "Cyra"
    assert EVENTS["quick-add"](page(model, node={"source": "roster", "index": "4"})) is None


def test_choosing_party_ticks_player_character_on_the_add_form_only():
    model = fight()
    assert CHANGES["side-picked"](page(model, {"f-pc": "0", "f-count": "1"}, chosen="party")) == msg.SidePicked("party")
    assert CHANGES["side-picked"](page(model, {"f-pc": "0"}, chosen="party")) is None  # the edit form has no count
    assert update(model, msg.SidePicked("party"))[1][0].value == "1"


# -- the menu ----------------------------------------------------------------------------------------

def test_rename_asks_and_a_cancel_is_nothing():
    model = fight()
    p = page(model, answer="Troll bridge")
    assert EVENTS["rename-encounter"](p).args == Rename("Troll bridge")
    assert p.asked == [("Name of this encounter", "Bridge")]
    assert EVENTS["rename-encounter"](page(model, answer=None)) is None


def test_delete_counts_the_other_encounters_for_the_fresh_ones_name():
    model = fight()
    m = EVENTS["delete-encounter"](page(model, encounters=({"id": "e1"}, {"id": "e2"}, {"id": "e3"}), new_id="e-99"))
    assert m == msg.EncounterDeleted("e-99", 2)


def test_a_system_option_is_read_from_the_select_as_a_number_when_it_is_one():
    model = fight()
    assert CHANGES["set-option"](page(model, node={"key": "crit_miss"}, chosen="2")).args == Option("crit_miss", 2)
    assert CHANGES["set-skip"](page(model, chosen="all")).args == Option("skip_down", "all")


def test_the_theme_follows_the_phone_or_what_was_picked():
    model = fight()
    m = CHANGES["theme-picked"](page(model, chosen="system"))
    assert update(model, m) == (model, (SetTheme("system"), RenderSheet()))  # as the phone is set: the default
    assert update(model, msg.ThemeToggled("light"))[1][0] == SetTheme("light")
    assert update(model, msg.ThemeToggled("mauve")) == (model, ())


def test_switching_encounters_loads_the_other_and_closes_the_menu():
    model = replace(fight(), ui=state.sheet_opened(state.Ui(), kind="menu"))
    after, effects = update(model, EVENTS["switch-encounter"](page(model, node={"id": "e2"})))
    assert after.ui.sheet is None and effects == (LoadEncounter("e2"), CloseSheet())
    same, effects = update(model, msg.EncounterPicked("e1"))
    assert same.ui.sheet is None and effects == (CloseSheet(),)


# -- sheets and the attack panel -----------------------------------------------------------------------

def test_attack_opens_the_last_target_still_standing_else_the_first_foe():
    model = fight(*PARTY, started=True)  # Cyra's turn
    after, effects = update(model, msg.AttackLastTapped())
    assert after.ui.sheet == ("combatant", ids(model)["Goblin"]) and effects == (ShowSheet(),)
    model = replace(model, ui=replace(model.ui, last_target=ids(model)["Ogre"]))
    assert update(model, msg.AttackLastTapped())[0].ui.sheet == ("combatant", ids(model)["Ogre"])


def test_forms_take_the_focus_and_closing_twice_is_once():
    model = fight(*PARTY)
    after, effects = update(model, msg.SheetOpened("add"))
    assert after.ui.sheet == ("add", None) and effects == (ShowSheet(True),)
    closed, effects = update(after, msg.SheetClosed())
    assert closed.ui.sheet is None and effects == (CloseSheet(),)
    assert update(closed, msg.SheetClosed()) == (closed, ())  # the dialog's own close event after ours


def test_the_attack_panel_is_read_whole_and_typing_redraws_later():
    model = fight(*PARTY, started=True)
    model, _ = update(model, msg.SheetOpened("combatant", ids(model)["Ogre"]))
    fields = {"#sheet-body [data-attack-key]": [("attacker", "c1", False, "select-one"), ("adv", "", True, "checkbox"),
                                                ("bonus", "", False, "text")]}
    m = CHANGES["attack-config"](page(model, fields=fields, typing=True))
    assert m == msg.AttackConfigured({"attacker": "c1", "adv": True, "bonus": None}, typing=True)
    after, effects = update(model, m)
    assert after.ui.attack == {"attacker": "c1", "adv": True, "bonus": None, "pending": None} and effects == () and after.sheet_due
    assert update(model, m.but(typing=False))[1] == (RenderSheet(),)


def test_enchanted_realms_adds_the_attackers_skill_boxes_to_the_panel():
    model = fight(system="realms")
    inputs = {".atk-skill@data-owner": "c1", ".atk-skill": ["Sword", "Shield"]}
    m = CHANGES["attack-config"](page(model, inputs, fields={}))
    assert m.config == {"skills": "Sword, Shield", "skills_of": "c1"}


def test_the_blind_shot_applies_the_miss_then_shoots():
    model = fight(system="realms")
    pending = {"attacker": "c1", "target": "c2", "kept": [3, 5], "damage_type": "piercing"}
    model = replace(model, ui=replace(model.ui, attack={"pending": pending}))
    applied, shot = click(model, "er-blind-shot", id="c1")
    assert applied == msg.AttackApplied() and shot.kind == "er_blind_shot" and shot.args.faces == [3, 5]
    assert click(replace(model, ui=replace(model.ui, attack={"pending": None})), "er-blind-shot") is None


# -- what comes from elsewhere -----------------------------------------------------------------------

def test_another_tabs_fight_is_shown_and_said():
    model = fight(*PARTY)
    theirs = fight(*PARTY, started=True).timeline
    after, effects = update(model, msg.FightChangedElsewhere(theirs, conflict=True))
    assert after.timeline is theirs and effects == (Render(elsewhere=True),) and after.notices[-1].level == "warn"
    assert update(model, msg.FightChangedElsewhere(theirs))[0].notices[-1].text == "Updated with a change made in another tab."


def test_another_tabs_collection_replaces_ours_and_redraws_who_shows_it():
    model = replace(fight(), ui=state.sheet_opened(state.Ui(), kind="characters"))
    after, effects = update(model, msg.CollectionChanged(CHARACTERS, ({"id": "k9", "name": "Bryn"},)))
    assert after.characters == ({"id": "k9", "name": "Bryn"},) and effects == (RenderSheet(collection=CHARACTERS),)
    after, effects = update(model, msg.CollectionChanged(ROLLS, ({"expr": "1d20", "total": 4},)))
    assert after.rolls[0]["total"] == 4 and effects == (RenderRolls(), RenderSheet(collection=ROLLS))
    # The open screen says which collections it shows: the runtime draws it again for those alone.
    screen = screen_of(model.ui)
    assert screen is not None and screen.redrawn_for(CHARACTERS) and not screen.redrawn_for(ROLLS)
    # The list of encounters (the runtime's): drawn again when a screen is open, if that screen shows it.
    assert update(model, msg.CollectionChanged("index", ())) == (model, (RenderSheet(collection="index"),))
    assert not screen.redrawn_for("index") and screen_of(state.sheet_opened(state.Ui(), kind="menu")).redrawn_for("index")
    closed = replace(model, ui=state.Ui())
    assert update(closed, msg.CollectionChanged("index", ())) == (closed, ())


def test_storage_kept_is_in_the_model_and_redraws_the_menu():
    model = replace(fight(), ui=state.sheet_opened(state.Ui(), kind="menu"))
    after, effects = update(model, msg.StorageKept(True))
    assert after.storage_kept is True and effects == (RenderSheet(),)


def test_a_players_view_link_opens_at_once_and_a_broken_one_is_said():
    model = fight(*PARTY, started=True)
    after, effects = update(model, msg.ViewOpened(view_payload(model.timeline.present)))
    assert after.ui.sheet == ("view", None) and effects == (ClearLink(), ShowSheet())
    broken, effects = update(model, msg.ViewOpened("not-a-view"))
    assert broken.ui.sheet is None and effects == (ClearLink(), RenderNotices()) and broken.notices[-1].level == "error"


def test_trimming_keeps_the_last_steps_and_the_newest_rolls_and_drops_the_offer():
    model = fight(*PARTY, started=True)
    for _ in range(30):
        model, _ = update(model, msg.Act("next_turn", Flow(), random.Random(0)))
    full = Notice("error", "Storage is full", "trim-history", "Trim history")
    model = replace(model, rolls=tuple({"expr": "1d20", "total": i} for i in range(40)), notices=(full,))
    after, effects = update(model, msg.HistoryTrimmed(20))
    assert len(after.timeline.actions) == 20 and len(after.rolls) == 20 and after.rolls[0]["total"] == 0
    assert after.notices == () and after.timeline.present == model.timeline.present
    assert effects == (TrimStored(20), StoreCollection(ROLLS), RenderRolls(), *FIGHT_CHANGED)


def test_an_import_lists_its_fights_under_fresh_ids_and_a_bad_file_changes_nothing():
    model = fight()
    other = fight(*PARTY).timeline
    after, effects = update(model, msg.FileImported(read_import(export_encounter(other)), "e-imp", 3))
    added = effects[0]
    assert isinstance(added, AddEncounters) and [t.present.id for t in added.timelines] == ["e-imp-3"]
    assert [c.name for c in added.timelines[0].present.combatants] == ["Cyra", "Dax", "Goblin", "Ogre"]
    assert CloseSheet() in effects and Render() in effects
    # What was stored is said by count, as the runtime stored it (storage may refuse some).
    said, _ = update(after, msg.EncountersImported(1, 1))
    assert said.notices[-1].text == "Imported 1 encounter."
    said, _ = update(after, msg.EncountersImported(10, 30))
    assert said.notices[-1].text.startswith("Imported 10 of 30 encounters: storage is full, the other 20 were not stored")


def test_an_import_stores_one_fight_a_task_says_how_far_it_is_and_shows_the_last_one_stored():
    """The runtime stores the first of AddEncounters' fights with the model the effect came with and says
    EncountersImported a task later with the rest: update asks for the next (its progress on a toast),
    and, once none is left or storage refused one, says the count and shows the last one stored."""
    model = fight()
    first, second, third = (fight(*PARTY).timeline for _ in range(3))
    after, effects = update(model, msg.EncountersImported(1, 3, (second, third), first))
    assert effects == (Toast("Importing: 1 of 3 stored…"), AddEncounters((second, third), 1, 3, first)) and after.toast
    after, effects = update(after, msg.EncountersImported(3, 3, (), third))
    assert effects == (SwitchTo(third), HideToast(), RenderNotices(), Render()) and not after.toast
    assert after.notices[-1].text == "Imported 3 encounters."
    # Storage refused the second: the first is shown, the count said.
    after, effects = update(model, msg.EncountersImported(1, 3, (), first))
    assert effects[0] == SwitchTo(first) and after.notices[-1].text.startswith("Imported 1 of 3 encounters: storage is full")
    # Refused at the first: nothing to show.
    after, effects = update(model, msg.EncountersImported(0, 2))
    assert not any(isinstance(e, SwitchTo) for e in effects) and after.notices[-1].text.startswith("Imported 0 of 2")
    with pytest.raises(SchemaError):
        read_import("{not json")  # the runtime says "Nothing was imported: …" and dispatches nothing



# -- My characters ---------------------------------------------------------------------------------------

BRYN = {"v": 1, "id": "k1", "name": "Bryn", "system": "generic", "max_hp": 18, "init_mod": 2, "stats": {"to_hit": 4},
        "attacks": [{"name": "Longsword", "stats": {"to_hit": 5, "damage": "1d8+3"}, "config": {}},
                    {"name": "Bow", "stats": {"to_hit": 6, "damage": "1d6+2"}, "config": {}}]}


def on(model: Model, kind: str, ident: str) -> Model:
    return replace(model, ui=state.sheet_opened(model.ui, kind=kind, ident=ident))


def test_a_character_link_is_offered_then_joins_the_fight_as_one_step():
    model = fight(*PARTY)
    payload = character_payload(character_from_dict(BRYN))
    offered, effects = update(model, msg.CharacterOffered(payload))
    assert offered.notices[-1].action == "add-character" and effects == (RenderNotices(),)
    joined, effects = update(offered, msg.CharacterTaken(True, "e-x", Scripted([])))
    assert [c.name for c in joined.timeline.present.combatants][-1] == "Bryn"
    assert joined.timeline.cursor == model.timeline.cursor + 1 and joined.ui.pending_character is None
    assert effects[0] == ClearLink() and joined.notices[-1].text == "Bryn joined the fight."
    assert not any(n.action == "add-character" for n in joined.notices)


def test_a_character_already_in_the_fight_is_updated_or_copied_on_purpose_never_silently_twice():
    """A second scan of Bryn's link: the offer says Bryn is in the fight; Update changes that fighter
    from the link (its HP kept, one step), Add a copy adds "Bryn 2"."""
    model = fight(*PARTY)
    payload = character_payload(character_from_dict(BRYN))
    offered, _ = update(model, msg.CharacterOffered(payload))
    joined, _ = update(offered, msg.CharacterTaken(True, "e-x", Scripted([])))
    bryn = next(c for c in joined.timeline.present.combatants if c.name == "Bryn")
    joined, _ = update(joined, msg.HitPointsTyped("damage", bryn.id, "5", Scripted([])))
    stronger = character_payload(character_from_dict({**BRYN, "max_hp": 30, "init_mod": 4}))
    again, _ = update(joined, msg.CharacterOffered(stronger))
    assert again.notices[-1].action == "update-character" and "already in this fight" in again.notices[-1].text
    assert dict(again.notices[-1].more)["add-character"] == "Add a copy"
    updated, effects = update(again, msg.CharacterTaken(True, "e-y", Scripted([]), update=True))
    now = updated.timeline.present.get(bryn.id)
    assert (now.max_hp, now.init_mod, now.hp) == (30, 4, 13) and updated.timeline.cursor == joined.timeline.cursor + 1
    assert [c.name for c in updated.timeline.present.combatants].count("Bryn") == 1 and ClearLink() in effects
    copied, _ = update(again, msg.CharacterTaken(True, "e-y", Scripted([])))
    assert [c.name for c in copied.timeline.present.combatants][-2:] == ["Bryn", "Bryn 2"]
    assert not any(n.action == "update-character" for n in copied.notices)


def test_a_kept_character_whose_id_is_taken_gets_a_fresh_one():
    model = replace(fight(), characters=(BRYN,))
    offered, _ = update(model, msg.CharacterOffered(character_payload(character_from_dict(BRYN))))
    kept, effects = update(offered, msg.CharacterTaken(False, "e-abcdef", Scripted([])))
    assert [c["id"] for c in kept.characters] == ["k1", "k2-abcdef"] and StoreCollection(CHARACTERS) in effects


def test_a_pasted_code_that_is_not_one_is_refused_on_the_form():
    model = on(fight(), "characters", None)
    m = EVENTS["import-character"](page(model, {"character-code": "hello"}))
    after, effects = update(model, m)
    assert after is model and isinstance(effects[0], Refuse) and effects[0].text.startswith("Nothing was added")
    broken, effects = update(model, msg.CharacterOffered("hello"))  # from a link: said, and the link cleared
    assert effects == (ClearLink(), RenderNotices()) and broken.notices[-1].level == "error"


def test_a_saved_attack_fills_the_form_and_is_removed_in_place():
    model = on(replace(fight(), characters=(BRYN,)), "character-edit", "k1")
    _, effects = update(model, EVENTS["pick-attack"](page(model, node={"index": "1"})))
    assert effects == (FillForm((("a-name", "Bow"), ("a-stat-to_hit", "6"), ("a-stat-damage", "1d6+2"),
                                 ("a-stat-crit_on", "20")), focus="a-name"),)
    after, effects = update(model, EVENTS["remove-attack"](page(model, node={"index": "0"})))
    assert [a["name"] for a in after.characters[0]["attacks"]] == ["Bow"] and effects == (StoreCollection(CHARACTERS), RenderSheet())


def test_the_attack_panels_options_are_kept_in_the_chosen_attack():
    model = replace(fight(), characters=(BRYN,))
    model, _ = update(model, msg.CharacterOpened("k1", 1))
    model = replace(model, ui=replace(model.ui, attack={"adv": "adv", "pending": {"x": 1}, "attacker": "me"}))
    after, effects = update(model, msg.AttackOptionsSaved())
    assert after.characters[0]["attacks"][1]["config"] == {"adv": "adv"} and effects[-1] == Toast("Bow keeps these options.")


def test_the_practice_target_is_read_and_a_bad_number_refused():
    model = on(replace(fight(), characters=(BRYN,)), "character", "k1")
    m = CHANGES["practice-target"](page(model, {"t-name": "Ogre", "t-hp": "30", "t-at_least": "8", "t-stat-ac": "12"}, typing=True))
    after, effects = update(model, m)
    assert after.ui.practice["name"] == "Ogre" and after.ui.practice["hp"] == 30 and after.ui.practice["target"] == {"ac": 12}
    assert effects == () and after.sheet_due  # drawn once typing stops (test_timers)
    _, effects = update(model, m.but(hp="lots"))
    assert isinstance(effects[0], Refuse)


def test_the_character_form_reads_its_own_stats_and_the_attack_below():
    model = on(replace(fight(), characters=(BRYN,)), "character-edit", "k1")
    inputs = {"k-name": "Bryn", "k-max_hp": "20", "k-init_mod": "1", "a-name": "Dagger", "a-stat-to_hit": "3", "a-stat-damage": "1d4"}
    m = click(model, "save-attack", inputs)
    assert isinstance(m, msg.CharacterSaved) and m.edited == "k1" and m.attack == ("Dagger", {"to_hit": "3", "damage": "1d4"})
    after, _ = update(model, m)
    assert [a["name"] for a in after.characters[0]["attacks"]] == ["Longsword", "Bow", "Dagger"]
    assert after.characters[0]["max_hp"] == 20


def test_a_new_encounter_gets_the_next_number():
    model = fight()
    m = EVENTS["new-encounter"](page(model, {"new-system": "strife"}, encounters=({"id": "e1"},), new_id="e-n"))
    assert m == msg.EncounterCreated("strife", "e-n", 1)
    t = Timeline.start(new_encounter("e-n", "Encounter 2", "strife"))
    assert update(model, m)[1][0].timeline.present.name == t.present.name
