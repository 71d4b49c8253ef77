"""A player's phone asks the game master: a claim, an initiative, "I'm done", a roll, an attack, healing,
a death save (each numbered, sent to the game master's phone alone, said until it is answered), and
the phone's own panels."""

from __future__ import annotations

from dataclasses import replace
from typing import assert_never

from pyengine.dice import Rng
from pyengine.errors import EngineError
from pyengine.fair import commitment, new_secret
from pyengine.live import request_text
from pyengine.save_effects import ABILITY_NAMES
from pyengine.systems.spells import find_spell
from pyengine.text import clean_text
from web.app.effects import Effect, Refuse
from web.app.live_status import playing
from web.app.messages import (
    AttackSent,
    ClaimTapped,
    DeathSaveSent,
    DoneTapped,
    EarlyJoinTaken,
    EarlyTapsKept,
    HealSent,
    InitiativeRolled,
    InitiativeSent,
    PlayerPanelToggled,
    PlayerTargetPicked,
    RequestResent,
    RollSent,
    SaveSent,
    SpellPicked,
    SpellSent,
)
from web.app.model import Model
from web.app.update.common import Result
from web.app.update.library import loading
from web.app.update.live import follow_redraw, send_asking
from web.app.update.requests import total_range

__all__ = ["Handled", "handle"]


def _tell_host(model: Model, kind: str, what: str, rolling: tuple[str, ...] = (), **fields: object) -> Result:
    """A request to the game master's phone, numbered: its answer (waiting, applied, dismissed,
    refused) names it; none within ANSWER_MS is said as not delivered."""
    live = model.live
    if live.role != "follow":
        return model, ()
    rid = live.rid + 1
    live = replace(live, rid=rid, asking=request_text(kind, **fields, rid=rid), asked_what=what, rolling=rolling, asked_fight=live.fight)
    return send_asking(replace(model, live=live))


def _resent(model: Model, m: RequestResent) -> Result:
    """Send again: the same request (the same number: one the game master did get is not asked twice)."""
    if model.live.role != "follow" or not model.live.asking:
        return model, ()
    return send_asking(model)


def _claim(model: Model, m: ClaimTapped) -> Result:
    name = next((n for i, n, _ in model.live.ids if i == m.cid), "your character")
    return _tell_host(model, "claim", f"your claim on {name}", cid=m.cid)


def _early_taps(model: Model, m: EarlyTapsKept) -> Result:
    """Kept until the join is taken over: the last tap alone (the player's last word; a claim tapped
    twice on the early view is one claim)."""
    return replace(model, live=replace(model.live, early_taps=tuple(m.taps)[-1:])), ()


def _early_join_taken(model: Model, m: EarlyJoinTaken) -> Result:
    """Joined: a claim tapped on the early view is asked now, as the same tap on this page would be."""
    taps = model.live.early_taps
    model = replace(model, live=replace(model.live, early_taps=()))
    effects: tuple[Effect, ...] = ()
    for action, ident in taps:
        if action == "live-claim":
            model, more = _claim(model, ClaimTapped(ident))
            effects += more
    return model, effects


def _initiative(model: Model, m: InitiativeSent) -> Result:
    if m.value is None or abs(m.value) > 1000:
        return model, (Refuse("Initiative is a whole number from -1,000 to 1,000."),)
    return _tell_host(model, "init", f"initiative {m.value}", value=m.value)


def _initiative_rolled(model: Model, m: InitiativeRolled) -> Result:
    """Initiative rolled here: the d20 comes from both phones (pyengine.fair), the game master's phone
    adds the character's modifier (shown here as this phone knows it)."""
    live = model.live
    if not playing(live):
        return model, (Refuse("First tap your character under \"Which one is you?\"."),)
    mod = int(((live.pcs or {}).get(playing(live)) or {}).get("init", 0))
    return _commit(model, m.rng, f"1d20{mod:+d}" if mod else "1d20", "your initiative roll", "init")


def _done(model: Model, m: DoneTapped) -> Result:
    return _tell_host(model, "done", "“I'm done”")


