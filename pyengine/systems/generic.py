"""The generic system: d20 + modifier initiative, plain hit points, free-text conditions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..dice import Rng
from .base import System, roll_off

if TYPE_CHECKING:  # pragma: no cover
    from ..tracker import Encounter


class GenericSystem(System):
    name = "generic"
    label = "Generic d20"
    aliases = ("d20", "dnd", "5e")
    round_seconds = 6
    condition_names = (
        "Blinded", "Charmed", "Concentrating", "Deafened", "Frightened", "Grappled", "Incapacitated",
        "Invisible", "Paralyzed", "Petrified", "Poisoned", "Prone", "Restrained", "Stunned", "Unconscious",
    )

    def break_ties(self, encounter: "Encounter", results: dict[str, list], rng: Rng) -> None:
        """Ties on the total go to the higher modifier, then to a d20 roll-off (repeated while tied)."""
        mods = {c.id: c.init_mod for c in encounter.combatants}
        leaders: dict[tuple, list[str]] = {}
        seen: set[int] = set()
        for cid, entry in results.items():
            if id(entry) in seen:  # group members share one entry: they roll once
                continue
            seen.add(id(entry))
            leaders.setdefault((entry[0], mods[cid]), []).append(cid)
        for tied in leaders.values():
            if len(tied) < 2:
                continue
            faces = roll_off(tied, rng)
            ranking = sorted(tied, key=lambda i: faces[i], reverse=True)
            for place, cid in enumerate(ranking):
                results[cid][1] = len(ranking) - place
                note = f"tie roll-off d20: {', '.join(map(str, faces[cid]))}"
                results[cid][2] = f"{results[cid][2]}; {note}" if results[cid][2] else note
