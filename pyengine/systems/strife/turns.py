"""Realm of Strife at the tracker: the sheet's stats into an attack's spec, riders, the turn's
components (rest, sprint, instant, move, action), the bottom of the queue, class resources, battles."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ...damage import harm, mend
from ...dice import Rng
from ...errors import EngineError, RuleError
from ...model import Combatant, Condition, Encounter, Outcome, StatField
from ...odds import distribution
from ...record import Record, field
from ...rules import system_of
from ...turns import active_unit, advance, turn_starts
from .rules import MAX_RIDERS, Portion, Spec, check_432, penalties, resolve_attack, split_bonus, untrained_block

__all__ = ["Bottom", "Part", "RESOURCES", "Resource", "STAT", "STATS", "TURN_PARTS", "TURN_STATE", "acting", "apply_attack", "apply_bottom", "apply_part", "apply_resource", "attack_turn", "begin_battle", "end_battle", "resolved_attack_action", "set_turn", "turn"]

# -- the tracker's side ---------------------------------------------------------------------------

TURN_PARTS = ("rest", "sprint", "instant", "move", "action")
MOVES = ("move", "charge", "disengage", "forced")
RESOURCES = {  # key -> (label, has a maximum)
    "vigor": ("Vigor", True), "fury": ("Fury", False), "honor": ("Code points", True), "stacks": ("Code stacks", False),
    "spirit": ("Spirit", True), "faith": ("Faith", True), "focus": ("Focus", True), "stealth": ("Stealth", False),
}
STATS = (  # the combatant sheet's fields, and the bounds the rules check
    StatField("ac", "AC", low=-100, high=200), StatField("resist", "Resistance", low=-100, high=200),
    StatField("dodge", "Dodge", low=-100, high=200), StatField("hit", "To-hit modifier", low=-200, high=200),
    StatField("crit", "Crit chance %", default=5, high=100), StatField("parry", "Parry %", high=100), StatField("block", "Block %", high=100),
    StatField("spirit_hit", "Spirit to-hit modifier", low=-200, high=200), StatField("spirit_crit", "Spirit crit chance %", default=5, high=100),
    StatField("size", "Weapon size (1 S … 4 XL)", default=2, low=1, high=4), StatField("armour_untrained", "Untrained armour pieces", high=20),
    *(StatField(f"{k}_max", f"{label} max", high=10_000) for k, (label, has_max) in RESOURCES.items() if has_max),
    *(StatField(k, label, high=10_000) for k, (label, has_max) in RESOURCES.items() if not has_max),
    StatField("weapon", "Weapon damage", "text", "1d6"), StatField("offhand", "Off-hand damage (if dual wielding)", "text", ""),
    StatField("power", "Power damage", "text", "2d6"),
    StatField("ward_off", "Weapon with Ward-off", "flag", False), StatField("dual_skill", "Dual Wield skill", "flag", False),
    StatField("untrained", "Weapon untrained", "flag", False), StatField("shield_untrained", "Shield untrained", "flag", False),
    StatField("hiding", "Hiding announced before battle", "flag", False),
)
STAT = {f.key: f for f in STATS}


def _num(c: Combatant, key: str) -> int:
    return STAT[key].number(c)


def _notation(c: Combatant, key: str) -> str:
    field = STAT[key]
    text = str(field.read(c) or "").strip()
    if not text:
        raise RuleError(f"{c.name} has no {field.label.lower()}.")
    try:
        distribution(text)
    except EngineError as error:
        raise RuleError(f"{c.name}'s {field.label.lower()}: {error}") from None
    return text


ATTACK_KINDS = ("physical", "spirit", "combined", "mixed")  # mixed: combined damage, no distinction


def _numbers(config: dict[str, Any]) -> tuple[int, int, int, int]:
    """The panel's numbers, checked: inches moved, the situational modifier, the damage bonus, targets."""
    try:
        inches = int(config.get("inches") or 0)
        situational = int(config.get("modifier") or 0)
        bonus = int(config.get("bonus") or 0)
        targets = int(config.get("targets") or 1)
    except (TypeError, ValueError):
        raise RuleError("Moves, modifiers and bonuses are whole numbers.") from None
    if abs(situational) > 500 or abs(bonus) > 10_000 or not 1 <= targets <= 100:
        raise RuleError("Modifier -500 to 500, bonus up to 10,000, 1 to 100 targets.")
    return inches, situational, bonus, targets


