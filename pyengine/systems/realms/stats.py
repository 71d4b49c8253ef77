"""An Enchanted Realms combatant's stats: the sheet's fields, with the bounds the rules check, and
how the rules read one as a number."""

from __future__ import annotations

from ...model import Combatant, StatField

STATS = (  # the combatant sheet's fields, and the bounds the rules check
    StatField("skills", "Attack skills (each adds a d20)", "text", "melee fighting", placeholder="melee fighting, slashing"),
    StatField("damage_type", "Weapon damage type", "text", "edged", placeholder="edged"),
    StatField("ac_types", "AC by damage type", "text", "", placeholder="blunt 13"),
    StatField("resistant", "Resistant to", "text", "", placeholder="fire, cold"), StatField("vulnerable", "Vulnerable to", "text", ""),
    StatField("immune", "Immune to", "text", ""), StatField("absorbing", "Absorbs", "text", ""),
    StatField("ac", "AC", default=10, low=-20, high=60), StatField("str", "Strength modifier", low=-10, high=20),
    StatField("agi", "Agility modifier", low=-10, high=20), StatField("body_mod", "Body modifier (saves, competitions)", low=-10, high=30),
    StatField("die_mod", "Modifier on each attack die", low=-20, high=30), StatField("weight", "Weapon weight", high=20),
    StatField("speed", "Speed (ft)", default=30, high=300), StatField("size", "Size (1 tiny … 6 gargantuan)", default=3, low=1, high=6),
    StatField("ranged", "Ranged weapon", "flag", False), StatField("light", "Light or reach weapon (sneak attacks)", "flag", False),
    StatField("ranged_crits", "Ranged crits allowed", "flag", False),
    StatField("polearm", "Polearm and the polearms skill (impalement)", "flag", False),
    StatField("forte", "Weapon forte (impalement)", "flag", False), StatField("glaive", "The polearm is a glaive", "flag", False),
    StatField("mounted", "Mounted or aerial (chase mode: -2 to its foes)", "flag", False),
)
STAT = {f.key: f for f in STATS}


def stat_number(c: Combatant, key: str) -> int:
    """The stat `key` of `c` as a number in its field's bounds (its default when unset)."""
    return STAT[key].number(c)
