"""A player's phone asks the game master: a claim, an initiative, "I'm done", a roll, an attack, healing,
a death save (each numbered, sent to the game master's phone alone, said until it is answered), and
the phone's own panels."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from pyengine.dice import roll
from pyengine.errors import EngineError
from pyengine.live import (
    MAX_SEED,
    request_text,
)
from pyengine.text import clean_text

from ..effects import (
    Refuse,
)
from ..messages import (
    AttackSent,
    ClaimTapped,
    DeathSaveSent,
    DoneTapped,
    HealSent,
    InitiativeSent,
    PlayerPanelToggled,
    PlayerTargetPicked,
    RequestResent,
    RollSent,
)
from ..model import Model
from .common import Result
from .live import follow_redraw, send_asking

__all__ = ["UPDATES"]


def _tell_host(model: Model, kind: str, what: str, **fields: object) -> Result:
    """A request to the game master's phone, numbered: its answer (waiting, applied, dismissed,
    refused) names it; none within ANSWER_MS is said as not delivered."""
    live = model.live
    if live.role != "follow":
        return model, ()
    rid = live.rid + 1
    live = replace(live, rid=rid, asking=request_text(kind, **fields, rid=rid), asked_what=what)
    return send_asking(replace(model, live=live))


def _resent(model: Model, m: RequestResent) -> Result:
    """Send again: the same request (the same number: one the game master did get is not asked twice)."""
    if model.live.role != "follow" or not model.live.asking:
        return model, ()
    return send_asking(model)


def _claim(model: Model, m: ClaimTapped) -> Result:
    name = next((n for i, n, _ in model.live.ids if i == m.cid), "your character")
    return _tell_host(model, "claim", f"your claim on {name}", cid=m.cid)


def _initiative(model: Model, m: InitiativeSent) -> Result:
    if m.value is None or abs(m.value) > 1000:
        return model, (Refuse("Initiative is a whole number from -1,000 to 1,000."),)
    return _tell_host(model, "init", f"initiative {m.value}", value=m.value)


def _done(model: Model, m: DoneTapped) -> Result:
    return _tell_host(model, "done", "“I'm done”")


def _roll_sent(model: Model, m: RollSent) -> Result:
    live = model.live
    if not live.you:
        return model, (Refuse("First tap your character under \"Which one is you?\"."),)
    if m.target not in {i for i, _, _ in live.ids}:
        return model, (Refuse("Pick a target."),)
    try:
        result = roll(m.expression, m.rng)
    except EngineError as error:
        return model, (Refuse(str(error)),)
    if abs(result.total) > 1_000_000:
        return model, (Refuse("That total is too large to send."),)
    label = clean_text(m.label)[:60]
    model = replace(model, live=replace(live, target=m.target, target_turn=live.turn))
    text = f"{label + ' ' if label else ''}{m.expression.strip()} ({result.text})"[:200]
    return _tell_host(model, "roll", f"{text} = {result.total}", target=m.target, value=result.total, text=text)


def _attack_sent(model: Model, m: AttackSent) -> Result:
    """A player's attack: its phone draws the dice (a seed from its own generator: `?seed=` fixes it),
    the game master's engine rolls the system's attack from them against the target's real defences."""
    live = model.live
    if not live.you:
        return model, (Refuse("First tap your character under \"Which one is you?\"."),)
    target = next(((i, n) for i, n, side in live.ids if i == m.target and side != "x" and i != live.you), None)
    if target is None:
        return model, (Refuse("Pick a target."),)
    weapon = clean_text(m.weapon)[:60]
    seed = m.rng.randint(0, MAX_SEED - 1)
    model = replace(model, live=replace(live, target=m.target, target_turn=live.turn))
    return _tell_host(model, "atk", f"your attack on {target[1]}" + (f" ({weapon})" if weapon else ""),
                      target=m.target, seed=seed, **{"with": weapon})


def _heal_sent(model: Model, m: HealSent) -> Result:
    if not model.live.you:
        return model, (Refuse("First tap your character under \"Which one is you?\"."),)
    if m.value is None or not 1 <= m.value <= 100_000:
        return model, (Refuse("Healing and temporary HP are whole numbers from 1 to 100,000."),)
    what = f"{m.value} temporary HP" if m.temp else f"healing {m.value} HP"
    return _tell_host(model, "heal", what, value=m.value, temp=m.temp)


def _death_save_sent(model: Model, m: DeathSaveSent) -> Result:
    """A dying player's death save: the d20 rolled on the player's phone, sent to the game master."""
    if not model.live.you:
        return model, ()
    face = m.rng.randint(1, 20)
    return _tell_host(model, "dsave", f"your death save ({face})", face=face)


def _panel(model: Model, m: PlayerPanelToggled) -> Result:
    live = model.live
    model = replace(model, live=replace(live, panel="" if live.panel == m.panel else m.panel))
    return model, follow_redraw(model)


def _target_picked(model: Model, m: PlayerTargetPicked) -> Result:
    live = model.live
    return replace(model, live=replace(live, target=clean_text(m.target)[:40], target_turn=live.turn)), ()


UPDATES: dict[type, Callable[[Model, Any], Result]] = {
    RequestResent: _resent,
    ClaimTapped: _claim,
    InitiativeSent: _initiative,
    DoneTapped: _done,
    RollSent: _roll_sent,
    AttackSent: _attack_sent,
    HealSent: _heal_sent,
    DeathSaveSent: _death_save_sent,
    PlayerPanelToggled: _panel,
    PlayerTargetPicked: _target_picked,
}
