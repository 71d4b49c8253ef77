"""Enchanted Realms on screen: the add-sheet fields, row badges, the fight's options, the attack
panel (pool and why, exact odds, the roll die by die, Apply), stances, saves, competitions, chase
and defense rolls. Pure functions state -> HTML; every user text escaped."""

from __future__ import annotations

from typing import Any

from pyengine.errors import EngineError
from pyengine.model import Combatant, Encounter, Event
from pyengine.systems.realms import (
    COMPETITIONS,
    DAMAGE_TYPES,
    SAVE_KINDS,
    BlindShot,
    Chase,
    Contest,
    Defense,
    Impale,
    Save,
    Stance,
    attack_odds,
    build_attack,
    chase_penalty,
    competition_modifiers,
    competition_odds,
    competition_of,
    cover_save_bonus,
    listed,
    movement,
    own_save_modifier,
    save_odds,
    save_situation,
)
from web.app.html import at_least, esc, initiative_option, odds_html, roll_text
from web.app.html import attack_check as _chk
from web.app.html import attack_input as _txt
from web.app.html import attack_select as _sel
from web.app.html import pct as _pct
from web.app.messages import Act, AttackApplied, Message, SavePanelOpened
from web.app.views import Page, View, attack_error_html, attacker_choice, datum

__all__ = ["VIEW", "RealmsView", "row_chips", "options_html", "sheet_sections", "DEFAULT_ATTACK"]

DEFAULT_ATTACK = {"damage_type": None, "cover": "none", "sneak": False, "adv": "", "dis": "", "modifier": "0", "chase": False,
                  "same_weapon": True, "reaction": False, "unseen": False, "hidden_attack": False, "save_kind": "body", "save_mod": "0", "save_dc": "12", "save_adv": False, "save_dis": False, "save_area": False,
                  "comp_kind": "grapple", "comp_other": None, "comp_slick": False}
COVERS = {"none": "No cover", "half": "Half cover (+2 AC)", "three-quarters": "Three-quarters (+5 AC)", "complete": "Complete"}


BADGES = {"reaction_used": "reaction used", "defending": "defending", "at_ready": "at the ready"}


def row_chips(enc: Encounter, c: Combatant) -> str:
    chips = ""
    for flag, label in BADGES.items():
        if flag in c.flags:
            title = f' title="{esc(c.stat("ready_trigger", ""))}"' if flag == "at_ready" else ""
            chips += f'<span class="chip flag" data-testid="badge-{flag}"{title}>{esc(label)}</span>'
    if c.stat("award_round") is not None:
        chips += '<span class="chip flag" data-testid="badge-award">+1d20 next round</span>'
    move = movement(k.name for k in c.conditions)
    if move:
        chips += f'<span class="chip down" data-testid="badge-move">{"no movement" if move == "none" else "half movement"}</span>'
    return chips


def options_html(enc: Encounter) -> str:
    timing = enc.option("crit_timing", "immediate")
    return (
        '<div class="grid2">'
        # (the whole width, and short words: "Immediate award dice (Essentials)" was cut even there at 360 px)
        '<label class="field wide">Crits<select data-action-change="set-option" data-key="crit_timing" data-testid="option-crit">'
        f'<option value="immediate"{" selected" if timing == "immediate" else ""}>Award dice now (Essentials)</option>'
        f'<option value="next_round"{" selected" if timing == "next_round" else ""}>+1d20 next round (Detailed)</option></select></label>'
        + initiative_option(str(enc.option("initiative", "once"))) + '</div>'
    )


