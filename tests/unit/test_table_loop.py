"""The everyday loop at the table (first part): a changed initiative re-sorts the order, plain
messages for typed numbers, saves that use the sheet's Body modifier, Defend shown as done, the
roller's quick buttons, struck-through dice in the history."""

from __future__ import annotations

from pathlib import Path

import pytest

from pyengine.errors import RuleError
from pyengine.tracker import Timeline, new_encounter, resolve
from tests.unit.helpers import step
from tests.unit.scripted import Scripted
from web.app import render
from web.app.quick import add_die, advantage
from web.app.screens.menu import encounter_details, menu_sheet_html
from web.app.views.realms import stances_html


def generic() -> Timeline:
    t = Timeline.start(new_encounter("e1", "Wolves"))
    for name, init in (("Aria", 8), ("Wolf 1", 12), ("Wolf 2", 10)):
        t = step(t, "add_combatant", combatant={"name": name, "initiative": init, "max_hp": 10})
    return step(t, "start_combat", Scripted([]))


def names(t) -> list[str]:
    return [c.name for c in t.present.combatants]


def test_editing_initiative_mid_fight_re_sorts_and_keeps_whose_turn_it_is():
    t = generic()
    assert names(t) == ["Wolf 1", "Wolf 2", "Aria"] and t.present.active_id == "c2"
    t = step(t, "update_combatant", id="c1", fields={"initiative": 19})
    assert names(t) == ["Aria", "Wolf 1", "Wolf 2"]
    assert t.present.active_id == "c2"  # still Wolf 1's turn
    t = step(t, "next_turn")
    assert t.present.get(t.present.active_id).name == "Wolf 2"
    t = step(t, "update_combatant", id="c1", fields={"initiative": 10})  # ties go after those already there
    assert names(t) == ["Wolf 1", "Wolf 2", "Aria"]
    t = t.undo()
    assert names(t) == ["Aria", "Wolf 1", "Wolf 2"]


def test_editing_something_else_keeps_a_delayed_order():
    t = generic()
    t = step(t, "delay", id="c2", after="c1")  # Wolf 1 waits until after Aria
    before = names(t)
    t = step(t, "update_combatant", id="c3", fields={"notes": "limping"})
    assert names(t) == before


@pytest.mark.parametrize("fields, message", [
    ({"max_hp": -5}, "Max HP must be from 1 to 1,000,000."),
    ({"max_hp": 0}, "Max HP must be from 1 to 1,000,000."),
    ({"temp_hp": -1}, "Temporary HP must be from 0 to 1,000,000."),
    ({"initiative": "x"}, "Initiative must be a whole number."),
])
def test_typed_numbers_get_plain_messages(fields, message):
    t = Timeline.start(new_encounter("e1", "X"))
    with pytest.raises(RuleError) as info:
        resolve(t.present, "add_combatant", {"combatant": {"name": "Aria", **fields}})
    assert str(info.value) == message


def test_enchanted_realms_body_saves_use_the_sheets_body_modifier():
    t = Timeline.start(new_encounter("e1", "Cave", system="realms"))
    t = step(t, "add_combatant", combatant={"name": "Kael", "initiative": 5, "stats": {"body_mod": 1}})
    t = step(t, "add_combatant", combatant={"name": "Ogre", "initiative": 3, "stats": {"body_mod": 4}})
    kael = resolve(t.present, "er_save", {"id": "c1", "kind": "body", "dc": 12}, Scripted([10]))
    ogre = resolve(t.present, "er_save", {"id": "c2", "kind": "body", "dc": 12}, Scripted([10]))
    assert (kael.args["result"]["total"], kael.args["result"]["success"]) == (11, False)
    assert (ogre.args["result"]["total"], ogre.args["result"]["success"]) == (14, True)
    sight = resolve(t.present, "er_save", {"id": "c2", "kind": "sight", "dc": 12}, Scripted([10]))
    assert sight.args["result"]["total"] == 10  # the Body modifier is for body saves only


def test_after_defend_the_sheet_no_longer_offers_defend_or_a_reaction():
    t = Timeline.start(new_encounter("e1", "Cave", system="realms"))
    for name, init in (("Mira", 8), ("Ogre", 3)):
        t = step(t, "add_combatant", combatant={"name": name, "initiative": init})
    t = step(t, "start_combat", Scripted([]))
    html = stances_html(t.present, t.present.get("c1"))
    assert 'data-testid="defend">' in html and 'data-testid="use-reaction">' in html
    t = step(t, "er_stance", id="c1", stance="defend")
    html = stances_html(t.present, t.present.get("c1"))
    assert 'data-testid="defend" disabled' in html and 'data-testid="use-reaction" disabled' in html
    assert "Defending until its next turn" in html