def _riders(given: Any) -> tuple[tuple[str, int], ...]:
    """An attack's riders, [[name, %], ...] or typed as text ("Stun 20, Bleed 10"), checked."""
    riders = []
    for entry in parse_riders(given) if isinstance(given, str) else given:
        try:
            name, chance = str(entry[0]).strip()[:30], int(entry[1])
        except (TypeError, ValueError, IndexError):
            raise RuleError("A rider is a name and a percentage, e.g. Stun 20.") from None
        if not name:
            raise RuleError("A rider needs a name.")
        riders.append((name, chance))
    return tuple(riders)


def _defences(attacker: Combatant, target: Combatant, close: bool) -> tuple[int, int, tuple[int, int] | None, bool]:
    """The target's block (halved with an untrained shield), parry, ward-off (the two initiative
    modifiers, against a physical attack in close combat) and whether its weapon is untrained."""
    block = _num(target, "block")
    if target.stat_or("shield_untrained", False):
        block = untrained_block(block)
    parry = _num(target, "parry")
    ward = None
    target_untrained = bool(target.stat_or("untrained", False))
    if target_untrained:
        # Seed 001: an untrained weapon "cannot use any of the weapon effects (Parry, Cleaving, Ward-off ...)".
        parry = 0
    elif close and target.stat_or("ward_off", False):
        ward = (attacker.init_mod, target.init_mod)
    return block, parry, ward, target_untrained


def build_spec(encounter: Encounter, config: dict[str, Any]) -> tuple[Spec, list[tuple[str, int]], dict[str, Any]]:
    """Build the attack the panel describes: the portions with every modifier and its reason.

    config: attacker, target, kind (ATTACK_KINDS), weapon ("main" / "off"), ranged, inches, flying,
    missile (a spirit power that adds Dodge), blockable (power says it can be blocked), melee
    (close combat: ward-off applies), modifier (situational), bonus (damage bonus of the hit roll),
    targets (targets the hit roll hit, for the bonus split), riders [[name, %], ...]."""
    attacker, target = encounter.get(config["attacker"]), encounter.get(config["target"])
    if attacker.id == target.id:
        raise RuleError("A combatant cannot attack itself.")
    kind = config.get("kind", "physical")
    if kind not in ATTACK_KINDS:
        raise RuleError("An attack is physical, spirit, combined or combined damage.")
    weapon = config.get("weapon", "main")
    if weapon not in ("main", "off"):
        raise RuleError("Attack with the main-hand or the off-hand weapon.")
    dual = bool(str(attacker.stat_or("offhand", "") or "").strip())
    if weapon == "off" and not dual:
        raise RuleError(f"{attacker.name} has no off-hand weapon.")
    inches, situational, bonus, targets = _numbers(config)
    reasons: list[tuple[str, int]] = []
    untrained = bool(attacker.stat_or("untrained", False))
    physical = kind in ("physical", "combined", "mixed")
    if physical:
        reasons += penalties(ranged=bool(config.get("ranged")), inches_moved=inches, flying=bool(config.get("flying")),
                             dual_wielding=dual, dual_wield_skill=bool(attacker.stat_or("dual_skill", False)),
                             weapon_size=_num(attacker, "size"), trained=not untrained)
    if situational:
        reasons.append(("situational", situational))
    penalty = sum(v for _, v in reasons)
    ac = _num(target, "ac") - _num(target, "armour_untrained")
    resist = _num(target, "resist")
    dodge = _num(target, "dodge")
    res_total = resist + (dodge if config.get("missile") else 0)
    share = split_bonus(bonus, targets)
    crit_ok = not (dual and not attacker.stat_or("dual_skill", False))
    hand = "offhand" if weapon == "off" else "weapon"

    def with_bonus(notation: str) -> str:
        return notation if not share else f"({notation}){'+' if share > 0 else '-'}{abs(share)}"

    portions = []
    if kind in ("physical", "combined"):
        portions.append(Portion("physical", _num(attacker, "hit") + penalty, _num(attacker, "crit"), ac,
                                with_bonus(_notation(attacker, hand)), can_crit=crit_ok))
    if kind == "mixed":
        portions.append(Portion("physical", _num(attacker, "hit") + penalty, _num(attacker, "crit"), min(ac, res_total),
                                with_bonus(_notation(attacker, hand)), can_crit=crit_ok))
    if kind in ("spirit", "combined"):
        spirit_penalty = situational if kind == "spirit" else 0
        portions.append(Portion("spirit", _num(attacker, "spirit_hit") + spirit_penalty, _num(attacker, "spirit_crit"), res_total,
                                with_bonus(_notation(attacker, "power")), parryable=False, blockable=bool(config.get("blockable"))))
    block, parry, ward, target_untrained = _defences(attacker, target, physical and not config.get("ranged"))
    spec = Spec(tuple(portions), int(encounter.option("crit_miss", 5)), parry if physical else 0,
                block if (physical or config.get("blockable")) else 0, ward, _riders(config.get("riders") or []))
    notes = {"ac": ac, "resistance": res_total, "share": share, "can_crit": crit_ok, "untrained": untrained,
             "target_untrained": target_untrained,
             "range_halved": untrained and bool(config.get("ranged"))}  # seed 001: untrained thrown range halved
    return spec, reasons, notes