def attack_panel_html(enc: Encounter, target: Combatant, cfg: dict[str, Any]) -> str:
    choice = attacker_choice(enc, target, cfg.get("attacker"))
    if choice is None:
        return ""
    attacker_id, select = choice
    attacker = enc.get(attacker_id)
    known = listed(attacker.stat("skills", "melee fighting"))
    chosen = cfg.get("skills")
    chosen = known if chosen is None or cfg.get("skills_of") != attacker_id else [s for s in listed(chosen) if s in known]
    damage_type = cfg.get("damage_type") if cfg.get("damage_type") in DAMAGE_TYPES and cfg.get("skills_of") == attacker_id \
        else str(attacker.stat("damage_type", "edged") or "edged")
    skills = "".join(
        f'<label class="check"><input type="checkbox" class="atk-skill" value="{esc(s)}" data-owner="{esc(attacker_id)}" data-action-change="attack-config"'
        f' data-testid="attack-skill"{" checked" if s in chosen else ""}> {esc(s)}</label>'
        for s in known
    ) or '<span class="muted">No attack skills (edit the combatant to add some).</span>'
    form = (
        f'<h3>Attack</h3><div class="grid2">{select}'
        f'<label class="field">Damage type{_sel("damage_type", damage_type, {t: t for t in DAMAGE_TYPES})}</label>'
        f'<label class="field">Cover{_sel("cover", cfg["cover"], COVERS)}</label>'
        + _txt("modifier", "Extra modifier on each die", cfg["modifier"], "number")
        + _txt("adv", "Other advantage (why)", cfg["adv"]) + _txt("dis", "Other disadvantage (why)", cfg["dis"])
        + f'</div><p class="muted">Skills used</p><div class="checks" data-testid="attack-skills">{skills}</div><div class="checks">'
        + _chk("sneak", "Sneak attack", cfg["sneak"]) + _chk("chase", "Melee while running (chase)", cfg["chase"])
        + _chk("same_weapon", "Same weapon and circumstances (keeps a crit award)", cfg["same_weapon"])
        + _chk("reaction", "As a reaction (flee attack, at the ready)", cfg["reaction"])
        + _chk("unseen", "Target unseen by the attacker (blind shot if every die misses)", cfg["unseen"])
        + _chk("hidden_attack", "The target cannot see this attack (Defend gives no disadvantage)", cfg["hidden_attack"]) + "</div>"
    )
    config = {"attacker": attacker_id, "target": target.id, "skills": chosen, "damage_type": damage_type, "cover": cfg["cover"],
              "sneak": cfg["sneak"], "adv": cfg["adv"] or False, "dis": cfg["dis"] or False, "modifier": cfg["modifier"],
              "chase": cfg["chase"], "same_weapon": cfg["same_weapon"], "hidden_attack": cfg["hidden_attack"]}
    try:
        built = build_attack(enc, config)
        odds = attack_odds(built.pool)
    except EngineError as error:
        return form + attack_error_html(error, cfg)
    pool = built.pool
    why = f'<p class="pool" data-testid="attack-pool"><b>{esc(built.text)}</b></p>'
    details = [f"each die {pool.modifier - pool.penalty:+d} vs AC {pool.ac}", f"damage: hits {pool.bonus:+d} once"]
    if pool.can_crit:
        details.append("a natural 20 crits" + (" (award dice now, d3 each)" if pool.timing == "immediate" else " (+1d20 next round)"))
    elif pool.hit_is_crit:
        details.append("target paralyzed: a hit is a crit")
    else:
        details.append("no crit possible")
    resist = [k for k in ("resistant", "vulnerable", "immune", "absorbing") if getattr(pool, k)]
    if resist:
        details.append(f"target {' and '.join(resist)} to {built.damage_type}")
    notes = "".join(f"<li>{esc(n)}</li>" for n in (*details, *built.notes))
    table = (
        f'<p data-testid="attack-odds">P(hit) <b data-testid="attack-p-hit">{_pct(odds.p_hit)}</b> · P(crit) <b data-testid="attack-p-crit">{_pct(odds.p_crit)}</b>'
        + (f' · P({esc(target.name)} drops) <b data-testid="attack-drop">{_pct(odds.p_drop(target.hp))}</b>' if target.hp is not None else "")
        + "</p>"
    )
    return (form + why + f'<ul class="muted" data-testid="attack-explain">{notes}</ul>' + odds_html(odds.damage, at_least(cfg)) + table
            + f'<button type="button" class="primary" data-action="attack-roll" data-id="{esc(target.id)}" data-testid="attack-roll">Roll {esc(built.text.split(":")[0])}</button>')


def attack_html(enc: Encounter, target: Combatant, cfg: dict[str, Any]) -> str:
    """The attack panel and, once rolled, the result die by die."""
    cfg = {**DEFAULT_ATTACK, **{k: v for k, v in cfg.items() if v is not None}}
    pending = cfg.get("pending")
    return attack_panel_html(enc, target, cfg) + (pending_html(pending) if pending else "")


def _die(face: int, hit: bool | None = None, extra: str = "") -> str:
    cls = "die" + (" crit" if face == 20 else " fumble" if face == 1 else "") + ("" if hit is None else " success" if hit else " failure")
    return f'<span class="{cls}{extra}">{face}</span>'


