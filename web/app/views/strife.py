"""Realm of Strife on screen: the add-sheet fields, row chips, the turn checklist, the attack panel
and the class resources. Pure functions state -> HTML, like render.py; every user text escaped. `VIEW` is what render.py
and main.py ask."""

from __future__ import annotations

from typing import Any

from pyengine.errors import EngineError
from pyengine.model import Combatant, Encounter, Event
from pyengine.rules import System, system_of
from pyengine.systems.strife import ATTACK_KINDS, RESOURCES, Bottom, Part, Resource, acting, attack_odds, build_spec
from web.app.html import at_least, attack_input, esc, odds_html, roll_text
from web.app.html import attack_check as _check
from web.app.html import attack_select as _select
from web.app.html import pct as _pct
from web.app.messages import Act
from web.app.views import Page, View, attack_error_html, attacker_choice, datum

__all__ = ["VIEW", "StrifeView", "row_chips", "turn_panel_html", "start_options_html", "attack_panel_html", "resources_html",
           "DEFAULT_ATTACK"]

def _number(key: str, label: str, value: Any) -> str:
    return attack_input(key, label, value, "number")


KIND_LABELS = {"physical": "Physical (weapon vs AC)", "spirit": "Non-physical (power vs Resistance)",
               "combined": "Combined (weapon + spirit portion)", "mixed": "Combined damage (lowest defence)"}
USE_LABELS = {"action": "the Action", "instant": "an Instant", "direct": "a direct-damage Instant (not 4-3-2)",
              "free": "a free attack (disengage)"}
DEFAULT_ATTACK = {"kind": "physical", "use": "action", "weapon": "main", "ranged": False, "flying": False, "missile": False,
                  "blockable": False, "inches": "0", "modifier": "0", "bonus": "0", "targets": "1", "riders": ""}


def _resource_text(c: Combatant, key: str) -> str | None:
    label, has_max = RESOURCES[key]
    value = c.stat(key, 0) or 0
    top = c.stat(f"{key}_max", 0) or 0 if has_max else 0
    if not value and not top:
        return None
    return f"{label} {value}/{top}" if has_max else f"{label} {value}"


def row_chips(enc: Encounter, c: Combatant) -> str:
    chips = "".join(f'<span class="chip res" data-testid="resource-chip">{esc(t)}</span>'
                    for t in (_resource_text(c, k) for k in RESOURCES) if t)
    if enc.started and c.id == acting(enc):
        parts = dict(enc.turn).get("parts", [])
        chips += "".join(f'<span class="chip flag">{esc(p)} ✓</span>' for p in parts)
    return chips


def start_options_html(enc: Encounter) -> str:
    width = int(enc.option("crit_miss", 5))
    choices = "".join(f'<option value="{n}"{" selected" if n == width else ""}>{"none" if n == 0 else f"1–{n}"}</option>' for n in range(0, 11))
    return (f'<label class="field">Critical miss on a natural<select data-action-change="set-option" data-key="crit_miss" '
            f'data-testid="option-crit-miss">{choices}</select></label>'
            '<label class="check"><input type="checkbox" id="battle-soon" data-testid="battle-soon"> '
            'This battle starts within 2 in-game minutes of the last one (Fury is kept)</label>')


def turn_panel_html(enc: Encounter) -> str:
    """The active combatant's turn as a checklist (seed 001): Rest or Sprint, else Instant + Move + Action."""
    who = acting(enc)
    if who is None or who not in enc.names():
        return ""
    c = enc.get(who)
    st = dict(enc.turn)
    used = st.get("parts", [])
    cid = esc(c.id)

    def part(name: str, label: str, extra: str = "") -> str:
        done = name in used
        blocked = (name in ("rest", "sprint") and bool(used)) or done
        return (f'<button type="button" class="part{" done" if done else ""}" data-action="ros-part" data-part="{name}" data-id="{cid}"'
                f' data-testid="part-{name}"{extra}{" disabled" if blocked else ""}>{"✓ " if done else ""}{esc(label)}</button>')

    foes = [x for x in enc.combatants if x.side != c.side and not system_of(enc).is_down(x)]
    adjacent = "".join(
        f'<label class="check"><input type="checkbox" class="adjacent" value="{esc(x.id)}" data-testid="adjacent"> {esc(x.name)}</label>'
        for x in foes
    )
    moves = ("" if "move" in used else
             '<div class="row">'
             f'<select id="move-mode" data-testid="move-mode" aria-label="How to move"><option value="move">Move</option><option value="charge">Charge (into base contact)</option>'
             '<option value="disengage">Disengage (leave base contact)</option><option value="forced">Forced away (not disengaging)</option></select>'
             f'<button type="button" data-action="ros-move" data-id="{cid}" data-testid="part-move">Move</button></div>'
             + (f'<details><summary>In base contact with…</summary><div class="checks">{adjacent}</div></details>' if adjacent else ""))
    bottom = ""
    if not used and c.side not in st.get("bottom", []) and c.group is None and enc.combatants[-1].id != c.id:
        bottom = (f'<button type="button" data-action="ros-bottom" data-id="{cid}" data-testid="bottom-queue">'
                  'Go to the bottom of the queue</button>')
    free = st.get("free", [])
    free_line = ""
    if free:
        names = ", ".join(enc.get(i).name for i in free if i in enc.names())
        free_line = f'<p class="muted" data-testid="free-attacks">Free attacks (one per weapon): {esc(names)}</p>'
    return (
        f'<div class="turn-panel" data-testid="turn-panel"><p class="muted">{esc(c.name)}\'s turn: Rest or Sprint, '
        'or Instant + Move + Action</p>'
        '<div class="grid3">' + part("rest", "Rest (+1 HP)") + part("sprint", "Sprint") + part("instant", "Instant") + '</div>'
        + moves + '<div class="grid2">' + part("action", "Action (ends turn)") + bottom + '</div>' + free_line + '</div>'
    )


