"""The save panel (issue 52): a save effect (a creature's Fire Breath, or one typed by hand) on several
targets at once, its exact odds per target before the roll, one roll (the damage once, a d20 per
target or the one a player typed), and one Apply: the generic system's `d20_save`, one step."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, assert_never

from pyengine.errors import EngineError, RuleError
from pyengine.handoff import players_id, players_name, shown_to_players
from pyengine.live import SaveAsk, save_ask_text
from pyengine.model import Encounter
from pyengine.save_effects import ABILITY_NAMES
from pyengine.systems.generic import SaveRequest
from pyengine.systems.realms.area import AreaEffect
from pyengine.systems.saving_throws import save_target
from pyengine.systems.strife import PowerRequest
from pyengine.tracker import Action, request
from web.app.effects import Effect, LiveTell, Refuse, RenderSheet, Toast
from web.app.messages import (
    SaveConfigured,
    SaveLegendaryToggled,
    SavePanelOpened,
    SavesApplied,
    SavesAsked,
    SavesRolled,
    SaveTargetsPicked,
)
from web.app.model import Model, Request
from web.app.ui import AREA_BLANK, POWER_BLANK, area_args, power_args
from web.app.ui import SAVE_BLANK as BLANK
from web.app.ui import save_effect as effect_of
from web.app.update.common import Result, commit_action, opened
from web.app.update.requests import peer_of, tell_phone
from web.app.update.timers import redrawn

__all__ = ["Handled", "handle", "save_args", "phone_of"]

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
        else:
            phone = (config.get("asked") or {}).get(ident) or {}
            if phone.get("faces"):  # rolled on the player's phone (verified): its d20s, kept as the save rolls them
                target["faces"] = list(phone["faces"])
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
    if enc.system == "strife":  # a Realm of Strife power on several targets (pyengine/systems/strife/power.py)
        model, effects = opened(model, "save", "")
        attacker = source or enc.active_id or ""
        power = {"source": None, "effect": {**POWER_BLANK, "attacker": attacker},
                 "targets": [i for i in m.targets if i in enc.names() and i != attacker], "pending": None}
        return replace(model, ui=replace(model.ui, save=power)), effects
    if enc.system == "realms":  # an Enchanted Realms area effect (pyengine/systems/realms/area.py)
        model, effects = opened(model, "save", "")
        targets = [i for i in m.targets if i in enc.names()]
        area = {"source": None, "effect": dict(AREA_BLANK), "targets": targets, "cover": {}, "adv": {}, "pending": None}
        return replace(model, ui=replace(model.ui, save=area)), effects
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
    config = {**model.ui.save, **{k: v for k, v in m.config.items() if k in ("effect", "targets", "d20", "adv", "cover")}, "pending": None}
    return redrawn(replace(model, ui=replace(model.ui, save=config)), m.typing)


def _targets(model: Model, m: SaveTargetsPicked) -> Result:
    enc = model.timeline.present
    chosen = [c.id for c in enc.combatants if c.side == m.side and c.hp is not None] if m.side in ("party", "opponents") else []
    return replace(model, ui=replace(model.ui, save={**model.ui.save, "targets": chosen, "pending": None})), (RenderSheet(),)


def _rolled(model: Model, m: SavesRolled) -> Result:
    enc = model.timeline.present
    try:
        if enc.system == "realms":
            action = request(enc, "er_area", AreaEffect(**area_args(model.ui.save, set(enc.names()))), m.rng)
        elif enc.system == "strife":
            action = request(enc, "ros_power", PowerRequest(**power_args(model.ui.save, set(enc.names()))), m.rng)
        else:
            action = request(enc, "d20_save", SaveRequest(**save_args(model)), m.rng)
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
    told = _outcomes(model, after, pending)
    after, cast = _cast_outcome(model, after, pending)
    return (replace(after, ui=replace(after.ui, save={**after.ui.save, "pending": None, "applied": True, "asked": {}, "caster": None})),
            effects + (RenderSheet(),) + told + cast)


def _came_of(was: Encounter, now: Encounter, cid: str) -> tuple[int, list[str]]:
    """What a save did to a target, as its player may be told: the hit points (temporary ones too) it
    lost, the conditions it got (lower case)."""
    old, new = was.get(cid), now.get(cid)
    lost = (old.hp or 0) + old.temp_hp - (new.hp or 0) - new.temp_hp
    return lost, [k.name.lower() for k in new.conditions if k.id not in {x.id for x in old.conditions}]


def _cast_outcome(before: Model, after: Model, action: Action) -> Result:
    """A player's spell, applied: its phone told what came of each target the players see ("Goblin 1
    failed, 27 damage; Troll saved, 13 damage"), as a player's attack is."""
    caster = before.ui.save.get("caster")
    if not caster:
        return after, ()
    device, peer, rid = caster
    was, now = before.timeline.present, after.timeline.present
    words = []
    for r in action.args.get("results") or ():
        if r.get("id") not in was.names() or r["id"] not in now.names() or not shown_to_players(was.get(r["id"])):
            continue
        made = r.get("saved") or r.get("legendary") is True
        lost, gained = _came_of(was, now, r["id"])
        words.append(f"{players_name(now.get(r['id']))} {'saved' if made else 'failed'}" + (f", {lost} damage" if lost > 0 else "")
                     + "".join(f", {k}" for k in gained))
    request = Request(0, peer, device, "cast", str(before.ui.save.get("source") or ""), "", rid=rid)
    return tell_phone(after, request, "applied", "; ".join(words)[:200])


# -- the players' phones: each asked its own save (issue 52, section 4) ------------------------------

