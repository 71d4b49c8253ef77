"""Enchanted Realms' saves and d12 competitions (grapple, shove ...), rolled and as exact odds."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ...dice import Rng
from ...errors import RuleError
from ...model import Combatant
from .restrictions import CONDITIONS, COVER, SAVE_KINDS, net_advantage, situation
from .stats import stat_number

# -- saves and competitions ------------------------------------------------------------------------

@dataclass(frozen=True)
class SaveResult:
    faces: tuple[int, ...]
    kept: int
    total: int
    success: bool
    auto_fail: str | None = None

    def text(self, dc: int) -> str:
        if self.auto_fail:
            return f"fails automatically ({self.auto_fail})"
        dice = f"2d20 {'/'.join(map(str, self.faces))} kept {self.kept}" if len(self.faces) == 2 else f"d20 {self.kept}"
        return f"{dice} = {self.total} vs DC {dc}: {'success' if self.success else 'failure'}"


def save_situation(kind: str, conditions: Iterable[str], defending: bool = False, adv: bool = False,
                   dis: bool = False) -> tuple[str | None, str | None, list[str]]:
    """(net advantage, auto-fail reason, causes) of a save of this kind (body / preservation /
    sight / hearing / social / other) under the restrictions and the Defend stance."""
    if kind not in SAVE_KINDS:
        raise RuleError(f"A save is one of {', '.join(SAVE_KINDS)}.")
    conditions = [c.title() for c in conditions]
    causes = []
    for name in conditions:
        r = CONDITIONS.get(name)
        if r and kind in r.fails_saves:
            return None, f"{r.name.lower()}: fails {kind} saves", [f"{r.name.lower()}"]
    has_adv, has_dis = adv, dis
    if adv:
        causes.append("advantage")
    if dis:
        causes.append("disadvantage")
    if defending:
        has_adv = True
        causes.append("defending: advantage")
    for name in conditions:
        r = CONDITIONS.get(name)
        if r and kind in r.save_dis:
            has_dis = True
            causes.append(f"{r.name.lower()}: disadvantage")
    return net_advantage(has_adv, has_dis), None, causes


def cover_save_bonus(cover: str, area: bool) -> int:
    """Seed 004 "Cover": against an area effect, half cover gives +2 and three-quarters or complete
    cover +5 to body preservation saves."""
    if cover not in COVER:
        raise RuleError("Cover is none, half, three-quarters or complete.")
    if not area:
        return 0
    return {"none": 0, "half": 2}.get(cover, 5)


def movement(conditions: Iterable[str]) -> str | None:
    """'none' (seed 004: grappled, restrained, paralyzed, petrified, unconscious), 'half' (a
    restriction puts its rolls at disadvantage, seed 002) or None."""
    names = [c.title() for c in conditions]
    if any(CONDITIONS[n].movement_zero for n in names if n in CONDITIONS):
        return "none"
    if situation(names, []).disadvantage:
        return "half"
    return None


def own_save_modifier(c: Combatant, kind: str) -> int:
    """The combatant's own modifier for a save of this kind: its Body modifier for body saves
    (the sheet's "Body modifier (saves, competitions)"); the panel's modifier comes on top."""
    return stat_number(c, "body_mod") if kind == "body" else 0


def roll_save(modifier: int, dc: int, net: str | None, rng: Rng, auto_fail: str | None = None) -> SaveResult:
    """Seed 002: a save is d20 (2d20 keep better / worse at advantage / disadvantage) + modifier.
    Reading: it succeeds when it meets or beats the DC; natural 20 and 1 have no special effect."""
    if auto_fail:
        return SaveResult((), 0, 0, False, auto_fail)
    faces = (rng.randint(1, 20),) if net is None else (rng.randint(1, 20), rng.randint(1, 20))
    kept = max(faces) if net == "adv" else min(faces) if net == "dis" else faces[0]
    total = kept + modifier
    return SaveResult(faces, kept, total, total >= dc)


def _die_pmf(sides: int, net: str | None) -> dict[int, float]:
    if net == "adv":
        return {f: (f * f - (f - 1) ** 2) / sides ** 2 for f in range(1, sides + 1)}
    if net == "dis":
        return {f: ((sides + 1 - f) ** 2 - (sides - f) ** 2) / sides ** 2 for f in range(1, sides + 1)}
    return {f: 1 / sides for f in range(1, sides + 1)}


def save_odds(modifier: int, dc: int, net: str | None, auto_fail: str | None = None) -> float:
    if auto_fail:
        return 0.0
    return sum(p for f, p in _die_pmf(20, net).items() if f + modifier >= dc)


COMPETITIONS = ("grapple", "escape", "shove", "trip", "passage")


@dataclass(frozen=True)
class Competition:
    """Body against body on d12 + modifiers (seed 004, "Grappling", "Pushing", "Flee Attack")."""

    kind: str
    aggressor_body: int = 0
    victim_body: int = 0
    aggressor_size: int = 3       # 1 tiny ... 6 gargantuan
    victim_size: int = 3
    aggressor_speed: int = 30
    victim_speed: int = 30
    slick: bool = False
    aggressor_prone: bool = False
    victim_prone: bool = False
    aggressor_net: str | None = None
    victim_net: str | None = None


def competition_modifiers(c: Competition) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """The modifier tables of RULES.md section 1, each with its reason: (aggressor's, victim's).
    For an escape the aggressor is the one escaping; the grappler is the 'victim' of the roll."""
    if c.kind not in COMPETITIONS:
        raise RuleError(f"A competition is one of {', '.join(COMPETITIONS)}.")
    a: list[tuple[str, int]] = []
    v: list[tuple[str, int]] = []
    if c.kind in ("grapple", "escape"):
        # Seed 004: the grappler's size advantage (+2 per category); a larger victim gets nothing
        # when grabbed. Escaping, the bonus goes to the larger side, the one escaping included.
        diff = c.aggressor_size - c.victim_size
        if diff > 0:
            a.append((f"larger by {diff} size{'s' * (diff > 1)}", 2 * diff))
        elif diff < 0 and c.kind == "escape":
            v.append((f"larger by {-diff} size{'s' * (-diff > 1)}", -2 * diff))
        held, holder = (v, a) if c.kind == "grapple" else (a, v)
        held_speed = c.victim_speed if c.kind == "grapple" else c.aggressor_speed
        holder_speed = c.aggressor_speed if c.kind == "grapple" else c.victim_speed
        if held_speed > holder_speed:
            held.append((f"faster by {held_speed - holder_speed} ft", (held_speed - holder_speed) // 10))
        if c.slick:
            held.append(("rain, ice or slick", 3))
    else:
        if c.kind in ("shove", "trip") and c.victim_size > c.aggressor_size + 1:
            raise RuleError("A push targets a creature at most one size larger.")
        if c.aggressor_size > c.victim_size:
            a.append(("larger competitor", 2))
        elif c.victim_size > c.aggressor_size:
            v.append(("larger competitor", 2))
        if c.slick:
            v.append(("rain, ice or slick", -3))
    if c.aggressor_prone:
        a.append(("prone", -5))
    if c.victim_prone:
        v.append(("prone", -5))
    return [x for x in a if x[1]], [x for x in v if x[1]]


def roll_competition(c: Competition, rng: Rng) -> dict[str, Any]:
    """Both roll d12 (2d12 keep better / worse with advantage / disadvantage) + body + modifiers;
    highest wins. Reading: a tie keeps things as they were, so the aggressor fails."""
    am, vm = competition_modifiers(c)
    out: dict[str, Any] = {}
    for who, body, mods, net in (("aggressor", c.aggressor_body, am, c.aggressor_net), ("victim", c.victim_body, vm, c.victim_net)):
        faces = (rng.randint(1, 12),) if net is None else (rng.randint(1, 12), rng.randint(1, 12))
        kept = max(faces) if net == "adv" else min(faces) if net == "dis" else faces[0]
        out[who] = {"faces": list(faces), "kept": kept, "total": kept + body + sum(m for _, m in mods), "mods": [list(m) for m in mods]}
    out["success"] = out["aggressor"]["total"] > out["victim"]["total"]
    return out


def competition_odds(c: Competition) -> float:
    am, vm = competition_modifiers(c)
    a_pmf = _die_pmf(12, c.aggressor_net)
    v_pmf = _die_pmf(12, c.victim_net)
    a_bonus = c.aggressor_body + sum(m for _, m in am)
    v_bonus = c.victim_body + sum(m for _, m in vm)
    return sum(pa * pv for fa, pa in a_pmf.items() for fv, pv in v_pmf.items() if fa + a_bonus > fv + v_bonus)