def attack_panel_html(enc: Encounter, target: Combatant, cfg: dict[str, Any]) -> str:
    choice = attacker_choice(enc, target, cfg.get("attacker"), default=acting(enc))
    if choice is None:
        return ""
    attacker_id, select = choice
    cfg = {**DEFAULT_ATTACK, **{k: v for k, v in cfg.items() if v is not None}, "attacker": attacker_id}
    form = (
        f'<h3>Attack</h3><div class="grid2">{select}'
        f'<label class="field">Kind{_select("kind", cfg["kind"], {k: KIND_LABELS[k] for k in ATTACK_KINDS})}</label>'
        f'<label class="field">Made as{_select("use", cfg["use"], USE_LABELS)}</label>'
        f'<label class="field">Weapon{_select("weapon", cfg["weapon"], {"main": "Main hand", "off": "Off hand"})}</label>'
        + _number("inches", "Inches moved this turn", cfg["inches"]) + _number("modifier", "Other to-hit modifier", cfg["modifier"])
        + _number("bonus", "Damage bonus of the roll", cfg["bonus"]) + _number("targets", "Targets this roll hit", cfg["targets"])
        + '</div><div class="checks">'
        + _check("ranged", "Ranged", cfg["ranged"]) + _check("flying", "Flying", cfg["flying"])
        + _check("missile", "Missile-type power (Dodge adds)", cfg["missile"]) + _check("blockable", "Power can be blocked", cfg["blockable"])
        + '</div>'
        f'<label class="field">Riders (e.g. Stun 20, Disarm 10)<input id="atk-riders" data-attack-key="riders" data-action-change="attack-config"'
        f' data-testid="attack-riders" maxlength="200" autocomplete="off" value="{esc(cfg["riders"])}"></label>'
    )
    config = {k: cfg[k] for k in DEFAULT_ATTACK if k != "use"}
    try:
        spec, reasons, notes = build_spec(enc, {**config, "attacker": attacker_id, "target": target.id})
        odds = attack_odds(spec)
    except EngineError as error:
        return form + attack_error_html(error, cfg)
    lines = []
    for p in spec.portions:
        defence = "AC" if p.kind == "physical" and cfg["kind"] != "mixed" else ("lowest of AC and Resistance" if cfg["kind"] == "mixed" else "Resistance")
        crit = f"crit {101 - p.crit_chance}+" if p.crit_chance and p.can_crit else "no crits"
        lines.append(f"{p.kind}: d100 {p.modifier:+d} vs {defence} {p.defence} · {crit} · damage {p.damage}")
    lines.append(f"critical miss 1–{spec.crit_miss}" + (f" · parry {spec.parry}%" if spec.parry else "") + (f" · block {spec.block}%" if spec.block else "")
                 + (" · ward-off roll-off first" if spec.ward_off else ""))
    if notes.get("target_untrained"):
        lines.append(f"{target.name}'s weapon is untrained: no parry, no ward-off")
    if notes.get("range_halved"):
        lines.append("untrained thrown weapon: its range is halved")
    why = "".join(f"<li>{esc(reason)} {value:+d}</li>" for reason, value in reasons)
    explain = ('<p class="muted" data-testid="attack-explain">' + "<br>".join(esc(x) for x in lines) + "</p>"
               + (f'<ul class="muted" data-testid="attack-penalties">{why}</ul>' if why else ""))
    table = (
        '<p data-testid="attack-odds">'
        + (f"P(warded off) <b>{_pct(odds.p_warded)}</b> · " if spec.ward_off else "")
        + f"P(critical miss) <b>{_pct(odds.p_crit_miss)}</b> · P(miss) <b>{_pct(odds.p_miss)}</b> · "
        f"P(parried or blocked) <b>{_pct(odds.p_stopped)}</b> · P(hit) <b>{_pct(odds.p_hit)}</b> · P(crit) <b>{_pct(odds.p_crit)}</b>"
        + (f' · P({esc(target.name)} drops) <b data-testid="attack-drop">{_pct(odds.p_drop(target.hp))}</b>' if target.hp is not None else "")
        + "</p>"
    )
    return form + explain + odds_html(odds.damage, at_least(cfg)) + table + (
        f'<button type="button" data-action="attack-roll" data-id="{esc(target.id)}" data-testid="attack-roll">Roll attack</button>'
    )