def pending_html(pending: dict[str, Any]) -> str:
    faces, kept, hits = pending["faces"], list(pending["kept"]), pending.get("face_hits", [])
    if len(faces) == 2 and len(kept) == 1:   # two dice, the worse kept
        rest = list(faces)
        rest.remove(kept[0])
        dice = _die(kept[0], hits[0] if hits else None) + _die(rest[0], None, " dropped")
    else:
        dice = "".join(_die(f, hits[i] if i < len(hits) else None) for i, f in enumerate(faces))
    award_hits = pending.get("award_hits", [])
    awards = "".join(_die(f, award_hits[i] if i < len(award_hits) else None, " exploded") for i, f in enumerate(pending.get("awards", [])))
    d3s = ", ".join(map(str, pending.get("award_d3", [])))
    extra = []
    if pending.get("awards"):
        extra.append(f'crit chain: {len(pending["awards"])} award d20' + (f", d3 {d3s}" if d3s else ", none hit"))
    if pending.get("adv_d3"):
        extra.append(f'advantage +{pending["adv_d3"]}')
    if pending.get("dis_d3"):
        extra.append(f'disadvantage −{pending["dis_d3"]}')
    damage = pending["damage"]
    result = "miss" if pending["miss"] else (f"heals {-damage}" if damage < 0 else f"{damage} Body")
    return (
        f'<div class="dice" data-testid="attack-dice">{dice}{awards}</div>'
        + (f'<p data-testid="attack-chain">{esc("; ".join(extra))}</p>' if extra else "")
        + f'<p>{"<b>CRIT</b> · " if pending.get("crit") else ""}Result <b data-testid="attack-damage">{esc(result)}</b>'
        f' <span class="muted">({esc(pending["damage_type"])}, {esc(pending["raw"])} before damage type)</span></p>'
        f'<code class="roll" data-testid="attack-result">{roll_text(pending["text"])}</code>'
        '<div class="row"><button type="button" class="primary" data-action="attack-apply" data-testid="attack-apply">Apply</button></div>'
        + ('<p class="muted">Every die missed an unseen target: other creatures nearby may be hit.</p>'
           '<button type="button" data-action="er-blind-shot" data-testid="blind-shot">Apply the miss and roll the blind shot</button>'
           if pending.get("unseen") and pending["hits"] == 0 else "")
    )


def stances_html(enc: Encounter, c: Combatant) -> str:
    cid = esc(c.id)
    turn = enc.started and enc.active_id == c.id
    defending, reacted = "defending" in c.flags, "reaction_used" in c.flags
    state = ("Defending until its next turn: attacks it sees are at disadvantage, its saves at advantage, no reactions."
             if defending else "Reaction used this round." if reacted else "")
    return (
        '<p class="muted">Action and reaction</p>'
        + (f'<p data-testid="stance-state">{esc(state)}</p>' if state else "")
        + '<div class="grid2">'
        f'<button type="button" data-action="er-stance" data-stance="defend" data-id="{cid}" data-testid="defend"'
        f'{"" if turn and not defending and not reacted else " disabled"}>Defend</button>'
        f'<button type="button" data-action="er-stance" data-stance="reaction" data-id="{cid}" data-testid="use-reaction"'
        f'{" disabled" if defending or reacted else ""}>Use reaction</button>'
        '</div><div class="row">'
        '<input id="ready-trigger" maxlength="100" placeholder="If … then I …" data-testid="ready-trigger" autocomplete="off">'
        f'<button type="button" data-action="er-stance" data-stance="ready" data-id="{cid}" data-testid="at-ready"{"" if turn else " disabled"}>At the ready</button></div>'
        + (f'<p class="muted" data-testid="ready-text">At the ready: {esc(c.stat("ready_trigger"))}</p>' if c.stat("ready_trigger") else "")
    )


def _last(events: list[Event], cid: str, kinds: tuple[str, ...]) -> str:
    for e in reversed(events[-30:]):
        if e.kind in kinds and e.who == cid:
            return f'<p data-testid="last-roll">{esc(e.text)}' + (f'<br><code class="roll">{roll_text(e.roll)}</code>' if e.roll else "") + "</p>"
    return ""


