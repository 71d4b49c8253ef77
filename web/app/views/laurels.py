"""Laurels and Loot on screen: Injuries on each row, the ambush choice before the first side roll,
and on a combatant's sheet the attack (exact odds first, then the roll and Apply) and the parry."""

from __future__ import annotations

from typing import Any

from pyengine.errors import EngineError
from pyengine.handoff import SURPRISED
from pyengine.model import Combatant, Encounter, Event
from pyengine.rules import system_of
from pyengine.systems.laurels import Parry, attack_odds, attack_setup, can_be_surprised, dice_count, out_of_turn, surprised_now
from pyengine.turns import eligible
from web.app.html import at_least, attack_check, esc, odds_html, pct, roll_text
from web.app.messages import Act
from web.app.views import Page, View, attack_error_html, attacker_choice, datum

__all__ = ["VIEW", "LaurelsView", "attack_panel_html"]

AMBUSH = (("none", "No ambush"), ("opponents", "Opponents ambush"), ("party", "Party ambushes"))


def attack_panel_html(enc: Encounter, target: Combatant, attacker_id: str | None, power: bool, sneak: bool, pending: dict[str, Any] | None,
                      close: bool = False, wanted: int | None = None) -> str:
    """Laurels and Loot: who hits this target, the exact odds first, then the roll and Apply. The
    attacker defaults to whoever acts now, else the first of the acting side who may still act."""
    system = system_of(enc)
    acting = next((x.id for x in enc.combatants if x.id != target.id and enc.started and eligible(enc, system, x)), None)
    choice = attacker_choice(enc, target, attacker_id, default=enc.active_id if enc.active_id not in (None, target.id) else acting)
    if choice is None:
        return ""
    attacker_id, select = choice
    warning = None if surprised_now(enc, enc.get(attacker_id)) else out_of_turn(enc, attacker_id)  # (surprised: the error says it)
    head = (
        f'<h3>Attack</h3><div class="grid2">{select}'
        '<div class="checks">'
        + attack_check("power", "Power attack", power) + attack_check("sneak", "Sneak attack", sneak)
        + attack_check("close", "Target within 10 ft", close)
        + '</div></div>'
        + (f'<p class="muted" data-testid="attack-out-of-turn">{esc(warning)}</p>' if warning else "")
    )
    try:
        a, t, attack = attack_setup(enc, attacker_id, target.id, power, sneak, close)
        odds = attack_odds(a, t, attack)
    except EngineError as error:
        return head + attack_error_html(error, {})  # (no unset defence here: Laurels' targets have their own)
    kind = "ranged: to Injuries" if attack.ranged else ("sneak: to Injuries" if attack.sneak else "melee: to Stamina, then Injuries")
    parry = f" · target parries with a {attack.parry}" if attack.parry else ""
    if attack.parry == "weapon":  # nothing gets through: the blow's own size and the weapon's risk are what matter
        chart = odds_html(odds.damage, wanted)
        risk = (f'<p data-testid="attack-parried">Parried with a weapon: nothing reaches {esc(target.name)}. '
                f'P(the parrying weapon shatters) <b data-testid="attack-shatter">{pct(odds.p_shatter)}</b></p>')
    else:
        chart, risk = odds_html(odds.through, wanted), ""
    odds_block = (
        f'<p class="muted">{dice_count(a.level, power)}d{a.weapon.die} exploding, {esc(kind)}{esc(parry)}</p>'
        + chart + risk
        + f'<p data-testid="attack-odds">P(injury) <b>{pct(odds.p_injury)}</b>'
        + ("" if attack.ranged or attack.sneak else f' · P(out of Stamina) <b>{pct(odds.p_out_of_stamina)}</b>')
        + "</p>"
    )
    result = ""
    if pending is not None:
        dice = "".join(
            "".join(f'<span class="die{" exploded" if f == pending["die"] else ""}">{f}{"!" if f == pending["die"] else ""}</span>' for f in chain)
            for chain in pending["dice"]
        )
        r = pending["result"]
        result = (
            f'<div class="dice" data-testid="attack-dice">{dice}</div>'
            f'<code class="roll" data-testid="attack-result">{roll_text(pending["text"])}</code>'
            f'<p>Damage <b data-testid="attack-damage">{r["damage"]}</b>'
            + (f' · <b data-testid="attack-reaches">{r["to_stamina"] + r["to_injuries"]}</b> reaches {esc(target.name)}'
               f' ({r["to_stamina"]} Stamina, {r["to_injuries"]} Injury)' if r["damage"] != r["to_stamina"] + r["to_injuries"] else "")
            + (" · the parrying weapon shatters" if r.get("weapon_shattered") else "")
            + (f' · shooter spends {pending["cost"]} Stamina' if pending.get("cost") else "") + "</p>"
            '<button type="button" class="primary" data-action="attack-apply" data-testid="attack-apply">Apply</button>'
        )
    return (
        head + odds_block
        + f'<button type="button" data-action="attack-roll" data-id="{esc(target.id)}" data-testid="attack-roll">Roll damage</button>'
        + result
    )


def _parry(page: Page) -> Act:
    return Act("ll_parry", Parry(datum(page, "id"), page.data("with")), page.rng)


class LaurelsView(View):
    attack_button = True             # Attack… after "Now: …", as in every system (issue 53)
    down_label = "out of the fight"  # Injuries at their limit (seed 003)
    events = {"parry": _parry}
    weapon_fields = ("die", "magic", "finesse", "ranged", "specialised")
    target_fields = ("level", "dex", "awa", "armour", "shield")

    def attack_html(self, enc: Encounter, target: Combatant, attack: dict[str, Any]) -> str:
        return attack_panel_html(enc, target, attack.get("attacker"), attack.get("power", False), attack.get("sneak", False),
                                 attack.get("pending"), attack.get("close", False), at_least(attack))

    def row_chips(self, enc: Encounter, c: Combatant) -> str:
        injuries, limit = c.stat("injuries", 0) or 0, c.stat("injury_max", 0) or 0
        chips = f'<span class="chip injuries" data-testid="injuries">Injuries {esc(injuries)}{"/" + esc(limit) if limit else ""}</span>'
        if c.stat("weapon_broken"):
            chips += '<span class="chip down">weapon broken</span>'
        if surprised_now(enc, c):  # (its side surprised in round 1: no turn, no attack; the players' view says it too)
            chips += f'<span class="chip" data-testid="surprised">{esc(SURPRISED)}</span>'
        return chips

    def start_options(self, enc: Encounter) -> str:
        current = enc.option("ambush", "none")
        return ('<label class="field">First round<select id="opt-ambush" data-action-change="set-option" data-key="ambush" data-testid="ambush">'
                + "".join(f'<option value="{v}"{" selected" if v == current else ""}>{t}</option>' for v, t in AMBUSH)
                + "</select></label>")

    def sheet_html(self, enc: Encounter, c: Combatant, attack: dict[str, Any], events: list[Event]) -> str:
        cid = esc(c.id)
        surprise = ('<p class="muted small" data-testid="cannot-be-surprised">Cannot be surprised: acts in round 1 even when its side is surprised.</p>'
                    if not can_be_surprised(c) else "")
        return (surprise + self.attack_html(enc, c, attack)
                + '<div class="grid2">'
                f'<button type="button" data-action="parry" data-with="weapon" data-id="{cid}" data-testid="parry-weapon">Parry (weapon)</button>'
                f'<button type="button" data-action="parry" data-with="shield" data-id="{cid}" data-testid="parry-shield">Parry (shield)</button></div>')


VIEW = LaurelsView()
