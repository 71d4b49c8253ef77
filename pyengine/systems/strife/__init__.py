"""Realm of Strife: d100 attacks against AC or Resistance, parries and blocks, crit ranges, combined
attacks, the turn's components, the 4-3-2 rule and class resources between battles.

Rules from seed 001_ac0439225e17923b.txt as fixed by shared/RULES.md section 2. Readings this module
adds where both are silent are marked **Reading** in the docstrings.

The rules by subject, one module each: `rules` (the hit roll, exact odds, modifiers), `turns` (the
tracker's side: stats into attacks, the turn economy, resources, battles), `power` (a power on several
targets), `fight` (the System).
"""

from __future__ import annotations

from .fight import StrifeSystem
from .power import MAX_POWER_TARGETS, PowerRequest, apply_power, power_odds, resolve_power
from .rules import (
    SIZES,
    Odds,
    Portion,
    PortionResult,
    Result,
    Spec,
    attack_odds,
    check_432,
    penalties,
    resolve_attack,
    split_bonus,
    untrained_block,
    ward_off_odds,
)
from .turns import (
    ATTACK_KINDS,
    RESOURCES,
    STAT,
    STATS,
    TURN_PARTS,
    Bottom,
    Part,
    Resource,
    acting,
    begin_battle,
    build_spec,
    end_battle,
    parse_riders,
)

__all__ = [
    "Part", "Bottom", "Resource", "ATTACK_KINDS", "build_spec", "parse_riders", "SIZES", "Portion", "Spec", "PortionResult", "Result", "Odds", "split_bonus", "penalties", "untrained_block", "resolve_attack",
    "attack_odds", "ward_off_odds", "check_432", "TURN_PARTS", "RESOURCES", "STATS", "STAT", "acting",
    "end_battle", "begin_battle", "StrifeSystem", "PowerRequest", "power_odds", "resolve_power", "apply_power", "MAX_POWER_TARGETS",
]