def save_html(c: Combatant, cfg: dict[str, Any], events: list[Event]) -> str:
    """A save: kind, modifiers and DC, its exact odds, the roll; the last save's result under it."""
    cid = esc(c.id)
    try:
        own = own_save_modifier(c, cfg["save_kind"])
        mod, dc = int(cfg["save_mod"] or 0) + own, int(cfg["save_dc"] or 0)
        if cfg["save_kind"] in ("body", "preservation"):
            mod += cover_save_bonus(cfg["cover"], bool(cfg["save_area"]))
        net, auto, causes = save_situation(cfg["save_kind"], [k.name for k in c.conditions], "defending" in c.flags,
                                           bool(cfg["save_adv"]), bool(cfg["save_dis"]))
        causes = ([f"body {own:+d}"] if own else []) + list(causes)
        save_line = (f"fails automatically ({auto})" if auto else
                     f"P(success) {_pct(save_odds(mod, dc, net, auto))}" + (f" · {', '.join(causes)}" if causes else ""))
    except (ValueError, EngineError) as error:
        save_line = str(error)
    save = (
        '<h3>Save</h3><div class="grid2">'
        f'<label class="field">Kind{_sel("save_kind", cfg["save_kind"], {k: k for k in SAVE_KINDS}, "save-kind")}</label>'
        + _txt("save_mod", "Extra modifier", cfg["save_mod"], "number") + _txt("save_dc", "DC", cfg["save_dc"], "number")
        + '</div><div class="checks">' + _chk("save_adv", "Advantage", cfg["save_adv"]) + _chk("save_dis", "Disadvantage", cfg["save_dis"])
        + _chk("save_area", "Against an area effect (cover from the attack panel adds)", cfg["save_area"])
        + f'</div><p class="muted" data-testid="save-odds">{esc(save_line)}</p>'
        f'<div class="row"><button type="button" data-action="er-save" data-id="{cid}" data-testid="roll-save">Roll save</button>'
        f'<button type="button" data-action="er-area" data-id="{cid}" data-testid="er-area">Area effect…</button></div>'
    )
    return save + _last(events, c.id, ("save",))


def competition_html(enc: Encounter, c: Combatant, cfg: dict[str, Any], events: list[Event]) -> str:
    """A d12 competition (grapple, escape, shove, trip, forced passage) against another combatant."""
    cid = esc(c.id)
    others = [x for x in enc.combatants if x.id != c.id]
    comp = ""
    if others:
        other = cfg.get("comp_other") if cfg.get("comp_other") in {x.id for x in others} else others[0].id
        kind = cfg["comp_kind"]
        labels = {"grapple": "Grapple", "escape": "Escape a grapple", "shove": "Shove 5 ft", "trip": "Trip to prone", "passage": "Force a way past"}
        try:
            competition = competition_of(enc, {"aggressor": c.id, "victim": other, "kind": kind, "slick": cfg["comp_slick"]})
            mine, theirs = competition_modifiers(competition)
            line = (f"P({c.name} wins) {_pct(competition_odds(competition))}"
                    + "".join(f" · {c.name}: {why} {v:+d}" for why, v in mine)
                    + "".join(f" · {enc.get(str(other)).name}: {why} {v:+d}" for why, v in theirs))
        except EngineError as error:
            line = str(error)
        comp = (
            '<h3>Competition (d12)</h3><div class="grid2">'
            f'<label class="field">What{_sel("comp_kind", kind, {k: labels[k] for k in COMPETITIONS}, "comp-kind")}</label>'
            f'<label class="field">Against{_sel("comp_other", other, {x.id: x.name for x in others}, "comp-other")}</label></div>'
            + '<div class="checks">' + _chk("comp_slick", "Rain, ice or slick", cfg["comp_slick"]) + "</div>"
            f'<p class="muted" data-testid="comp-odds">{esc(line)}</p>'
            f'<button type="button" data-action="er-competition" data-id="{cid}" data-testid="roll-competition">Roll competition</button>'
        )
    return comp + _last(events, c.id, ("competition",))


def chase_html(c: Combatant, events: list[Event]) -> str:
    cid = esc(c.id)
    penalty, why = chase_penalty(listed(c.stat("skills", "")))
    chase = (
        '<h3>Chase mode</h3>'
        f'<p class="muted">Speed {esc(c.stat("speed", 30))} ft, Agility {esc(c.stat("agi", 0))}: one d20 per second it may move (DC 5). '
        f'Melee while running {penalty:+d} per die ({esc("; ".join(why))}).</p>'
        f'<button type="button" data-action="er-chase" data-id="{cid}" data-testid="roll-chase">Roll a chase round</button>'
    )
    return chase + _last(events, c.id, ("chase",))


def reactions_html(enc: Encounter, c: Combatant) -> str:
    """Impalement and the defense-roll variant: answers to whoever acts now."""
    cid = esc(c.id)
    defense = ""
    active = enc.get(enc.active_id) if enc.started and enc.active_id else None
    if c.stat("polearm") and active is not None and active.id != c.id:
        defense += (f'<button type="button" data-action="er-impale" data-id="{cid}" data-charger="{esc(active.id)}" data-testid="impale">'
                    f'Impale the charging {esc(active.name)} (reaction, {4 if c.stat("forte") else 3}d20)</button>')
    if c.pc and active is not None and active.id != c.id and not active.pc:
        defense = (f'<button type="button" data-action="er-defense" data-id="{cid}" data-monster="{esc(active.id)}" data-testid="defense-roll">'
                   f'Defense roll against {esc(active.name)}’s attack (variant)</button>')
    return defense