def test_quick_dice_build_an_expression_and_advantage_keeps_modifiers():
    assert add_die("", 6) == "1d6" and add_die("1d6", 6) == "2d6" and add_die("2d6", 8) == "2d6+1d8"
    assert advantage("1d20+5", True) == "2d20kh1+5"
    assert advantage("2d20kh1+5", False) == "2d20kl1+5"
    assert advantage("5", True) == "2d20kh1+5" and advantage("-1", False) == "2d20kl1-1"
    assert advantage("11d20+2", True) == "2d20kh1"  # only a single d20 is rewritten


def test_dropped_dice_are_struck_through_everywhere_in_a_colour_of_their_own():
    """The history, the roller's result, the attack panels and the log show ~~1~~ struck through
    (class "dropped", not a natural 1's red), never as raw markdown, and never as markup from text."""
    from pyengine.dice import roll
    from web.app.html import roll_text

    html = render.history_html([{"expr": "4d6kh3", "total": 14, "text": "4d6kh3 (6, 5, ~~1~~, 3) = 14", "at": 1}])
    assert '<s class="dropped">1</s>' in html and "~~" not in html
    assert "<s>" not in render.history_html([{"expr": "x", "total": 1, "text": "<s>1</s>", "at": 1}]).replace("&lt;s&gt;", "")
    from tests.unit.scripted import Scripted

    result = render.roll_result_html(roll("2d20kh1", Scripted([1, 15])))  # a natural 1, dropped
    assert "~~" not in result and '<s class="dropped">1</s>' in result
    import re

    assert 'class="die dropped"' in result and not re.search(r'class="[^"]*fumble', result)  # not a natural 1's red
    assert roll_text("1d20 (~~<b>~~) = 3") == '1d20 (<s class="dropped">&lt;b&gt;</s>) = 3'
    for name in ("generic", "laurels", "strife", "realms"):
        source = (Path(__file__).parents[2] / "web" / "app" / "views" / f"{name}.py").read_text()
        assert 'data-testid="attack-result">{roll_text(' in source  # every attack panel's roll text


def test_the_encounter_list_shows_system_round_origin_and_when_last_played():
    from web.app.storage.records import entry_details

    now = 1_800_000_000.0
    entry = {"id": "e1", "name": "Cave", "system": "realms", "round": 3, "from": "link", "at": int((now - 7200) * 1000)}
    assert encounter_details(entry, now) == "Enchanted Realms · round 3 · from a shared link · 2 h ago"
    assert encounter_details({"id": "e2", "name": "X", "at": int(now * 1000)}, now) == "just now"
    html = menu_sheet_html([entry], "e1", set(), "dark", "npcs", [], now=now)
    assert "Enchanted Realms · round 3" in html
    # What is stored is checked when read back: odd values are dropped, never shown.
    odd = {"system": "x" * 100, "round": -1, "at": True, "from": "elsewhere", "source": 5}
    assert entry_details(odd, {"id": "e3", "name": "Y"}) == {"id": "e3", "name": "Y"}
    assert entry_details(entry, {"id": "e1", "name": "Cave"}) == {"id": "e1", "name": "Cave", "system": "realms", "round": 3, "from": "link",
                                                                  "at": entry["at"]}


def test_a_number_field_that_may_be_negative_has_a_keypad_with_a_minus():
    """inputmode="numeric" is the iPhone's digits-only pad: no field that takes a negative number
    uses it (modifiers, typed initiative, the odds' "at least", a system's signed stats)."""
    import re

    from pyengine.rules import get_system
    from pyengine.tracker import new_encounter
    from web.app.html import attack_input, stat_fields_html

    html = "".join(render.add_sheet_html(new_encounter("e", "x", system=s), [], []) for s in ("generic", "realms", "strife", "laurels"))
    html += render.roller_html() + attack_input("modifier", "Extra modifier to hit", 0, "number")
    for s in ("generic", "realms", "strife", "laurels"):
        html += stat_fields_html(get_system(s).stat_fields, None)
    for tag in re.findall(r"<input[^>]*>", html):
        signed = re.search(r'min="-', tag) or re.search(r'id="(f-init_mod|f-initiative|odds-target|atk-modifier)"', tag)
        if signed:
            assert 'inputmode="numeric"' not in tag, tag
    assert 'id="f-init_mod"' in html and 'id="odds-target"' in html
