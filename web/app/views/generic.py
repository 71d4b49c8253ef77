"""Generic d20 on screen: AC on the row and the sheet, and a dying player character's death saves
(rolled here, or told as a success or a failure when rolled at the table)."""

from __future__ import annotations

from typing import Any

from pyengine.core_args import Join
from pyengine.damage_types import adjust_all, parts_from_args
from pyengine.errors import EngineError
from pyengine.model import Combatant, Encounter, Event
from pyengine.save_effects import ABILITY_NAMES
from pyengine.systems.generic import (
    COVER,
    DEATH_SAVES,
    LAIR,
    LAIR_INITIATIVE,
    DeathSave,
    RepeatSave,
    at_zero,
    attack_odds,
    attack_spec,
    dying,
    is_lair,
    named_attack,
)
from pyengine.systems.saving_throws import repeat_odds, taken
from pyengine.turns import active_unit
from web.app.html import at_least, attack_input, attack_select, esc, initiative_option, odds_html, pct, roll_text
from web.app.library import creature_info_html
from web.app.messages import Act
from web.app.views import Page, View, attack_error_html, attacker_choice, datum

ADVANTAGE = {"": "Normal", "adv": "Advantage", "dis": "Disadvantage"}
COVERS = {"none": "No cover", "half": "Half cover (+2 AC)", "three-quarters": "Three-quarters cover (+5 AC)"}


def attack_html(enc: Encounter, target: Combatant, cfg: dict[str, Any]) -> str:
    """d20 + bonus against the target's AC: who attacks, advantage, cover, the exact odds (hit,
    crit, the damage chart), then the roll die by die and Apply."""
    choice = attacker_choice(enc, target, cfg.get("attacker"))
    if choice is None:
        return ""
    attacker_id, select = choice
    attacker = enc.get(attacker_id)
    weapon = named_attack(attacker, cfg.get("with"))
    if weapon is not None:  # a creature's attacks (the SRD library's, or remembered): which one
        select += (f'<label class="field">With{attack_select("with", weapon.name, {a.name: f"{a.name} {a.bonus:+d}" for a in attacker.attacks}, "attack-with")}'
                   '</label>')
    adv = cfg.get("adv") if cfg.get("adv") in ADVANTAGE else ""
    cover = cfg.get("cover") if cfg.get("cover") in COVER else "none"
    form = (
        f'<h3>Attack</h3><div class="grid2">{select}'
        f'<label class="field">Roll{attack_select("adv", adv, ADVANTAGE)}</label>'
        f'<label class="field">Cover{attack_select("cover", cover, COVERS)}</label>'
        + attack_input("modifier", "Extra modifier to hit", cfg.get("modifier", "0"), "number")  # emptied: stays empty
        + '</div>'
    )
    try:
        spec = attack_spec(enc, {**cfg, "attacker": attacker_id, "target": target.id, "adv": adv, "cover": cover,
                                 "with": weapon.name if weapon else None})
        odds = attack_odds(spec)
    except EngineError as error:
        return form + attack_error_html(error, cfg)
    multi = attacker.stat("multiattack")
    defended = [f"{label} {', '.join(entries)}" for label, entries in (("resists", target.defenses.resistances),
                ("immune to", target.defenses.immunities), ("vulnerable to", target.defenses.vulnerabilities)) if entries]
    explain = (f'<p class="muted" data-testid="attack-explain">{esc(spec.roll)} {spec.bonus:+d} vs AC {spec.ac} · damage {esc(spec.damage)}'
               f' · crit on {spec.crit_on}{"" if spec.crit_on == 20 else "–20"} (dice doubled) · a natural 1 misses'
               + "".join(f" · {esc(n)}" for n in spec.notes)
               + (f' · {esc(target.name)} {esc("; ".join(defended))} (in the odds)' if defended else "") + "</p>"
               + (f'<p class="muted" data-testid="attack-multiattack">Multiattack: {esc(multi)}</p>' if multi else ""))
    table = (f'<p data-testid="attack-odds">P(hit) <b data-testid="attack-p-hit">{pct(odds.p_hit)}</b> · '
             f'P(crit) <b data-testid="attack-p-crit">{pct(odds.p_crit)}</b>'
             + (f' · P({esc(target.name)} drops) <b data-testid="attack-drop">{pct(odds.p_drop(target.hp))}</b>' if target.hp is not None else "")
             + "</p>")
    pending = cfg.get("pending")
    result = ""
    if pending is not None:
        dice = "".join(f'<span class="die{" crit" if f >= spec.crit_on else " fumble" if f == 1 else ""}">{f}</span>' for f in pending["faces"])
        outcome = "crit" if pending["crit"] else "hit" if pending["hit"] else "miss"
        after = sum(a.after for a in adjust_all(target.defenses, parts_from_args(pending.get("parts")))) if pending.get("parts") else None
        changed = (f' → <b data-testid="attack-damage-after">{after}</b> after {esc(target.name)}\'s defenses'
                   if after is not None and after != pending["damage"] else "")
        result = (f'<div class="dice" data-testid="attack-dice">{dice}</div>'
                  f'<p>Outcome <b data-testid="attack-outcome">{outcome}</b> · damage <b data-testid="attack-damage">{pending["damage"]}</b>{changed}</p>'
                  f'<code class="roll" data-testid="attack-result">{roll_text(pending["text"])}</code>'
                  + _rider_result_html(target, pending.get("rider"))
                  + '<div class="row"><button type="button" class="primary" data-action="attack-apply" data-testid="attack-apply">Apply</button></div>')
    return (form + explain + odds_html(odds.damage, at_least(cfg)) + table
            + f'<button type="button" data-action="attack-roll" data-id="{esc(target.id)}" data-testid="attack-roll">'
              f'Roll {esc(attacker.name)}\'s attack</button>' + result)