def parse_riders(text: str) -> list[list[Any]]:
    """'Stun 20, Disarm 10%' -> [['Stun', 20], ['Disarm', 10]]."""
    out = []
    for part in (text or "").split(","):
        part = part.strip().rstrip("%").strip()
        if not part:
            continue
        name, _, number = part.rpartition(" ")
        try:
            chance = int(number)
        except ValueError:
            raise RuleError(f"“{part[:30]}”: a rider is a name and a percentage, e.g. Stun 20.") from None
        if not name.strip() or not 0 <= chance <= 100:
            raise RuleError(f"“{part[:30]}”: a rider is a name and a percentage 0 to 100.")
        out.append([name.strip(), chance])
    if len(out) > MAX_RIDERS:
        raise RuleError(f"At most {MAX_RIDERS} riders.")
    return out


TURN_STATE = ("acting", "acted", "parts", "free", "bottom", "returns", "action_kinds", "attacks")  # what turn holds


def turn(enc: Encounter) -> dict[str, Any]:
    return dict(enc.turn)


def set_turn(enc: Encounter, st: dict[str, Any]) -> Encounter:
    return replace(enc, turn=tuple(sorted(st.items())))


def acting(enc: Encounter) -> str | None:
    """Who takes the turn's parts now: the active combatant, or in a group's turn the member whose
    turn it is (the members take their turns one after another, each with its own checklist)."""
    return turn(enc).get("acting", enc.active_id) if enc.started else None


def _require_turn(enc: Encounter, cid: str) -> None:
    if not enc.started:
        raise RuleError("Start the fight first.")
    if cid != acting(enc):
        raise RuleError(f"It is not {enc.get(cid).name}'s turn.")


def _end_turn(enc: Encounter, events: list[Any]) -> Outcome:
    """The acting combatant's turn is over: the next member of its group takes its own, else the
    turn passes on."""
    unit = active_unit(enc)
    st = turn(enc)
    if len(unit) > 1:
        acted = st.get("acted", []) + [acting(enc)]
        system = system_of(enc)
        left = [c for c in unit if c.id not in acted and not system.is_down(c)]
        if left:
            keep = {k: st[k] for k in ("bottom", "returns") if k in st}
            enc = set_turn(enc, {**keep, "acting": left[0].id, "acted": acted})
            return enc, tuple(events) + (enc.event("turn", f"{left[0].name}'s turn", who=left[0].id),)
    enc, more = advance(enc, system_of(enc), forward=True)
    return enc, tuple(events) + more


class Part(Record):
    """A request to take one part of a turn (`part`); a move says its `mode` and whether it starts
    `adjacent` to a foe."""

    id: str
    part: str
    mode: str | None = None
    adjacent: list[str] = field(default_factory=list)


class Bottom(Record):
    """A request for the Bottom of the Round's roll."""

    id: str


class Resource(Record):
    """A request to spend (`delta` < 0) or regain one of a character's resources (`key`)."""

    id: str
    key: str
    delta: int