def _roll_sent(model: Model, m: RollSent) -> Result:
    """A roll at a target: verified (the phone commits to its secret; the dice come from both phones
    once the game master's phone answers: `drawn`), or typed from real dice (the game master's card
    says so), its total within what the dice can make."""
    live = model.live
    if not playing(live):
        return model, (Refuse("First tap your character under \"Which one is you?\"."),)
    if m.target not in {i for i, _, _ in live.ids}:
        return model, (Refuse("Pick a target."),)
    expression = m.expression.strip()
    try:
        low, high = total_range(expression)
    except EngineError as error:
        return model, (Refuse(str(error)),)
    label = clean_text(m.label)[:60]
    what = f"{label + ' ' if label else ''}{expression}"[:200]
    model = replace(model, live=replace(live, target=m.target, target_turn=live.turn))
    if m.typed.strip():
        value = _whole(m.typed)
        if value is None:
            return model, (Refuse("The total of your dice is a whole number."),)
        if not low <= value <= high:
            return model, (Refuse(f"{expression} cannot total {value:,} (it makes {low:,} to {high:,})."),)
        return _tell_host(model, "roll", f"{what} = {value} (typed)", target=m.target, expr=expression, label=label, value=value)
    return _commit(model, m.rng, expression, what, "roll", target=m.target, expr=expression, label=label)


def _whole(text: str) -> int | None:
    """A typed whole number (at most 9 digits: a die's face or a total), else None."""
    text = text.strip()
    return int(text) if len(text) <= 10 and text.lstrip("-").isascii() and text.lstrip("-").isdigit() else None


def _commit(model: Model, rng: Rng, dice: str, what: str, kind: str, **fields: object) -> Result:
    """A verified roll's request: the phone's secret kept, its commitment sent (pyengine.fair)."""
    secret = new_secret(rng)
    return _tell_host(model, kind, what, (secret, dice), c=commitment(secret), **fields)


def _attack_sent(model: Model, m: AttackSent) -> Result:
    """A player's attack: its dice come from both phones (its phone's secret and the game master's
    answer: pyengine.fair), the game master's engine rolls the system's attack from them against the
    target's real defences."""
    live = model.live
    if not playing(live):
        return model, (Refuse("First tap your character under \"Which one is you?\"."),)
    target = next(((i, n) for i, n, side in live.ids if i == m.target and side != "x" and i != live.you), None)
    if target is None:
        return model, (Refuse("Pick a target."),)
    weapon = clean_text(m.weapon)[:60]
    model = replace(model, live=replace(live, target=m.target, target_turn=live.turn))
    return _commit(model, m.rng, "", f"your attack on {target[1]}" + (f" ({weapon})" if weapon else ""), "atk",
                   target=m.target, **{"with": weapon})


def _heal_sent(model: Model, m: HealSent) -> Result:
    if not playing(model.live):
        return model, (Refuse("First tap your character under \"Which one is you?\"."),)
    if m.value is None or not 1 <= m.value <= 100_000:
        return model, (Refuse("Healing and temporary HP are whole numbers from 1 to 100,000."),)
    what = f"{m.value} temporary HP" if m.temp else f"healing {m.value} HP"
    return _tell_host(model, "heal", what, value=m.value, temp=m.temp)


def _death_save_sent(model: Model, m: DeathSaveSent) -> Result:
    """A dying player's death save: a d20 from both phones, or a real die's face typed (marked typed)."""
    if not playing(model.live):
        return model, ()
    if m.typed.strip():
        face = _whole(m.typed) or 0
        if not 1 <= face <= 20:
            return model, (Refuse("A death save is one d20: type a face from 1 to 20."),)
        return _tell_host(model, "dsave", f"your death save ({face}, typed)", face=face)
    return _commit(model, m.rng, "1d20", "your death save", "dsave")


def _save_sent(model: Model, m: SaveSent) -> Result:
    """The player answers the save the game master asked: the d20s from both phones (as the ask said to
    roll them: one, or two with advantage or disadvantage), or a real die's face typed (marked typed)."""
    live = model.live
    ask = live.save_ask
    if ask is None or ask.outcome or not playing(live):
        return model, (Refuse("No save is asked of you now."),)
    if not ask.roll:
        return model, (Refuse("Your character fails this save whatever it rolls."),)
    ability = ABILITY_NAMES.get(ask.ability, "")
    # (save_sent: the number of the request that answers this card; it waits for the outcome, and a
    # refusal of that request takes the card away, the line saying why)
    sent = replace(model, live=replace(live, save_sent=live.rid + 1))
    if m.typed.strip():
        face = _whole(m.typed) or 0
        if not 1 <= face <= 20:
            return model, (Refuse("A save is the d20 you kept: type a face from 1 to 20."),)
        return _tell_host(sent, "save", f"your {ability} save ({face}, typed)", ask=ask.ask, face=face)
    return _commit(sent, m.rng, f"{ask.roll}{ask.bonus:+d}", f"your {ability} save", "save", ask=ask.ask)