def sheet_sections(enc: Encounter, c: Combatant, cfg: dict[str, Any], events: list[Event]) -> list[tuple[str, str, str]]:
    """The sheet's parts, one shown at a time, the attack first."""
    cfg = {**DEFAULT_ATTACK, **{k: v for k, v in cfg.items() if v is not None}}
    attack = stances_html(enc, c) + reactions_html(enc, c) + attack_html(enc, c, cfg)
    return [("attack", "Attack", attack), ("save", "Save", save_html(c, cfg, events)),
            ("competition", "Competition", competition_html(enc, c, cfg, events)), ("chase", "Chase", chase_html(c, events))]


def _int(page: Page, text: str | None, default: int) -> int:
    value = page.number(text, default)
    return default if value is None else value


def _stance(page: Page) -> Act:
    return Act("er_stance", Stance(datum(page, "id"), datum(page, "stance"), page.value("ready-trigger")), page.rng)


def _save(page: Page) -> Act:
    cfg = page.attack
    return Act("er_save", Save(datum(page, "id"), kind=cfg.get("save_kind") or "body", modifier=_int(page, cfg.get("save_mod"), 0),
                               dc=_int(page, cfg.get("save_dc"), 12), adv=bool(cfg.get("save_adv")), dis=bool(cfg.get("save_dis")),
                               cover=cfg.get("cover") or "none", area=bool(cfg.get("save_area"))), page.rng)


def _competition(page: Page) -> Act:
    cfg = page.attack
    other = cfg.get("comp_other") or page.value("atk-comp_other")
    return Act("er_competition", Contest(datum(page, "id"), other, cfg.get("comp_kind") or "grapple", bool(cfg.get("comp_slick"))), page.rng)


def _impale(page: Page) -> Act:
    return Act("er_impale", Impale(datum(page, "id"), datum(page, "charger")), page.rng)


def _blind_shot(page: Page) -> tuple[Message, ...] | None:
    """The rolled attack that missed is applied, then its blind shot rolled: two steps, in order."""
    pending = page.attack.get("pending")
    if pending is None:
        return None
    return (AttackApplied(), Act("er_blind_shot", BlindShot(pending["attacker"], pending["target"], list(pending["kept"]), pending.get("damage_type")),
                                 page.rng))


def _chase(page: Page) -> Act:
    return Act("er_chase", Chase(datum(page, "id")), page.rng)


def _defense(page: Page) -> Act:
    return Act("er_defense", Defense(datum(page, "monster"), datum(page, "id")), page.rng)


class RealmsView(View):
    attack_button = True
    flag_chips = False  # reaction, Defend and At the ready have badges of their own
    fields_note = f"Damage types: {', '.join(DAMAGE_TYPES)}. Each attack skill listed adds a d20 (at most 5)."
    events = {"er-area": lambda page: SavePanelOpened(None, None, (str(datum(page, "id")),)), "er-stance": _stance, "er-save": _save, "er-competition": _competition, "er-impale": _impale,
              "er-blind-shot": _blind_shot, "er-chase": _chase, "er-defense": _defense}
    weapon_fields = ("skills", "damage_type", "die_mod", "weight", "ranged", "light", "ranged_crits", "polearm", "forte", "glaive")
    target_fields = ("ac", "ac_types", "resistant", "vulnerable", "immune", "absorbing")

    def attack_html(self, enc: Encounter, target: Combatant, attack: dict[str, Any]) -> str:
        return attack_html(enc, target, attack)

    def row_chips(self, enc: Encounter, c: Combatant) -> str:
        return row_chips(enc, c)

    def start_options(self, enc: Encounter) -> str:
        return options_html(enc)

    def sheet_sections(self, enc: Encounter, c: Combatant, attack: dict[str, Any], events: list[Event]) -> list[tuple[str, str, str]]:
        return sheet_sections(enc, c, attack, events)

    def read_attack_config(self, page: Page, config: dict[str, Any]) -> dict[str, Any]:
        """The attacker's skill boxes (each a d20), and whose skills they are."""
        owner = page.attribute(".atk-skill", "data-owner")
        if owner is None:
            return config
        return {**config, "skills": ", ".join(page.checked(".atk-skill")), "skills_of": owner}


VIEW = RealmsView()