def apply_part(enc: Encounter, args: dict[str, Any]) -> Outcome:
    """Seed 001, turn components: Rest (+1 HP, the whole turn) or Sprint (ends the turn) only as the
    turn's first thing; otherwise one Instant, one Move (charge / disengage), and the Action, which
    ends the turn. Reading: forced movement is not the turn's Move and gives no free attacks."""
    c = enc.get(args["id"])
    part = args.get("part")
    if part not in TURN_PARTS:
        raise RuleError(f"A turn part is one of {', '.join(TURN_PARTS)}.")
    if part != "move" or args.get("mode") != "forced":
        _require_turn(enc, c.id)
    st = turn(enc)
    used = list(st.get("parts", []))
    if part in ("rest", "sprint") and used:
        raise RuleError(f"{part.title()} takes the whole turn: {c.name} already used {', '.join(used)}.")
    if part in used and part in ("instant", "move", "action"):
        raise RuleError(f"{c.name} already used the {part.title()} this turn.")
    if part == "rest":
        enc, gained, up = mend(enc, c, 1 if c.max_hp is not None else 0)
        events = [enc.event("rest", f"{c.name} rests" + (f" and regains {gained} HP" if gained else " (already at full HP)"), who=c.id), *up]
        return _end_turn(set_turn(enc, {**st, "parts": used + ["rest"]}), events)
    if part == "sprint":
        events = [enc.event("sprint", f"{c.name} sprints (double ground speed); the turn ends", who=c.id)]
        return _end_turn(set_turn(enc, {**st, "parts": used + ["sprint"]}), events)
    if part == "instant":
        return set_turn(enc, {**st, "parts": used + ["instant"]}), (enc.event("instant", f"{c.name} uses an Instant", who=c.id),)
    if part == "move":
        mode = args.get("mode", "move")
        if mode not in MOVES:
            raise RuleError("A move is a move, a charge, a disengage or forced.")
        if mode == "forced":
            return enc, (enc.event("moved", f"{c.name} is moved against their will: not disengaging, no free attacks", who=c.id),)
        if "action" in used:
            raise RuleError("The Action ended the turn.")
        st = {**st, "parts": used + ["move"]}
        if mode == "charge":
            return set_turn(enc, st), (enc.event("charge", f"{c.name} charges into base contact", who=c.id),)
        if mode == "disengage":
            adjacent = [enc.get(i) for i in args.get("adjacent", []) if i != c.id]
            if not adjacent:
                return set_turn(enc, st), (enc.event("move", f"{c.name} moves away (no enemy in base contact)", who=c.id),)
            st["free"] = sorted(set(st.get("free", [])) | {x.id for x in adjacent})
            names = ", ".join(x.name for x in adjacent)
            return set_turn(enc, st), (enc.event("disengage", f"{c.name} disengages: {names} may each make a free basic melee attack "
                                                                 "with each equipped weapon (each weapon once this turn)", who=c.id),)
        return set_turn(enc, st), (enc.event("move", f"{c.name} moves", who=c.id),)
    # the Action
    events = [enc.event("action", f"{c.name} takes the Action; the turn ends", who=c.id)]
    return _end_turn(set_turn(enc, {**st, "parts": used + ["action"]}), events)


def apply_bottom(enc: Encounter, args: dict[str, Any]) -> Outcome:
    """Seed 001: once per round one character per side may give up its place and act last."""
    c = enc.get(args["id"])
    _require_turn(enc, c.id)
    st = turn(enc)
    if st.get("parts"):
        raise RuleError(f"{c.name} already acted this turn.")
    if c.side in st.get("bottom", []):
        raise RuleError(f"Someone of the {c.side} already went to the bottom of the queue this round.")
    if c.group is not None:
        raise RuleError("A group acts together and cannot go to the bottom of the queue.")
    index = next(i for i, x in enumerate(enc.combatants) if x.id == c.id)
    if index == len(enc.combatants) - 1:
        raise RuleError(f"{c.name} already acts last.")
    follower = enc.combatants[index + 1].id
    rest = [x for x in enc.combatants if x.id != c.id]
    moved = replace(enc, combatants=tuple(rest) + (c,))
    st = {**st, "bottom": sorted(set(st.get("bottom", [])) | {c.side}),
          "returns": st.get("returns", []) + [[c.id, follower]]}
    moved = set_turn(moved, st)
    # The turn passes to whoever followed; the mover acts last this round.
    moved = replace(moved, active_id=follower)
    moved, started = turn_starts(moved, system_of(moved))
    return moved, (enc.event("bottom", f"{c.name} goes to the bottom of the queue", who=c.id),) + started