__all__ = ["VIEW", "GenericView"]


def _rider_result_html(target: Combatant, rider: Any) -> str:
    """A hit's rider as rolled, before Apply: the target's save and what it takes then."""
    if not isinstance(rider, dict) or not isinstance(rider.get("effect"), dict):
        return ""
    effect, made = rider["effect"], rider.get("saved") is True
    parts = parts_from_args(rider.get("parts"))
    takes = taken(parts, made, str(effect.get("success")))
    damage = sum(a.after for a in adjust_all(target.defenses, takes)) if takes else 0
    ability = ABILITY_NAMES.get(str(effect.get("ability")), "?")[:3]
    said = (f"{ability} save vs DC {effect.get('dc')}: fails automatically" if rider.get("auto_fail")
            else f"{ability} save {rider.get('total')} vs DC {effect.get('dc')}: {'succeeded' if made else 'failed'}")
    then = (f" · {damage} {esc(' + '.join(p.kind or '' for p, _ in parts)).strip()} damage" if parts else "") + (
        f" · {esc(str(effect.get('condition', '')).lower())}" if effect.get("condition") and not made else "")
    return f'<p data-testid="attack-rider">Then {esc(target.name)}\'s {esc(said)}{then}</p>'


def save_buttons_html(c: Combatant) -> str:
    """A button for each of the creature's save actions (its breath, its gaze), and "Save…" for one
    typed by hand with this creature as its source: each opens the save panel (web/app/screens/save.py)."""
    if is_lair(c):
        return ""
    buttons = "".join(f'<button type="button" data-action="save-action" data-id="{esc(c.id)}" data-index="{i}" '
                      f'data-testid="save-action" title="{esc(a.words)}">{esc(a.name)}</button>' for i, a in enumerate(c.save_actions))
    buttons += (f'<button type="button" data-action="save-action" data-id="{esc(c.id)}" data-index="" data-testid="save-action">'
                'Save…</button>')
    return f'<h3>Saving throws</h3><div class="grid2" data-testid="save-actions">{buttons}</div>'


def _death_state(c: Combatant) -> str:
    if c.stat("dead"):
        return "dead"
    if c.stat("stable"):
        return "stable"
    successes, failures = int(c.stat_or("death_successes", 0)), int(c.stat_or("death_failures", 0))
    return f"dying {'✓' * successes}{'✗' * failures}".rstrip()


def _death_save(page: Page) -> Act:
    return Act("death_save", DeathSave(datum(page, "id"), page.data("result") or None), page.rng)


def _repeat_save(page: Page) -> Act:
    return Act("repeat_save", RepeatSave(datum(page, "id"), datum(page, "condition")), page.rng)


def repeat_saves_html(enc: Encounter) -> str:
    """The reminders of conditions that end on a save at the end of their creature's turn, for whoever
    acts now: the save, its odds, and Roll (a success ends the condition; one step, Undo takes it back)."""
    lines = []
    for c in active_unit(enc) if enc.started else ():
        for k in c.conditions:
            if k.save is None:
                continue
            mode, bonus, chance = repeat_odds(c, k.save[0], k.save[1])
            how = "fails automatically" if mode.auto_fail else f"{mode.roll} {bonus:+d}"
            lines.append(f'<div class="tools-now" data-testid="repeat-save-line"><span class="who">{esc(c.name)}</span> '
                         f'at its turn\'s end: {ABILITY_NAMES[k.save[0]]} save DC {k.save[1]} ends {esc(k.name)} '
                         f'<span class="muted">({esc(how)})</span> · P <b data-testid="repeat-save-chance">{pct(chance)}</b> '
                         f'<button type="button" class="act" data-action="repeat-save" data-id="{esc(c.id)}" data-condition="{esc(k.id)}" '
                         'data-testid="repeat-save">Roll</button></div>')
    return "".join(lines)


