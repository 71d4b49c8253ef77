"""Realm of Strife's System: the actions, the turn flow's hooks and the odds the tracker asks for."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ...dice import Rng
from ...errors import SchemaError
from ...model import Combatant, Encounter, Event
from ...rules import ActionRule, AttackOutcome, System, settle_ties, whole
from .power import PowerRequest, apply_power, resolve_power
from .turns import (
    RESOURCES,
    STATS,
    TURN_STATE,
    Bottom,
    Part,
    Resource,
    apply_attack,
    apply_bottom,
    apply_part,
    apply_resource,
    begin_battle,
    end_battle,
    resolved_attack_action,
    set_turn,
    turn,
)

__all__ = ["StrifeSystem"]

class StrifeSystem(System):
    """Realm of Strife in the tracker (seed 001): turn order by the Initiative stat, the turn's
    components as a checklist, d100 attacks, class resources between battles."""

    def fresh_stats(self, stats: dict[str, Any]) -> dict[str, Any]:
        """Resources with a maximum start full."""
        return {**stats, **{key: stats[f"{key}_max"] for key, (_, has_max) in RESOURCES.items() if has_max and f"{key}_max" in stats}}

    name = "strife"
    label = "Realm of Strife"
    no_delay = ("In Realm of Strife a character gives up its place only to the bottom of the queue (once a round "
                "for each side), on its own turn.")
    aliases = ("ros", "realm of strife", "d100")
    round_seconds = 6  # Reading: seed 001 gives no round length; the clock shows 6 s per round
    options = {"crit_miss": tuple(range(0, 51))}
    stat_fields = STATS
    rolls_initiative = False  # the turn order is the Initiative stat
    attack_kind = "ros_attack"
    turn_tools = ("uses",)    # seed 001: "each faith power can only be used once per day" (a power, 1 a day)

    def attack_outcome(self, args: dict[str, Any]) -> AttackOutcome:
        """Crit miss, miss, stopped (by a ward, parry or block), hit or crit."""
        outcome = args.get("outcome")
        return AttackOutcome.read(args, outcome in ("hit", "crit"), args.get("damage"), outcome == "crit")

    def attack_roll_words(self, args: dict[str, Any]) -> str:
        """The player's own d100 and its total with the attacker's modifiers ("d100 (62) = 67", a portion
        each for a combined attack); never the AC or Resistance, nor the defender's parry or block die.
        A blow warded off before the d100: its ward-off roll-off."""
        natural = args.get("natural")
        if natural is None:
            return "ward-off roll-off" if args.get("ward") else ""
        portions = [p for p in args.get("portions") or [] if isinstance(p, dict)]
        totals = ", ".join(f"{p.get('kind', '')} {p.get('total')}" for p in portions) if len(portions) > 1 else \
            str(portions[0].get("total")) if portions else ""
        return f"d100 ({natural})" + (f" = {totals}" if totals else "")

    def attack_result_words(self, args: dict[str, Any]) -> str:
        """Its outcome as the table sees it: critical miss, (automatic) miss, warded off, parried,
        blocked, hit, critical hit."""
        out = str(args.get("outcome", ""))
        return "critical hit" if out == "crit" else out or "miss"

    def attack_damage_words(self, args: dict[str, Any]) -> str:
        """The damage (doubled on a critical), and the riders that took hold (stun, disarm …)."""
        outcome = self.attack_outcome(args)
        riders = [str(r) for r in args.get("riders") or []]
        parts = ([f"{outcome.damage} damage" + (" (doubled)" if outcome.crit else "")] if outcome.damage > 0 else []) + riders
        return ", ".join(parts)

    def own_gauges(self, combatant: Combatant) -> list[list[Any]]:
        """The character's resources it has (Vigor, Spirit, Faith, Focus, Fury, code points …), with their maximum."""
        stats = dict(combatant.stats)
        out: list[list[Any]] = []
        for key, (label, has_max) in RESOURCES.items():
            top = stats.get(f"{key}_max") if has_max else None
            if key in stats or top:
                out.append([label, whole(stats.get(key, top or 0)), whole(top) if top else None])
        return out

    actions = {"ros_part": ActionRule(apply_part, request=Part), "ros_bottom": ActionRule(apply_bottom, request=Bottom),
               "ros_attack": ActionRule(apply_attack, resolved_attack_action), "ros_resource": ActionRule(apply_resource, request=Resource),
               "ros_power": ActionRule(apply_power, resolve_power, PowerRequest)}

    def roll_initiative(self, combatant: Combatant, rng: Rng) -> tuple[int, int, str]:
        """Reading: the turn order is the Initiative stat itself, highest first (no roll)."""
        return combatant.init_mod, 0, f"Initiative {combatant.init_mod}"

    def break_ties(self, encounter: Encounter, results: dict[str, list[Any]], rng: Rng) -> None:
        """Reading: equal Initiative is settled by a d100 roll-off, repeated while tied."""
        settle_ties(results, rng, 100)

    def order_key(self, combatant: Combatant) -> tuple[Any, ...]:
        init = combatant.initiative if combatant.initiative is not None else -10**9
        return (-init, -combatant.tiebreak)

    def check_turn_state(self, enc: Encounter) -> None:
        """The turn's checklist (TURN_STATE: which parts were used, who acted in a group's turn, the
        bottom-of-the-queue moves, the attacks made) with its own types, naming only combatants here."""
        st = turn(enc)
        ids = {c.id for c in enc.combatants}
        sides = {"party", "opponents"}

        def of(key: str, ok: Any) -> bool:
            value = st.get(key, [])
            return isinstance(value, list) and len(value) <= 200 and all(ok(v) for v in value)

        def one(v: Any, among: Any) -> bool:
            return isinstance(v, str) and v in among  # (a list is no id: never looked up in a set)

        fine = (set(st) <= set(TURN_STATE)
                and ("acting" not in st or one(st["acting"], ids))
                and of("acted", lambda v: one(v, ids)) and of("free", lambda v: one(v, ids))
                and of("parts", lambda v: one(v, ("rest", "sprint", "instant", "move", "action")))
                and of("bottom", lambda v: one(v, sides)) and of("action_kinds", lambda v: one(v, ("power", "off")))
                and of("returns", lambda v: isinstance(v, list) and len(v) == 2 and one(v[0], ids) and isinstance(v[1], str))
                and of("attacks", lambda v: isinstance(v, list) and len(v) == 2 and isinstance(v[0], str) and isinstance(v[1], str)))
        if not fine or (st and not enc.started):
            raise SchemaError("The fight's turn state is unreadable.")

    def on_turn_start(self, enc: Encounter) -> Encounter:
        st = turn(enc)
        keep = {k: st[k] for k in ("bottom", "returns") if k in st}
        return set_turn(enc, keep) if keep != st else enc

    def on_new_round(self, enc: Encounter, rolls: dict[str, Any] | None = None) -> tuple[Encounter, list[Event]]:
        """Whoever went to the bottom of the queue returns to its place; the choice is open again."""
        st = turn(enc)
        combatants = list(enc.combatants)
        for cid, follower in reversed(st.get("returns", [])):
            mover = next((x for x in combatants if x.id == cid), None)
            if mover is None:
                continue
            combatants.remove(mover)
            at = next((i for i, x in enumerate(combatants) if x.id == follower), None)
            if at is None:
                at = next((i for i, x in enumerate(combatants) if self.order_key(x) > self.order_key(mover)), len(combatants))
            combatants.insert(at, mover)
        return replace(enc, combatants=tuple(combatants), turn=()), []

    def begin_combat(self, enc: Encounter, args: dict[str, Any]) -> tuple[Encounter, list[Any]]:
        return begin_battle(enc, bool(args.get("soon")))

    def end_combat(self, enc: Encounter) -> Encounter:
        return end_battle(enc)