def attack_turn(enc: Encounter, args: dict[str, Any]) -> dict[str, Any]:
    """May this attack be made now (turn parts, free attacks, 4-3-2)? Returns the turn state after it.
    Reading: an Instant that is not a direct-damage one counts toward 4-3-2 with the Action's attacks."""
    attacker, target = enc.get(args["attacker"]), enc.get(args["target"])
    use = args.get("use", "action")
    st = turn(enc)
    if use not in ("action", "instant", "free", "direct"):
        raise RuleError("An attack is made as the Action, an Instant, a direct-damage Instant or a free attack.")
    if use in ("action", "instant", "direct"):
        _require_turn(enc, attacker.id)
        used = st.get("parts", [])
        if use == "action" and "action" in used:
            raise RuleError("The Action already ended the turn.")
        if use in ("instant", "direct") and "instant" in used:
            raise RuleError(f"{attacker.name} already used the Instant this turn.")
    weapon = args.get("weapon", "main")
    if use == "action":
        # Seed 001: "an action based power/spell takes the entire action and cannot be paired with
        # an off-hand attack". Reading: a power is a spirit attack; a combined attack is a weapon's.
        power = args.get("kind", "physical") == "spirit"
        paired = st.get("action_kinds", [])
        if power and "off" in paired:
            raise RuleError("A power takes the entire action: it cannot follow an off-hand attack.")
        if weapon == "off" and not power and "power" in paired:
            raise RuleError("A power took the entire action: no off-hand attack with it.")
        mark = "power" if power else "off" if weapon == "off" else None
        if mark and mark not in paired:
            st = {**st, "action_kinds": paired + [mark]}
        made = [tuple(x) for x in st.get("attacks", [])]
        check_432(made, target.id, weapon, attacker.pc)
        if attacker.pc:  # NPCs are exempt, so their attacks are not counted (and the turn state stays small)
            st = {**st, "attacks": [list(x) for x in made] + [[target.id, weapon]]}
    elif use in ("instant", "direct"):
        st = {**st, "parts": st.get("parts", []) + ["instant"]}
        if use == "instant":
            check_432([tuple(x) for x in st.get("attacks", [])], target.id, weapon, attacker.pc)
            if attacker.pc:
                st["attacks"] = st.get("attacks", []) + [[target.id, weapon]]
    else:
        if attacker.id not in st.get("free", []):
            raise RuleError(f"{attacker.name} has no free attack: nobody disengaged from them this turn.")
        key = f"{attacker.id}:{weapon}"
        if key in st.get("free_used", []):
            raise RuleError(f"{attacker.name} already made a free attack with that weapon this turn.")
        st = {**st, "free_used": st.get("free_used", []) + [key]}
    return st


def apply_attack(enc: Encounter, args: dict[str, Any]) -> Outcome:
    """Apply a rolled attack: damage to the target, riders as conditions, the 4-3-2 count."""
    st = attack_turn(enc, args)
    attacker, target = enc.get(args["attacker"]), enc.get(args["target"])
    damage = args.get("damage", 0)
    if not isinstance(damage, int) or isinstance(damage, bool) or not 0 <= damage <= 1_000_000:
        raise RuleError("An attack result is out of range.")
    enc, hurt, hurt_events = harm(enc, target, damage)
    target = enc.get(target.id)
    conditions = target.conditions
    events = [enc.event("attack", f"{attacker.name} attacks {target.name}: {args.get('outcome', '?')}"
                     + (f", {damage} damage" if damage else "") + (f" ({hurt.note})" if hurt.absorbed else ""), args.get("text"), target.id)]
    seq = enc.seq
    for name in args.get("riders", []):
        seq += 1
        conditions = conditions + (Condition(id=f"k{seq}", name=str(name)[:60], source_id=attacker.id),)
        events.append(enc.event("condition", f"{target.name}: {name} (rider)", who=target.id))
    enc = replace(enc, seq=seq).with_combatant(replace(target, conditions=conditions))
    return set_turn(enc, st), (*events, *hurt_events)