def pending_html(pending: dict[str, Any]) -> str:
    natural = pending.get("natural")
    dice = []
    for a, d in pending.get("ward", []):
        dice.append(f'<span class="die" title="ward-off: attacker">{a}</span><span class="die" title="ward-off: defender">{d}</span>')
    if natural is not None:
        cls = "die fumble" if pending["outcome"] == "critical miss" else "die crit" if any(p["outcome"] == "crit" for p in pending["portions"]) else "die"
        dice.append(f'<span class="{cls}" data-testid="attack-natural" title="d100 hit roll">{natural}</span>')
    for key, label in (("parry_die", "parry"), ("block_die", "block")):
        if pending.get(key) is not None:
            dice.append(f'<span class="die" title="{label} d100">{label[0].upper()} {pending[key]}</span>')
    return (
        f'<div class="dice" data-testid="attack-dice">{"".join(dice)}</div>'
        f'<p>Outcome <b data-testid="attack-outcome">{esc(pending["outcome"])}</b> · damage <b data-testid="attack-damage">{pending["damage"]}</b>'
        + (f' · riders: {esc(", ".join(pending["riders"]))}' if pending.get("riders") else "") + "</p>"
        f'<code class="roll" data-testid="attack-result">{roll_text(pending["text"])}</code>'
        '<div class="row"><button type="button" class="primary" data-action="attack-apply" data-testid="attack-apply">Apply</button></div>'
    )


def resources_html(c: Combatant) -> str:
    rows = []
    for key, (label, has_max) in RESOURCES.items():
        value = c.stat(key, 0) or 0
        top = (c.stat(f"{key}_max", 0) or 0) if has_max else None
        if has_max and not top and not value:
            continue
        rows.append(
            f'<div class="res-row" data-testid="resource-{key}"><span>{esc(label)} <b>{esc(value)}{"/" + esc(top) if has_max else ""}</b></span>'
            f'<button type="button" data-action="ros-resource" data-key="{key}" data-delta="-1" data-id="{esc(c.id)}" aria-label="{esc(label)} minus">−</button>'
            f'<button type="button" data-action="ros-resource" data-key="{key}" data-delta="1" data-id="{esc(c.id)}" aria-label="{esc(label)} plus">+</button></div>'
        )
    if not rows:
        return ""
    return f'<p class="muted">Class resources</p><div class="resources">{"".join(rows)}</div>'


def _part(page: Page) -> Act:
    return Act("ros_part", Part(datum(page, "id"), datum(page, "part")), page.rng)


def _move(page: Page) -> Act:
    return Act("ros_part", Part(datum(page, "id"), "move", page.value("move-mode", "move"), page.checked("#tracker input.adjacent")),
               page.rng)


def _bottom(page: Page) -> Act:
    return Act("ros_bottom", Bottom(datum(page, "id")), page.rng)


def _resource(page: Page) -> Act:
    return Act("ros_resource", Resource(datum(page, "id"), datum(page, "key"), int(datum(page, "delta"))), page.rng)


class StrifeView(View):
    attack_button = True
    end_label = "End battle"
    init_label = "Initiative"
    typed_initiative = False
    fields_note = "Resources with a maximum start full; leave a class's resources at 0 if it has none."
    events = {"ros-part": _part, "ros-move": _move, "ros-bottom": _bottom, "ros-resource": _resource}
    weapon_fields = ("weapon", "offhand", "power", "hit", "crit", "spirit_hit", "spirit_crit", "size", "ward_off", "dual_skill", "untrained")
    target_fields = ("ac", "resist", "dodge", "parry", "block", "ward_off", "untrained", "shield_untrained")

    def attack_html(self, enc: Encounter, target: Combatant, attack: dict[str, Any]) -> str:
        pending = attack.get("pending")
        return attack_panel_html(enc, target, attack) + (pending_html(pending) if pending is not None else "")

    def row_chips(self, enc: Encounter, c: Combatant) -> str:
        return row_chips(enc, c)

    def turn_panel(self, enc: Encounter) -> str:
        return turn_panel_html(enc)

    def start_options(self, enc: Encounter) -> str:
        return start_options_html(enc)

    def start_args(self, page: Page) -> dict[str, Any]:
        return {"soon": bool(page.checked("#battle-soon"))}

    def sheet_sections(self, enc: Encounter, c: Combatant, attack: dict[str, Any], events: list[Event]) -> list[tuple[str, str, str]]:
        sections = [("attack", "Attack", self.attack_html(enc, c, attack))]
        resources = resources_html(c)
        return sections + ([("resources", "Resources", resources)] if resources else [])

    def stats_from_form(self, system: System, page: Page, editing: bool) -> dict[str, Any] | None:
        stats: dict[str, Any] = super().stats_from_form(system, page, editing) or {}
        return stats if editing else system.fresh_stats(stats)  # resources with a maximum start full


VIEW = StrifeView()