def _panel(model: Model, m: PlayerPanelToggled) -> Result:
    live = model.live
    model = replace(model, live=replace(live, panel="" if live.panel == m.panel else m.panel))
    if model.live.panel == "spell":  # (the SRD's spells come with the creature library: fetched once, precached)
        model, load = loading(model)
        return model, load + follow_redraw(model)
    return model, follow_redraw(model)


def _spell_picked(model: Model, m: SpellPicked) -> Result:
    model = replace(model, live=replace(model.live, spell=clean_text(m.name)[:60]))
    return model, follow_redraw(model)


def _spell_sent(model: Model, m: SpellSent) -> Result:
    """Cast: a save spell at its targets (the game master's save panel opens pre-filled), an attack
    spell at one target (the player's attack: the dice from both phones, the caster's spell attack
    bonus), a spell of damage alone a roll at one target (the dice from both phones)."""
    live = model.live
    if not playing(live):
        return model, (Refuse("First tap your character under \"Which one is you?\"."),)
    if model.library is None:
        return model, (Refuse("The SRD spells are still loading: a moment."),)
    try:
        spell = find_spell(model.library.spells, m.name)
        slot = spell.check_slot(m.slot)
    except EngineError as error:
        return model, (Refuse(str(error)),)
    names = {i: n for i, n, _ in live.ids}
    targets = tuple(t for t in m.targets if t in names)
    if not targets:
        return model, (Refuse(f"Tick {spell.name}'s targets."),)
    level = f" (level {slot})" if spell.level else ""
    if spell.kind == "save":
        return _tell_host(model, "cast", f"your {spell.name}{level}", spell=spell.name, slot=slot, targets=list(targets))
    if len(targets) != 1:
        return model, (Refuse(f"{spell.name} has one target: tick one."),)
    if spell.kind == "attack":
        return _commit(model, m.rng, "", f"your {spell.name} at {names[targets[0]]}", "atk", target=targets[0], spell=spell.name, slot=slot)
    dice = spell.damage_at(slot)
    return _commit(model, m.rng, dice, f"{spell.name}{level} at {names[targets[0]]}", "roll", target=targets[0], expr=dice, label=spell.name)


def _target_picked(model: Model, m: PlayerTargetPicked) -> Result:
    live = model.live
    return replace(model, live=replace(live, target=clean_text(m.target)[:40], target_turn=live.turn)), ()


Handled = RequestResent | ClaimTapped | EarlyTapsKept | EarlyJoinTaken | InitiativeSent | InitiativeRolled | DoneTapped | RollSent | AttackSent | HealSent | DeathSaveSent | SaveSent | SpellPicked | SpellSent | PlayerPanelToggled | PlayerTargetPicked


def handle(model: Model, message: Handled) -> Result:  # noqa: C901 - one case a message
    """The model after one of this module's messages, and its effects: a `match` that mypy checks
    is whole (`assert_never`): a message in `Handled` with no case is a type error."""
    match message:
        case RequestResent():
            return _resent(model, message)
        case ClaimTapped():
            return _claim(model, message)
        case EarlyTapsKept():
            return _early_taps(model, message)
        case EarlyJoinTaken():
            return _early_join_taken(model, message)
        case InitiativeSent():
            return _initiative(model, message)
        case InitiativeRolled():
            return _initiative_rolled(model, message)
        case DoneTapped():
            return _done(model, message)
        case RollSent():
            return _roll_sent(model, message)
        case AttackSent():
            return _attack_sent(model, message)
        case HealSent():
            return _heal_sent(model, message)
        case DeathSaveSent():
            return _death_save_sent(model, message)
        case SaveSent():
            return _save_sent(model, message)
        case SpellPicked():
            return _spell_picked(model, message)
        case SpellSent():
            return _spell_sent(model, message)
        case PlayerPanelToggled():
            return _panel(model, message)
        case PlayerTargetPicked():
            return _target_picked(model, message)
        case _:
            assert_never(message)
