"""Rendering: hostile text always comes out as text; the active row is marked; odds render."""

from __future__ import annotations

from html.parser import HTMLParser

from pyengine.dice import distribution, roll
from pyengine.tracker import Timeline, new_encounter, resolve
from tests.unit.scripted import Scripted
from web.app import render
from web.app.screens.menu import menu_sheet_html
from web.app.views import laurels as laurels_view

HOSTILE = ['<img src=x onerror=alert(1)>', '"><script>alert(1)</script>', "' onmouseover='x", "</li><li>"]


class Collect(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def parsed(html: str) -> Collect:
    c = Collect()
    c.feed(html)
    return c


def hostile_timeline() -> Timeline:
    t = Timeline.start(new_encounter("e1", HOSTILE[1]))
    for i, name in enumerate(HOSTILE):
        t = t.do(resolve(t.present, "add_combatant", {"combatant": {"name": name, "notes": name, "max_hp": 5, "initiative": 10 - i}}))
    t = t.do(resolve(t.present, "start_combat"))
    t = t.do(resolve(t.present, "add_condition", {"id": "c1", "name": HOSTILE[0], "until": "never"}))
    return t


def test_hostile_names_render_as_text_everywhere():
    t = hostile_timeline()
    enc = t.present
    pages = [
        render.tracker_html(t), render.log_html(t.log()), render.combatant_sheet_html(enc, enc.get("c1")),
        render.add_sheet_html(enc, [{"name": HOSTILE[0]}], [], edit=enc.get("c2")),
        menu_sheet_html([{"id": "e1", "name": HOSTILE[0]}], "e1", set(), "dark", "npcs", []),
    ]
    for html in pages:
        doc = parsed(html)
        assert not any(tag in ("img", "script") for tag, _ in doc.tags)
        assert not any(k.startswith("on") for _, attrs in doc.tags for k in attrs)
    text = "".join(parsed(pages[0]).text)
    for name in HOSTILE:
        assert name in text


def test_active_row_has_aria_current_and_ids():
    t = hostile_timeline()
    doc = parsed(render.tracker_html(t))
    rows = [attrs for tag, attrs in doc.tags if attrs.get("data-testid") == "combatant-row"]
    assert [r["data-combatant-id"] for r in rows] == ["c1", "c2", "c3", "c4"]
    assert [r.get("aria-current") for r in rows] == ["true", None, None, None]


def test_roll_result_marks_dropped_exploded_and_crits():
    html = render.roll_result_html(roll("3d20kh2", Scripted([20, 1, 7])))
    doc = parsed(html)
    classes = [a["class"] for t, a in doc.tags if t == "span" and "die" in a.get("class", "")]
    assert classes == ["die crit", "die dropped", "die"]  # a dropped 1 is struck through, not a fumble's red


def test_odds_panel_shows_mean_and_chance():
    html = render.odds_html(distribution("2d6"), 7)
    assert "Mean <b>7.00</b>" in html
    assert "P(total ≥ 7) = <b>58.33%</b>" in html


def test_strife_screens_keep_hostile_text_as_text_and_explain_bad_input():
    t = Timeline.start(new_encounter("e1", "Pass", system="strife"))
    for i, name in enumerate(HOSTILE):
        stats = {"weapon": name if i == 0 else "1d6", "power": "2d6", "parry": 20}
        t = t.do(resolve(t.present, "add_combatant", {"combatant": {"name": name, "side": "party" if i % 2 else "opponents",
                                                                   "init_mod": 10 * i, "max_hp": 10, "stats": stats}}))
    t = t.do(resolve(t.present, "start_combat", {}, Scripted([])))
    enc = t.present
    html = render.tracker_html(t)
    for c in enc.combatants:
        html += render.combatant_sheet_html(enc, c, {"attacker": None, "pending": None, "riders": "Stun 20"})
    tags = parsed(html).tags
    assert not any(tag in ("img", "script") for tag, _ in tags)
    assert not any(k.startswith("on") for _, attrs in tags for k in attrs)
    assert "turn-panel" in html and "P(critical miss)" in html
    # the first combatant's weapon is not dice notation: its attack panel says so, nothing breaks
    victim = enc.combatants[1]
    first = next(c for c in enc.combatants if c.stat("weapon") == HOSTILE[0])
    sheet = render.combatant_sheet_html(enc, victim, {"attacker": first.id, "pending": None})
    assert 'data-testid="attack-error"' in sheet and "weapon damage" in sheet
    bad = render.combatant_sheet_html(enc, victim, {"attacker": None, "pending": None, "riders": "Stun lots"})
    assert "a rider is a name and a percentage" in bad


def test_realms_screens_keep_hostile_text_as_text():
    t = Timeline.start(new_encounter("e1", "Crypt", system="realms"))
    for i, name in enumerate(HOSTILE):
        stats = {"skills": f"melee fighting, {name}", "damage_type": "edged", "resistant": "edged" if i else name, "ac_types": name}
        t = t.do(resolve(t.present, "add_combatant", {"combatant": {"name": name, "side": "party" if i % 2 else "opponents",
                                                                   "initiative": 10 - i, "max_hp": 10, "stats": stats}}))
    t = t.do(resolve(t.present, "start_combat", {}, Scripted([])))
    t = t.do(resolve(t.present, "er_stance", {"id": t.present.active_id, "stance": "ready", "trigger": HOSTILE[1]}))
    enc = t.present
    html = render.tracker_html(t)
    for c in enc.combatants:
        html += render.combatant_sheet_html(enc, c, {"attacker": None, "pending": None, "adv": HOSTILE[0]}, t.log())
    tags = parsed(html).tags
    assert not any(tag in ("img", "script") for tag, _ in tags)
    assert not any(k.startswith("on") for _, attrs in tags for k in attrs)
    assert 'data-testid="attack-error"' in html  # a hostile damage type or AC entry is explained, not executed


def test_laurels_attack_panel_defaults_to_the_acting_side_and_says_when_out_of_turn():
    t = Timeline.start(new_encounter("e1", "Bridge", system="laurels"))
    for name, side in (("Tombril", "party"), ("Giant", "opponents"), ("Orc", "opponents")):
        t = t.do(resolve(t.present, "add_combatant", {"combatant": {"name": name, "side": side, "max_hp": 20,
                                                                    "stats": {"level": 1, "die": 6}}}))
    t = t.do(resolve(t.present, "start_combat", {}, Scripted([2])))  # 2: the opponents first
    enc = t.present
    html = laurels_view.attack_panel_html(enc, enc.get("c1"), None, False, False, None)
    assert 'value="c2" selected' in html and "out of turn" not in html
    html = laurels_view.attack_panel_html(enc, enc.get("c2"), "c1", False, False, None)
    assert "Tombril is out of turn: it is the opponents&#x27; turn" in html


def test_an_exploding_chart_gives_the_likely_range_and_names_the_cut():
    html = render.odds_html(distribution("1d6!"), None)
    assert "mostly 1–29 (up to 95 in rare chains)" in html and "Chains of exploding dice or crits" in html
    plain = render.odds_html(distribution("2d6"), None)
    assert "range 2–12" in plain and "Chains" not in plain


def test_the_range_says_chains_only_where_they_exist_and_an_estimate_its_possible_range():
    """A d20 crit's doubled damage has a long tail but no chains; an estimate's rolls only show the
    likely range: the possible one is said beside it."""
    import random

    from pyengine.dice import Estimate, parse, sample
    from pyengine.odds import possible_range

    crit = render.odds_html(distribution("1d20 >= 20 * 10 + 1d100"), None)
    assert "rare chains" not in crit
    long_tail = render.odds_html(distribution("{1d100, 1d100, 1d100}kh1 * (1d20 >= 20) + 1d4"), None)
    assert "rare chains" not in long_tail
    est = sample(parse("1000d6"), Estimate(), random.Random(0), 300)
    html = render.odds_html(est.distribution(), None, est, possible_range(parse("1000d6")))
    assert "possible 1000–6000" in html and "likely" in html and "range 3" not in html
    assert possible_range(parse("4d6!kh3")) == (3, 18) and possible_range(parse("3d6!")) == (3, None)
    assert possible_range(parse("1d20r1+2")) == (4, 22) and possible_range(parse("5d10>=8f1")) == (-5, 5)
    assert possible_range(parse("2d6 - 1d4 * 3")) == (-10, 9) and possible_range(parse("7/2")) is None
    assert possible_range(parse("4d6!pkh3"))[0] == 0  # penetrating: an added die may count 0


def test_before_the_start_the_list_is_sorted_by_known_initiative_then_as_added():
    t = Timeline.start(new_encounter("e1", "t", system="generic"))
    for name, init in (("Goblin", 5), ("Borin", None), ("Aria", 18), ("Cyra", 5), ("Dax", None)):
        t = t.do(resolve(t.present, "add_combatant", {"combatant": {"name": name, "max_hp": 9, "initiative": init}}))
    assert [c.name for c in render.shown_order(t.present)] == ["Aria", "Goblin", "Cyra", "Borin", "Dax"]
    html = render.tracker_html(t)
    assert [html.index(f">{n}") for n in ("Aria", "Goblin", "Cyra", "Borin", "Dax")] == sorted(html.index(f">{n}") for n in ("Aria", "Goblin", "Cyra", "Borin", "Dax"))
    realms = Timeline.start(new_encounter("e2", "r", system="laurels"))
    for name, init in (("A", 1), ("B", 9)):
        realms = realms.do(resolve(realms.present, "add_combatant", {"combatant": {"name": name, "max_hp": 9, "initiative": init}}))
    assert [c.name for c in render.shown_order(realms.present)] == ["A", "B"]  # sides take turns there: kept as added