def apply_resource(enc: Encounter, args: dict[str, Any]) -> Outcome:
    c = enc.get(args["id"])
    key = args.get("key")
    if key not in RESOURCES:
        raise RuleError("Unknown resource.")
    try:
        delta = int(args.get("delta", 0))
    except (TypeError, ValueError):
        raise RuleError("Enter a whole number.") from None
    if abs(delta) > 10_000:
        raise RuleError("Change a resource by at most 10,000.")
    label, has_max = RESOURCES[key]
    now = int(c.stat_or(key, 0) or 0)
    if now + delta < 0:
        raise RuleError(f"{c.name} has only {now} {label}.")
    value = now + delta
    if has_max:
        top = int(c.stat_or(f"{key}_max", 0) or 0)
        value = min(value, top)
    stats = tuple(sorted({**dict(c.stats), key: value}.items()))
    verb = "spends" if delta < 0 else "gains"
    return (replace(enc, combatants=tuple(replace(x, stats=stats) if x.id == c.id else x for x in enc.combatants)),
            (enc.event("resource", f"{c.name} {verb} {abs(value - now)} {label} ({value})", who=c.id),))


def end_battle(enc: Encounter) -> Encounter:
    """Seed 001, "Combat and Class Mechanic Summaries": Vigor refills; code points refill and code
    stacks are lost; Fury halves (rounded down, **Reading**) and is lost unless the next battle
    starts within 2 in-game minutes (asked when it starts); HP, Spirit, Faith and Focus carry over."""
    combatants = []
    for c in enc.combatants:
        stats = dict(c.stats)
        if stats.get("vigor_max"):
            stats["vigor"] = stats["vigor_max"]
        if stats.get("honor_max"):
            stats["honor"] = stats["honor_max"]
        if stats.get("stacks"):
            stats["stacks"] = 0
        if stats.get("fury"):
            stats["fury"] = int(stats["fury"]) // 2
        combatants.append(replace(c, stats=tuple(sorted(stats.items()))))
    return replace(enc, combatants=tuple(combatants))


def begin_battle(enc: Encounter, soon: bool) -> tuple[Encounter, list[Any]]:
    """At a battle's start: Fury from the last battle survives only if this one follows within
    2 in-game minutes (`soon`); Stealth starts at 0 unless hiding was announced."""
    combatants, events = [], []
    for c in enc.combatants:
        stats = dict(c.stats)
        if stats.get("fury") and not soon:
            events.append(enc.event("resource", f"{c.name}'s Fury is lost (more than 2 minutes since the last battle)", who=c.id))
            stats["fury"] = 0
        if stats.get("stealth") and not stats.get("hiding"):
            stats["stealth"] = 0
        combatants.append(replace(c, stats=tuple(sorted(stats.items()))))
    return replace(enc, combatants=tuple(combatants)), events


def resolved_attack_action(encounter: Encounter, args: dict[str, Any], rng: Rng) -> dict[str, Any]:
    config = {k: args[k] for k in ("attacker", "target", "kind", "weapon", "ranged", "inches", "flying", "missile",
                                   "blockable", "modifier", "bonus", "targets", "riders") if k in args}
    spec, reasons, _ = build_spec(encounter, config)
    attack_turn(encounter, args)  # refused before any die is rolled
    result = resolve_attack(spec, rng)
    return {"attacker": args["attacker"], "target": args["target"], "use": args.get("use", "action"),
            "weapon": args.get("weapon", "main"), "kind": args.get("kind", "physical"),
            "outcome": result.outcome, "damage": result.damage, "text": result.text(),
            "natural": result.natural, "ward": [list(p) for p in result.ward],
            "parry_die": result.parry_die, "block_die": result.block_die,
            "portions": [{"kind": p.kind, "total": p.total, "outcome": p.outcome, "stopped": p.stopped,
                          "dice": p.dice, "damage": p.damage} for p in result.portions],
            "riders": [r[0] for r in result.riders if r[3]],
            "rider_rolls": [list(r) for r in result.riders],
            "reasons": [list(r) for r in reasons]}