def _lair(page: Page) -> Act:
    return Act("add_combatant", Join(dict(LAIR)), page.rng, close_sheet=True)


LAIR_WORDS = f"lair action: initiative {LAIR_INITIATIVE}, losing ties"


class GenericView(View):
    events = {"death-save": _death_save, "add-lair": _lair, "repeat-save": _repeat_save}
    attack_button = True
    weapon_fields = ("to_hit", "damage", "crit_on")
    target_fields = ("ac",)
    creature_library = True

    def start_options(self, enc: Encounter) -> str:
        at_0, instant = str(enc.option("monsters_at_0", "down")), str(enc.option("instant_death", "off"))
        choices = (("die", "die (SRD)"), ("dying", "death saves"), ("down", "stay down"))  # (words that fit half a 390 px phone)
        monsters = "".join(f'<option value="{v}"{" selected" if v == at_0 else ""}>{w}</option>' for v, w in choices)
        massive = "".join(f'<option value="{v}"{" selected" if v == instant else ""}>{w}</option>'
                          for v, w in (("on", "on (SRD)"), ("off", "off")))
        return (f'<div class="grid2">{initiative_option(str(enc.option("initiative", "once")))}'
                '<label class="field">Monsters at 0 HP<select data-action-change="set-option" data-key="monsters_at_0" '
                f'data-testid="option-monsters-at-0">{monsters}</select></label>'
                '<label class="field">Instant death (massive damage)<select data-action-change="set-option" data-key="instant_death" '
                f'data-testid="option-instant-death">{massive}</select></label></div>')

    def attack_html(self, enc: Encounter, target: Combatant, attack: dict[str, Any]) -> str:
        return attack_html(enc, target, attack)

    def turn_panel(self, enc: Encounter) -> str:
        return repeat_saves_html(enc)

    def add_extras(self, enc: Encounter) -> str:
        """The lair's entry in the order (SRD: initiative 20, losing ties), once a fight."""
        if any(is_lair(c) for c in enc.combatants):
            return ""
        return ('<button type="button" data-action="add-lair" data-testid="add-lair">+ Lair actions '
                f'<span class="muted">(on {LAIR_INITIATIVE}, loses ties)</span></button>')

    def now_actions(self, enc: Encounter, active: Combatant | None) -> str:
        """A dying player character's turn is its death save, not an attack; the lair's is its lair action."""
        if active is not None and is_lair(active):
            return f'<span class="muted" data-testid="lair-now">{LAIR_WORDS}</span>'
        if active is not None and dying(active):
            return (f'<button type="button" class="act primary" data-action="death-save" data-id="{esc(active.id)}" '
                    'data-testid="turn-death-save">Roll death save</button>')
        return super().now_actions(enc, active)

    def row_chips(self, enc: Encounter, c: Combatant) -> str:
        if is_lair(c):
            return '<span class="chip" data-testid="lair-chip">lair · loses ties</span>'
        chips = ""
        if c.stat("ac") is not None:
            chips += f'<span class="chip ac" data-testid="ac">AC {esc(c.stat("ac"))}</span>'
        if at_zero(c):
            chips += f'<span class="chip down" data-testid="death-state">{esc(_death_state(c))}</span>'
        return chips

    def sheet_html(self, enc: Encounter, c: Combatant, attack: dict[str, Any], events: list[Event]) -> str:
        ac = f'<p data-testid="sheet-ac">AC <b>{esc(c.stat("ac"))}</b></p>' if c.stat("ac") is not None else ""
        if not at_zero(c):  # the attack first, its save actions, then what the creature is
            return (ac + (self.attack_html(enc, c, attack) if c.stat("ac") is not None else "") + save_buttons_html(c)
                    + creature_info_html(c))
        if not (c.pc or c.stat("death_saves") is True):  # a monster that died at 0 HP
            return ac + '<p data-testid="death-saves"><b>Dead</b> <span class="muted">(a monster at 0 HP: the fight\'s option)</span></p>' + creature_info_html(c)
        successes, failures = int(c.stat_or("death_successes", 0)), int(c.stat_or("death_failures", 0))
        cid = esc(c.id)
        state = (f'<p data-testid="death-saves">Death saves: <b>{successes}</b>/{DEATH_SAVES} ✓ · <b>{failures}</b>/{DEATH_SAVES} ✗'
                 f' <span class="muted">({esc(_death_state(c))})</span></p>')
        buttons = ('<div class="grid3">'
                   f'<button type="button" class="primary" data-action="death-save" data-id="{cid}" data-testid="death-save-roll">Roll death save</button>'
                   f'<button type="button" data-action="death-save" data-result="success" data-id="{cid}" data-testid="death-save-success">Success</button>'
                   f'<button type="button" data-action="death-save" data-result="failure" data-id="{cid}" data-testid="death-save-failure">Failure</button>'
                   '</div>') if dying(c) else ""
        return ac + state + buttons


VIEW = GenericView()