def phone_of(model: Model, cid: str) -> str:
    """The device of the phone that plays `cid` in the fight on screen ("": none; not hosting)."""
    live, enc = model.live, model.timeline.present
    if not live.hosting:
        return ""
    return next((device for device, eid, x in live.claims if eid == enc.id and x == cid), "")


def _what(enc: Encounter, source: str | None, name: str) -> str:
    """The effect as the players may know it: "Young Red Dragon's Fire Breath" (a source they cannot see unnamed)."""
    if source in enc.names() and shown_to_players(enc.get(source)):
        return f"{players_name(enc.get(source))}'s {name}"
    return name


def _asked_phones(model: Model, m: SavesAsked) -> Result:
    """Each chosen target that a player's phone plays is asked to roll its own save there (the card on
    that phone, with its own bonus and how it rolls: never another target's); a target that fails
    automatically is not asked. The answers come into this panel (web/app/update/requests.py)."""
    config, enc, live = model.ui.save, model.timeline.present, model.live
    try:
        effect = effect_of(config)
    except EngineError as error:
        return model, (Refuse(str(error)),)
    if effect.dc is None:
        return model, (Refuse("Give the save its DC first."),)
    adv = config.get("adv") or {}
    number = live.save_asks + 1
    asked: dict[str, Any] = {}
    tells: tuple[Effect, ...] = ()
    owed = live.owed
    for ident in config.get("targets") or ():
        device = phone_of(model, ident) if ident in enc.names() else ""
        if not device:
            continue
        try:
            c, mode, bonus, notes = save_target(enc, effect, {"id": ident, "adv": adv.get(ident)})
        except EngineError as error:
            return model, (Refuse(str(error)),)
        if mode.auto_fail:
            continue
        prior = (config.get("asked") or {}).get(ident)
        if prior and prior.get("state") in ("rolled", "typed") and prior.get("device") == device and prior.get("roll") == mode.roll:
            asked[ident] = prior  # answered, and its dice still fit: asked again are only the phones still silent
            continue
        ask = SaveAsk(ask=number, cid=players_id(enc, live.secret, ident), what=_what(enc, config.get("source"), effect.name),
                      ability=effect.ability, dc=effect.dc, bonus=bonus, roll=mode.roll, note="; ".join(notes))
        peer = peer_of(live, device, "")
        if peer:
            tells += (LiveTell(save_ask_text(ask), peer),)
        else:  # said when that phone comes back (its hello)
            owed = tuple(x for x in owed if x[0] != device)[-49:] + ((device, save_ask_text(ask)),)
        asked[ident] = {"ask": number, "device": device, "roll": mode.roll, "state": "waiting" if peer else "away", "faces": []}
    if not asked:
        return model, (Refuse("No target of this save is played on a phone now (or each fails automatically)."),)
    if not tells and all(a["state"] in ("rolled", "typed") for a in asked.values()):
        return model, (Refuse("Every phone asked has answered."),)
    model = replace(model, live=replace(live, save_asks=number, owed=owed),
                    ui=replace(model.ui, save={**config, "asked": asked, "pending": None}))
    count = sum(1 for a in asked.values() if a["ask"] == number)
    phones = f"{count} phone{'s' if count != 1 else ''}"
    return model, (*tells, RenderSheet(), Toast(f"Asked {phones} for their saves: their answers come here."))


def _outcomes(before: Model, after: Model, action: Action) -> tuple[Effect, ...]:
    """Each asked phone told what came of its character's save (its card closes on it): the save, the
    damage it took, the condition it got; a phone the game master rolled for is told so too."""
    asked = before.ui.save.get("asked") or {}
    was, now = before.timeline.present, after.timeline.present
    effect, tells = action.args.get("effect") or {}, []
    for r in action.args.get("results") or ():
        phone = asked.get(r.get("id"))
        if not phone or r["id"] not in now.names() or r["id"] not in was.names():
            continue
        abil = ABILITY_NAMES.get(str(effect.get("ability")), "")[:3]
        made = r.get("saved") or r.get("legendary") is True
        said = (f"{abil} save: failed automatically" if r.get("auto_fail") else
                f"{abil} save {r.get('total')} vs DC {effect.get('dc')}: {'succeeded' if made else 'failed'}")
        lost, gained = _came_of(was, now, r["id"])
        said += f"; {lost} damage" if lost > 0 else "; no damage" if effect.get("damage") else ""
        said += "".join(f"; now {k}" for k in gained)
        peer = peer_of(after.live, phone["device"], "")
        if peer:
            ask = SaveAsk(ask=phone["ask"], cid=players_id(now, after.live.secret, r["id"]), dc=int(effect.get("dc") or 10),
                          ability=str(effect.get("ability") or "dex"), outcome=said)
            tells.append(LiveTell(save_ask_text(ask), peer))
    return tuple(tells)


Handled = SavePanelOpened | SaveConfigured | SaveTargetsPicked | SavesRolled | SaveLegendaryToggled | SavesApplied | SavesAsked


def handle(model: Model, message: Handled) -> Result:
    """The model after one of this module's messages, and its effects: a `match` that mypy checks
    is whole (`assert_never`): a message in `Handled` with no case is a type error."""
    match message:
        case SavePanelOpened():
            return _opened(model, message)
        case SaveConfigured():
            return _configured(model, message)
        case SaveTargetsPicked():
            return _targets(model, message)
        case SavesRolled():
            return _rolled(model, message)
        case SaveLegendaryToggled():
            return _legendary(model, message)
        case SavesApplied():
            return _applied(model, message)
        case SavesAsked():
            return _asked_phones(model, message)
        case _:
            assert_never(message)
