"""The save panel (issue 52): a save effect (a creature's Fire Breath, or one typed by hand) on several
targets at once, its exact odds per target before the roll, one roll (the damage once, a d20 per
target or the one a player typed), and one Apply: the generic system's `d20_save`, one step."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from pyengine.errors import EngineError, RuleError
from pyengine.systems.generic import SaveRequest
from pyengine.tracker import Action, request

from ..effects import Refuse, RenderSheet
from ..messages import SaveConfigured, SaveLegendaryToggled, SavePanelOpened, SavesApplied, SavesRolled, SaveTargetsPicked
from ..model import Model
from ..state import SAVE_BLANK as BLANK
from ..state import save_effect as effect_of
from .common import Result, commit_action, opened
from .timers import redrawn

__all__ = ["UPDATES", "save_args"]

def save_args(model: Model) -> dict[str, Any]:
    """The `d20_save` request the panel makes: its source, effect and targets with their typed dice."""
    config = model.ui.save
    enc = model.timeline.present
    typed, adv = config.get("d20") or {}, config.get("adv") or {}
    targets = []
    for ident in config.get("targets") or ():
        if ident not in enc.names():
            continue
        target: dict[str, Any] = {"id": ident}
        text = str(typed.get(ident) or "").strip()
        if text:
            if not text.isdigit() or not 1 <= int(text) <= 20:
                raise RuleError(f"{enc.get(ident).name}'s d20 is 1 to 20 (the die alone: its bonus is added).")
            target["d20"] = int(text)
        if adv.get(ident) in ("adv", "dis"):
            target["adv"] = adv[ident]
        targets.append(target)
    if not targets:
        raise RuleError("Tick the targets of the save.")
    source = config.get("source")
    return {"effect": effect_of(config).to_dict(), "targets": targets, **({"source": source} if source in enc.names() else {})}


def _opened(model: Model, m: SavePanelOpened) -> Result:
    enc = model.timeline.present
    source = m.source if m.source in enc.names() else None
    effect = dict(BLANK)
    if source is not None and m.index is not None:
        actions = enc.get(source).save_actions
        if not 0 <= m.index < len(actions):
            return model, (Refuse("That save action is no longer there."),)
        chosen = actions[m.index]
        effect = {**chosen.to_dict(), "dc": str(chosen.dc), "rounds": str(chosen.rounds)}
    targets = [i for i in m.targets if i in enc.names()]
    if not targets and source is not None:  # a creature's breath: its foes, by default
        side = enc.get(source).side
        targets = [c.id for c in enc.combatants if c.side != side and c.hp is not None and c.hp > 0]
    model, effects = opened(model, "save", source or "")
    ui = replace(model.ui, save={"source": source, "effect": effect, "targets": targets, "d20": {}, "adv": {}, "pending": None})
    return replace(model, ui=ui), effects


def _configured(model: Model, m: SaveConfigured) -> Result:
    """The inputs read whole: a rolled save not applied is dropped (what it was rolled for changed)."""
    config = {**model.ui.save, **{k: v for k, v in m.config.items() if k in ("effect", "targets", "d20", "adv")}, "pending": None}
    return redrawn(replace(model, ui=replace(model.ui, save=config)), m.typing)


def _targets(model: Model, m: SaveTargetsPicked) -> Result:
    enc = model.timeline.present
    chosen = [c.id for c in enc.combatants if c.side == m.side and c.hp is not None] if m.side in ("party", "opponents") else []
    return replace(model, ui=replace(model.ui, save={**model.ui.save, "targets": chosen, "pending": None})), (RenderSheet(),)


def _rolled(model: Model, m: SavesRolled) -> Result:
    try:
        action = request(model.timeline.present, "d20_save", SaveRequest(**save_args(model)), m.rng)
    except EngineError as error:
        return model, (Refuse(str(error)),)
    return replace(model, ui=replace(model.ui, save={**model.ui.save, "pending": action})), (RenderSheet(),)


def _legendary(model: Model, m: SaveLegendaryToggled) -> Result:
    """Spend (or not) a Legendary Resistance for a target that failed: said in the rolled action, done by Apply."""
    pending: Action | None = model.ui.save.get("pending")
    if pending is None:
        return model, ()
    results = [({**r, "legendary": not r.get("legendary")} if r.get("id") == m.ident and not r.get("saved") else r)
               for r in pending.args["results"]]
    action = replace(pending, args={**pending.args, "results": results})
    return replace(model, ui=replace(model.ui, save={**model.ui.save, "pending": action})), (RenderSheet(),)


def _applied(model: Model, m: SavesApplied) -> Result:
    pending: Action | None = model.ui.save.get("pending")
    if pending is None:
        return model, ()
    after, effects = commit_action(model, pending)
    if after.timeline is model.timeline:
        return after, effects
    return replace(after, ui=replace(after.ui, save={**after.ui.save, "pending": None, "applied": True})), effects + (RenderSheet(),)


UPDATES: dict[type, Callable[[Model, Any], Result]] = {
    SavePanelOpened: _opened,
    SaveConfigured: _configured,
    SaveTargetsPicked: _targets,
    SavesRolled: _rolled,
    SaveLegendaryToggled: _legendary,
    SavesApplied: _applied,
}
