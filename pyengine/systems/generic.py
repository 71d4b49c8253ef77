"""The generic system: d20 + modifier initiative, plain hit points, free-text conditions."""

from __future__ import annotations

from ..dice import Rng
from ..model import Encounter
from ..rules import System, settle_ties


class GenericSystem(System):
    name = "generic"
    label = "Generic d20"
    aliases = ("d20", "dnd", "5e")
    round_seconds = 6
    condition_names = (
        "Blinded", "Charmed", "Concentrating", "Deafened", "Frightened", "Grappled", "Incapacitated",
        "Invisible", "Paralyzed", "Petrified", "Poisoned", "Prone", "Restrained", "Stunned", "Unconscious",
    )

    def break_ties(self, encounter: Encounter, results: dict[str, list], rng: Rng) -> None:
        """Ties on the total go to the higher modifier, then to a d20 roll-off (repeated while tied)."""
        mods = {c.id: c.init_mod for c in encounter.combatants}
        settle_ties(results, rng, 20, key=lambda cid, entry: (entry[0], mods[cid]))
