"""Enchanted Realms: d10 initiative with d20 roll-offs, pools of d20 against AC, crits (immediate
chains or next round), advantage that never stacks, damage types, saves, d12 competitions, the 14
restrictions, turn economy, and the variants (defense rolls, blind shot, impalement, chase mode).

Rules from seeds 000_a0b07f15bc4d7147.txt (Combat Essentials), 002_cc505cdd17009f72.txt (Advantage)
and 004_f8f8c3085bf2d4bf.txt (Combat Detailed) as fixed by shared/RULES.md section 1. Readings this
module adds where both are silent are marked **Reading**.

The rules by subject, one module each: `restrictions`, `attack` (pools, crits, damage types, exact
odds), `saves` (and competitions), `variants` (defense rolls, blind shot, impalement, chase); `fight`
is the tracker's side (stats into attacks, the turn economy, the actions, the System).
"""

from __future__ import annotations

from .attack import CRIT_SKILLS, DAMAGE_TYPES, AttackOdds, AttackRoll, Pool, apply_damage_types, attack_odds, pool_size, roll_attack
from .fight import BlindShot, Chase, Contest, Defense, Impale, RealmsSystem, Save, Stance, build_attack, competition_of, listed
from .restrictions import CONDITIONS, SAVE_KINDS, Restriction, Situation, net_advantage, situation
from .saves import (
    COMPETITIONS,
    Competition,
    SaveResult,
    competition_modifiers,
    competition_odds,
    cover_save_bonus,
    movement,
    own_save_modifier,
    roll_competition,
    roll_save,
    save_odds,
    save_situation,
)
from .variants import (
    CHASE_TABLE,
    blind_shot,
    chase_hexes,
    chase_over,
    chase_penalty,
    chase_second,
    defense_roll,
    impalement,
    impalement_pool,
)

__all__ = [
    "Stance", "Save", "Contest", "Impale", "BlindShot", "Chase", "Defense",
    "AttackOdds", "AttackRoll", "CHASE_TABLE", "COMPETITIONS", "CONDITIONS", "CRIT_SKILLS", "Competition",
    "DAMAGE_TYPES", "Pool", "RealmsSystem", "Restriction", "SAVE_KINDS", "SaveResult", "Situation",
    "apply_damage_types", "attack_odds", "blind_shot", "build_attack", "chase_hexes", "chase_over", "chase_penalty",
    "chase_second", "competition_modifiers", "competition_odds", "competition_of", "cover_save_bonus", "defense_roll",
    "impalement", "impalement_pool", "listed", "movement", "net_advantage", "own_save_modifier", "pool_size",
    "roll_attack", "roll_competition", "roll_save", "save_odds", "save_situation", "situation"
]
