"""The players' requests on the game master's phone (the live table): what a player's phone asks is
read (web/app/update/live.py passes it on), answered (waiting, applied, dismissed, refused with the
reason), kept in the tray one of a kind per phone, and applied on Apply as one undoable step: a
claim, "I'm done", a roll's damage, an attack rolled from the player's dice against the target's real
defences, healing, temporary HP, a death save."""

from __future__ import annotations

from dataclasses import replace
from random import Random, SystemRandom
from typing import assert_never

from pyengine import tracker
from pyengine.core_args import Flow, HitPoints, Temporary
from pyengine.damage_types import parts_to_args, split_typed
from pyengine.dice import Rng, parse, roll
from pyengine.errors import EngineError, UnsetDefenceError
from pyengine.fair import drawn, joint_seed, new_secret, reveals
from pyengine.handoff import fight_id, health_word, players_id, players_name, shown_to_players
from pyengine.live import (
    MAX_ROLL,
    Attack,
    Cast,
    Claim,
    DeathSave,
    Done,
    Heal,
    Hello,
    Incoming,
    Init,
    Reveal,
    Roll,
    SaveRoll,
    answer_text,
    drawn_text,
    you_text,
)
from pyengine.model import Action, Combatant, Encounter
from pyengine.odds import possible_range
from pyengine.rules import system_of
from pyengine.systems import generic
from pyengine.systems.saving_throws import kept_face
from pyengine.systems.spells import Spell, find_spell, spell_save_dc
from pyengine.tracker import resolve
from pyengine.turns import active_unit, surprised
from web.app.effects import (
    Effect,
    HideToast,
    LiveTell,
    LoadLibrary,
    Refuse,
    RenderNotices,
    RenderSheet,
    SayOnLine,
    SetField,
    Toast,
)
from web.app.live_status import MAX_KEPT_CLAIMS, MAX_KEPT_TRUSTED, followers_line, gone_for, state_kind, state_line
from web.app.messages import ClaimReleased, PeerSaid, RequestAnswered
from web.app.model import Live, Model, Peer, Pending, Request
from web.app.update.common import Result, act, commit_action, opened

__all__ = ["asked", "answered", "apply_request", "refused", "redraw", "attack_action", "attack_words", "Told",
           "MAX_WAITING", "MAX_WAITING_PER_PHONE", "MAX_UNAPPROVED", "expire_draws", "REVEAL_MS", "MAX_DRAWS", "MAX_DRAWS_PER_PHONE"]

MAX_WAITING_PER_PHONE = 5   # requests waiting for Apply / Dismiss from one phone
MAX_WAITING = 20            # and from all
MAX_UNAPPROVED = 4          # claims waiting from phones not let play anyone yet (the oldest dropped past it)


# -- what players ask (the game master's phone) ---------------------------------------------------

def asked(model: Model, m: PeerSaid, message: Incoming) -> Result:
    """A follower's message, on the game master's phone: a hello, or a request about the combatant
    its phone plays. Nothing changes the fight here but a player's "I'm done" when the game master
    allowed it (through the same Next turn). Every request is answered (issue 36): waiting, applied,
    or refused with the reason (a request for a combatant not this phone's, a target it cannot see)."""
    live = model.live
    peer = next((p for p in live.peers if p.id == m.peer), None) or Peer(m.peer)
    if isinstance(message, Hello):
        # A connection keeps the device id it first said (a phone never changes it; one that does is
        # making up devices to fill the tray).
        peer = replace(peer, name=message.name, device=peer.device or message.device, connected=True)
        peers = tuple(peer if p.id == m.peer else p for p in live.peers) if any(p.id == m.peer for p in live.peers) \
            else live.peers + (peer,)
        owed = tuple(LiveTell(text, m.peer) for device, text in live.owed if device == peer.device and device)
        model = replace(model, live=replace(live, peers=peers, owed=tuple(x for x in live.owed if x[0] != peer.device)))
        enc = model.timeline.present
        mine = claimed(model.live, peer.device, enc.id)
        return model, ((LiveTell(you_text(players_id(enc, live.secret, mine)), m.peer),) if mine else ()) + owed + redraw(model)
    if not isinstance(message, (Claim, Init, Done, Attack, Cast, Heal, DeathSave, Roll, SaveRoll, Reveal)):
        return model, ()  # a bye (a phone's page closing: its connection says so itself); a host's kind is not read here
    enc = model.timeline.present
    party = {c.id: c for c in enc.combatants if c.side == "party" and shown_to_players(c)}
    rid = message.rid

    def refuse(why: str) -> Result:
        return refused(model, m.peer, rid, why)

    if not peer.device:
        return refuse("this phone has not said who it is yet: wait a moment and send again")
    if isinstance(message, Claim):  # (the phone names its combatant by the players' view's id)
        return _claim_asked(model, m, message, peer, party)
    mine = claimed(live, peer.device, enc.id)
    if not mine or mine not in party:
        return refuse("the game master has not let this phone play anyone (tap your character first)")
    c = party[mine]
    match message:
        case Init():
            return initiative_asked(model, m, message, c, peer.device)
        case Done():
            if surprised(enc, system_of(enc), c):
                return refuse(f"{c.name} is surprised: no turn in round 1")
            if not enc.started or mine not in {x.id for x in active_unit(enc)}:
                return refuse(f"it is not {c.name}'s turn")
            if live.auto_done:
                model, effects = next_turn(model, m.rng)
                return model, effects + (answer_to(m.peer, rid, "applied", "the turn passed"),)
            return wait_request(model, Request(live.asked + 1, m.peer, peer.device, "done", mine, f"{c.name} is done: next turn?", rid=rid))
        case Heal() | DeathSave():
            return own_request(model, m, message, c, peer.device)
        case Attack() | Roll():
            return at_target(model, m, message, c, peer.device)
        case SaveRoll():
            return save_answered(model, m, message, c, peer.device)
        case Cast():
            return cast_asked(model, m, message, c, peer.device)
        case Reveal():
            return revealed(model, m, message, c, peer.device)
        case _:
            assert_never(message)


# -- verified rolls (pyengine.fair): the dice come from both phones ---------------------------------

REVEAL_MS = 10_000      # a phone that has not shown its secret this long after the answer: "rolled and did not show it"
MAX_DRAWS_PER_PHONE = 2  # answered commitments waiting for their reveal, per connection
MAX_DRAWS = 20
MAX_SEEN = 500           # commitments remembered (a replay of an older one is a roll the phone already showed)


def draw_for(model: Model, m: PeerSaid, message: Attack | DeathSave | Roll | Init | SaveRoll, c: Combatant, device: str) -> Result:
    """A verified roll's first step on the game master's phone: its request was checked; the phone's
    commitment is answered at once with this phone's value for it (no tap), and kept until its reveal.
    The same commitment sent again (Send again) is answered again; one already shown, or another phone's,
    is a replay, refused."""
    live, rid = model.live, message.rid
    again = next((d for d in live.draws if d.commit == message.commit), None)
    if again is not None and (again.device, again.rid) == (device, rid):
        return model, (LiveTell(drawn_text(rid, drawn(live.key, message.commit)), m.peer),)
    if message.commit in live.seen:
        return refused(model, m.peer, rid, "that roll was used already (a replayed roll): roll again")
    key = live.key or new_secret(m.rng if m.rng is not None else SystemRandom())  # (made as the table went live; here if it was not)
    draws = list(live.draws)
    expired: list[Pending] = []
    while [d for d in draws if d.peer == m.peer][MAX_DRAWS_PER_PHONE - 1:] or len(draws) >= MAX_DRAWS:
        mine = [d for d in draws if d.peer == m.peer]
        oldest = mine[0] if len(mine) >= MAX_DRAWS_PER_PHONE else draws[0]
        draws.remove(oldest)
        expired.append(oldest)
    pending = Pending(m.peer, device, rid, message.commit, message, c.name, live.now_ms)
    model = replace(model, live=replace(live, key=key, draws=tuple(draws) + (pending,), seen=(live.seen + (message.commit,))[-MAX_SEEN:]))
    model, said = not_shown(model, tuple(expired), "another roll of this phone came before it was shown")
    return model, (LiveTell(drawn_text(rid, drawn(key, message.commit)), m.peer), *said)


def revealed(model: Model, m: PeerSaid, message: Reveal, c: Combatant, device: str) -> Result:
    """A phone shows the secret it committed to: checked against its commitment, then its request goes
    on as any other, its dice rolled from both phones' values (pyengine.fair.joint_seed)."""
    live, rid = model.live, message.rid
    pending = next((d for d in live.draws if (d.device, d.rid) == (device, rid)), None)
    if pending is None:
        if any((r.device, r.rid) == (device, rid) for r in live.requests):
            return model, (answer_to(m.peer, rid, "waiting"),)  # shown again (Send again): it waits already
        return refused(model, m.peer, rid, "no roll of this phone waits to be shown (the game master's phone may have reloaded): roll again")
    model = replace(model, live=replace(live, draws=tuple(d for d in live.draws if d is not pending)))
    if not reveals(pending.commit, message.secret):
        model = replace(model, live=replace(model.live, unshown=model.live.unshown + 1))
        model, effects = refused(model, m.peer, rid, "that is not the roll this phone promised: roll again")
        return model, (*effects, Toast(f"{pending.who} showed another roll than the one it promised."))
    seed = joint_seed(message.secret, drawn(live.key, pending.commit))
    request = pending.message
    if isinstance(request, DeathSave):
        return own_request(model, m, request, c, device, seed)
    if isinstance(request, Init):
        return initiative_asked(model, m, request, c, device, seed)
    if isinstance(request, SaveRoll):
        return save_answered(model, m, request, c, device, seed)
    return at_target(model, m, request, c, device, seed)


def not_shown(model: Model, gone: tuple[Pending, ...], why: str) -> Result:
    """Verified rolls whose phone never showed its secret: counted on the game master's line, each said
    ("Aldric rolled and did not show it"), its phone told."""
    if not gone:
        return model, ()
    model = replace(model, live=replace(model.live, unshown=model.live.unshown + len(gone)))
    effects: tuple[Effect, ...] = tuple(Toast(f"{d.who} rolled and did not show it.") for d in gone[-3:])
    for d in gone:
        effects += (answer_to(d.peer, d.rid, "refused", f"your roll was not shown: {why}"),)
    return model, effects + redraw(model)


def expire_draws(model: Model, now_ms: float) -> Result:
    """On the game master's beat: verified rolls not shown REVEAL_MS after the answer."""
    late = tuple(d for d in model.live.draws if now_ms - d.at_ms >= REVEAL_MS)
    if not late:
        return model, ()
    model = replace(model, live=replace(model.live, draws=tuple(d for d in model.live.draws if d not in late)))
    return not_shown(model, late, "it did not come in time")


def initiative_asked(model: Model, m: PeerSaid, message: Init, c: Combatant, device: str, seed: int | None = None) -> Result:
    """A player's initiative before the fight: a total typed, or rolled on the phone (the d20 from both
    phones, `seed` once shown; this phone adds the character's modifier), kept for the initiative step."""
    live, rid, enc = model.live, message.rid, model.timeline.present
    if enc.started:
        return refused(model, m.peer, rid, "the fight has started: initiative is settled")
    if message.commit and seed is None:
        return draw_for(model, m, message, c, device)
    face = Random(seed).randint(1, 20) if seed is not None else None
    value = face + c.init_mod if face is not None else message.value
    how = f" (d20 {face} {c.init_mod:+d})" if face is not None else ""
    initiatives = tuple((cid, v) for cid, v in live.initiatives if cid != c.id) + ((c.id, value),)
    model = replace(model, live=replace(live, initiatives=initiatives))
    fill = (SetField(f"init-{c.id}", str(value)),) if model.ui.sheet == ("init", None) else ()
    return model, fill + (Toast(f"{c.name}: initiative {value}{how}"),
                          answer_to(m.peer, rid, "applied", f"initiative {value}{how} is with the game master"))


def save_answered(model: Model, m: PeerSaid, message: SaveRoll, c: Combatant, device: str, seed: int | None = None) -> Result:
    """A player's phone answers the save the game master's panel asked of its character (issue 52):
    its d20s from both phones (`seed`, once shown: rolled as the ask said, one d20 or two), or a real
    die's face typed (the panel's typed d20 for that target, marked typed). It goes into the open save
    action, not into the fight: the game master rolls the rest and applies the whole action at once.
    An answer to a save no longer open, asked again since, or already answered is refused."""
    rid, config = message.rid, model.ui.save
    asked = (config.get("asked") or {}).get(c.id) if model.ui.sheet and model.ui.sheet[0] == "save" else None
    if asked is None or asked.get("ask") != message.ask or asked.get("device") != device:
        return refused(model, m.peer, rid, "the game master's save is closed or was asked again: nothing to answer now")
    if asked.get("state") in ("rolled", "typed") or config.get("applied"):
        return refused(model, m.peer, rid, f"{c.name}'s save is answered already")
    if message.commit and seed is None:
        return draw_for(model, m, message, c, device)
    d20 = dict(config.get("d20") or {})
    if seed is not None:
        faces = [d.face for d in roll(str(asked["roll"]), Random(seed)).dice]
        kept = kept_face(faces, str(asked["roll"]))
        state, words = {**asked, "state": "rolled", "faces": faces}, f"d20 {kept}" + (f" ({', '.join(map(str, faces))})" if len(faces) > 1 else "")
        d20.pop(c.id, None)  # (the phone's dice, not a die the game master typed before)
    else:
        state, words = {**asked, "state": "typed", "faces": []}, f"d20 {message.face} (typed)"
        d20[c.id] = str(message.face)
    save = {**config, "asked": {**(config.get("asked") or {}), c.id: state}, "d20": d20, "pending": None}
    model = replace(model, ui=replace(model.ui, save=save))
    return model, (RenderSheet(), Toast(f"{c.name}'s save: {words}."),
                   answer_to(m.peer, rid, "applied", f"{words}: the game master applies the save"))


def own_request(model: Model, m: PeerSaid, message: Heal | DeathSave, c: Combatant, device: str, seed: int | None = None) -> Result:
    """A player's request about its own character: healing received, temporary HP gained, a death save
    (verified: its d20 from both phones, `seed` once shown; or typed from a real die)."""
    live, rid = model.live, message.rid
    if isinstance(message, Heal):
        kind, what = ("temp", f"gains {message.value} temporary HP") if message.temp else ("heal", f"is healed {message.value} HP")
        return wait_request(model, Request(live.asked + 1, m.peer, device, kind, c.id, f"{c.name} {what}.", amount=message.value, rid=rid))
    enc = model.timeline.present
    if "death_save" not in system_of(enc).actions:
        return refused(model, m.peer, rid, "this game system has no death saves")
    if not enc.started or c.id not in {x.id for x in active_unit(enc)}:
        return refused(model, m.peer, rid, f"a death save is rolled on {c.name}'s turn")
    try:  # a death save: refused now when the rules would refuse it (not dying)
        tracker.request(enc, "death_save", generic.DeathSave(c.id), Told(message.face or 10))
    except EngineError as error:
        return refused(model, m.peer, rid, str(error))
    if message.commit and seed is None:
        return draw_for(model, m, message, c, device)
    face = message.face if seed is None else Random(seed).randint(1, 20)
    typed = seed is None
    request = Request(live.asked + 1, m.peer, device, "dsave", c.id, f"{c.name} rolls a death save: {face}{' (typed)' if typed else ''}.",
                      seed=face, rid=rid, typed=typed)
    if live.auto_saves and not typed:  # (a typed die waits for the game master's Apply)
        return apply_request(model, request, m.rng)
    return wait_request(model, request, f"d20 ({face})")


def _claim_asked(model: Model, m: PeerSaid, message: Claim, peer: Peer, party: dict[str, Combatant]) -> Result:
    """A phone asks to play a party member of the fight on screen: refused while another phone plays it
    (unless that phone has been gone TAKE_OVER_MS: then the game master is asked to let this one take
    over), applied at once for a name this phone was approved for once, else waiting for approval."""
    live, enc, rid = model.live, model.timeline.present, message.rid
    cid = fight_id(enc, live.secret, message.cid) or ""
    if cid not in party:
        return refused(model, m.peer, rid, "that is not a party member the players can see")
    name = party[cid].name
    holder = next((device for device, eid, x in live.claims if device != peer.device and eid == enc.id and x == cid), "")
    gone = gone_for(live, holder, m.at_ms) if holder else None
    if holder and (gone is None or gone < TAKE_OVER_MS):
        return refused(model, m.peer, rid, f"another phone plays {name}")
    if claimed(live, peer.device, enc.id) == cid:
        return model, (LiveTell(you_text(message.cid), m.peer), answer_to(m.peer, rid, "applied", f"you play {name}"))
    if not holder and (peer.device, name) in live.trusted:  # approved for this name once: another fight's character of that name
        model = replace(model, live=with_claim(live, peer.device, enc.id, cid, name))
        return model, (LiveTell(you_text(message.cid), m.peer), answer_to(m.peer, rid, "applied", f"you play {name}"), *redraw(model))
    asker = (peer.name or "A player's phone") if peer.name and peer.name != name else "A phone"  # never "Aria asks to play Aria"
    text = f"{asker} asks to play {name}."
    if gone is not None:  # its phone has been gone a while: the game master may let this one take over
        minutes = max(1, round(gone / 60_000))
        how = f"left {minutes} min ago" if any(p.device == holder for p in live.peers) else f"has not been seen for {minutes} min"
        text = f"{name} was played by a phone that {how}: take over? ({asker} asks to play {name}.)"
    return wait_request(model, Request(live.asked + 1, m.peer, peer.device, "claim", cid, text, rid=rid))


def at_target(model: Model, m: PeerSaid, message: Attack | Roll, c: Combatant, device: str, seed: int | None = None) -> Result:
    """A player's attack (rolled by the game master's engine, its dice from both phones: `seed` once
    the phone showed its secret) or roll at a target (verified the same way, or typed from real dice:
    its total checked against what its dice can make)."""
    live, rid, enc = model.live, message.rid, model.timeline.present
    found = fight_id(enc, live.secret, message.target)
    target = enc.get(found) if found is not None else None
    if target is None or not shown_to_players(target):
        return refused(model, m.peer, rid, "that target is not in the fight the players see")
    if surprised(enc, system_of(enc), c):  # (the engine refuses its attack too: pyengine.systems.laurels.attack_setup)
        return refused(model, m.peer, rid, f"{c.name} is surprised: the surprised side takes no turns in round 1 (seed 003).")
    if isinstance(message, Attack):
        if not system_of(enc).is_creature(target) or target.id == c.id:
            return refused(model, m.peer, rid, f"{players_name(target)} cannot be attacked")
        if system_of(enc).is_down(c):
            return refused(model, m.peer, rid, f"{c.name} is down: a combatant that is down makes no attack"
                           + (" (roll your death saves)" if "death_save" in system_of(enc).actions else ""))
        waiting = next((r for r in live.requests if r.device == device and r.kind == "attack" and r.rid != rid), None)
        if waiting is not None:  # (each attack's result would say something of the target's defences)
            return refused(model, m.peer, rid, f"one attack at a time: the game master has your attack on {players_name(enc.get(waiting.target))}")
        damage = ""
        if message.spell:  # a spell attack: its damage from this phone's library, at the level it is cast at
            known = library_spell(model, message.spell, "attack")
            if isinstance(known, str):
                model, effects = refused(model, m.peer, rid, known)
                wanted = _library_wanted(model)
                return (replace(model, library_state="loading") if wanted else model), effects + wanted
            try:
                damage = known.damage_at(known.check_slot(message.slot))
            except EngineError as error:
                return refused(model, m.peer, rid, str(error))
        weapon = message.spell or message.weapon
        try:
            action = attack_action(enc, c.id, target.id, weapon, 0, damage)  # (checked before the dice are drawn)
        except EngineError as error:
            return refused(model, m.peer, rid, attack_refusal(error, target))
        if seed is None:
            return draw_for(model, m, message, c, device)
        action = attack_action(enc, c.id, target.id, weapon, seed, damage)
        outcome = system_of(enc).attack_outcome(action.args)
        used = action.args.get("with")  # the attack the engine rolled, as the fight has it (not a name the phone made up)
        named = f" ({used})" if isinstance(used, str) and used else ""
        request = Request(live.asked + 1, m.peer, device, "attack", c.id, f"{c.name} attacks {target.name}{named}: {outcome.text}"[:2000],
                          target.id, outcome.damage, rid=rid, seed=seed, weapon=weapon, spell=damage)
        return wait_request(model, request, system_of(enc).attack_roll_words(action.args))
    try:
        low, high = total_range(message.expr)
    except EngineError as error:
        return refused(model, m.peer, rid, f"{message.expr[:40]}: {error}")
    if message.commit:
        if seed is None:
            return draw_for(model, m, message, c, device)
        result = roll(message.expr, Random(seed))
        value, rolled, typed = result.total, result.text.rsplit(" = ", 1)[0], False
    else:
        value, rolled, typed = message.value, message.expr, True
        if not low <= value <= high:
            return refused(model, m.peer, rid, f"{value:,} is not a total {message.expr[:40]} can make ({low:,} to {high:,})")
    if abs(value) > MAX_ROLL:
        return refused(model, m.peer, rid, "that total is too large")
    label = f"{message.label} " if message.label else ""
    dtype = damage_type_of(message.expr)
    text = f"{c.name}: {label}{rolled} = {value}{' (typed)' if typed else ''} against {target.name}."[:2000]
    return wait_request(model, Request(live.asked + 1, m.peer, device, "roll", c.id, text, target.id, value, rid=rid, typed=typed,
                                       seed=seed or 0, dtype=dtype),
                        f"{rolled} = {value}"[:200])


def damage_type_of(expression: str) -> str:
    """The damage type a player typed after its dice ("2d10 fire" -> "fire", "1d8+3 magical slashing"
    -> "magical slashing"); "" for untyped dice or several typed parts (the roll is one total)."""
    try:
        portions = split_typed(expression)
    except EngineError:
        return ""
    if len(portions) != 1 or portions[0].kind is None:
        return ""
    return portions[0].suffix.strip()


def total_range(expression: str) -> tuple[int, int]:
    """The lowest and highest total a roll at a target can make (bounded by MAX_ROLL where its dice
    have no bound); raises EngineError on notation the engine refuses."""
    found = possible_range(parse(expression))
    low, high = found if found is not None else (None, None)
    return (-MAX_ROLL if low is None else low), (MAX_ROLL if high is None else high)


def attack_refusal(error: EngineError, target: Combatant) -> str:
    """Why an attack cannot be rolled, in words a player may read: never the target's numbers, nor a
    name the players are not shown."""
    if isinstance(error, UnsetDefenceError):
        return "the game master has not set that target up for attacks"
    return str(error).replace(target.name, players_name(target))


class Told:
    """The dice a player's phone rolled, as the engine's generator: a death save's d20 face."""

    def __init__(self, face: int) -> None:
        self.face = face

    def randint(self, a: int, b: int) -> int:
        if not a <= self.face <= b:
            raise EngineError("That roll does not fit the dice.")
        return self.face


def attack_action(enc: Encounter, attacker: str, target: str, weapon: str, seed: int, spell: str = "") -> Action:
    """A player's attack as the game master's attack panel would roll it (the system's own attack
    against the target's real defences), its dice from the seed the player's phone drew: the same
    seed, the same roll (Apply resolves it again on the fight as it is then). `spell`: a spell attack's
    damage (the attack is then `weapon`, with the caster's spell attack bonus)."""
    kind = system_of(enc).attack_kind
    if not kind:
        raise EngineError("This game system has no attack roll.")
    if spell and enc.system != "generic":
        raise EngineError("Spells from the SRD are cast in the generic d20 system.")
    extra = {"spell": {"name": weapon, "damage": spell}} if spell else {}
    return resolve(enc, kind, {"attacker": attacker, "target": target, **({"with": weapon} if weapon else {}), **extra}, Random(seed))


def library_spell(model: Model, name: str, kind: str) -> Spell | str:
    """The SRD spell of that name from this page's library, of the kind asked ("save", "attack"); else
    why not, in words a player may read (the library still loading: send again)."""
    if model.timeline.present.system != "generic":
        return "spells from the SRD are cast in the generic d20 system"
    if model.library is None:
        return "the game master's phone is loading the SRD spells: send it again in a moment"
    try:
        spell = find_spell(model.library.spells, name)
    except EngineError as error:
        return str(error)
    if spell.kind != kind:
        return f"{spell.name} is no {'saving throw' if kind == 'save' else 'spell attack'}"
    return spell


def _library_wanted(model: Model) -> tuple[Effect, ...]:
    """The library loaded on the game master's phone when a player's spell needs it (not twice)."""
    if model.library is not None or model.library_state == "loading":
        return ()
    return (LoadLibrary(),)


def cast_asked(model: Model, m: PeerSaid, message: Cast, c: Combatant, device: str) -> Result:
    """A player casts a spell with a saving throw at its targets: checked (the spell, its level, the
    caster's spell save DC, targets the players see), it waits for the game master, whose Apply opens
    the save panel pre-filled (the targets' bonuses never go to the phone)."""
    live, rid, enc = model.live, message.rid, model.timeline.present
    found = library_spell(model, message.spell, "save")
    if isinstance(found, str):
        model, effects = refused(model, m.peer, rid, found)
        wanted = _library_wanted(model)
        return (replace(model, library_state="loading") if wanted else model), effects + wanted
    spell = found
    if system_of(enc).is_down(c):
        return refused(model, m.peer, rid, f"{c.name} is down: a combatant that is down casts no spell")
    dc = spell_save_dc(c)
    if dc is None:
        return refused(model, m.peer, rid, f"{c.name} has no spell save DC: the game master sets it on {c.name}'s sheet")
    try:
        effect = spell.effect(message.slot, dc)
    except EngineError as error:
        return refused(model, m.peer, rid, str(error))
    targets = []
    for vid in message.targets:
        found_id = fight_id(enc, live.secret, vid)
        target = enc.get(found_id) if found_id is not None else None
        if target is None or not shown_to_players(target) or not system_of(enc).is_creature(target):
            return refused(model, m.peer, rid, "a target is not in the fight the players see")
        targets.append(target)
    level = f"level {message.slot}" if spell.level else f"character level {message.slot}"
    text = f"{c.name} casts {spell.name} ({level}) on {', '.join(t.name for t in targets)}: {effect.words}."
    request = Request(live.asked + 1, m.peer, device, "cast", c.id, text[:2000], ",".join(t.id for t in targets), rid=rid,
                      seed=message.slot, weapon=spell.name)
    return wait_request(model, request, f"{spell.name}: the game master opens its saves")


def attack_words(enc: Encounter, action: Action) -> str:
    """A player's attack in words the players may know (the system's `attack_words`): never the
    target's defences, which the game master's request text shows."""
    return system_of(enc).attack_words(action.args)


def after_words(enc: Encounter, cid: str) -> str:
    """How the target stands now, as the players see it ("the Goblin is bloodied")."""
    c = enc.get(cid) if cid in enc.names() else None
    if c is None or not shown_to_players(c):
        return ""
    word = health_word(c, system_of(enc))
    return f"{players_name(c)} is {word}" if word else ""


def answer_to(peer: str, rid: int, answer: str, why: str = "") -> LiveTell:
    """The game master's answer to a phone's request (its `rid`): what the player's phone says."""
    return LiveTell(answer_text(rid, answer, why), peer)


def peer_of(live: Live, device: str, fallback: str) -> str:
    """The phone's connection now (after a reload on either side, a new one under the same device id);
    "" when it is not connected (what it is told then is kept for its next hello: Live.owed)."""
    return next((p.id for p in reversed(live.peers) if p.connected and (p.device == device if device else p.id == fallback)), "")


TAKE_OVER_MS = 3 * 60_000.0  # a character whose phone has been gone this long may be taken over (the game master approving)


def released(model: Model, m: ClaimReleased) -> Result:
    """The game master frees a character of the fight on screen: no phone plays it now, the phone that
    did is told (it asks again), and that phone's claims on the name no longer apply at once."""
    live, enc = model.live, model.timeline.present
    holders = [device for device, eid, cid in live.claims if eid == enc.id and cid == m.cid]
    if not live.hosting or not holders:
        return model, ()
    name = enc.get(m.cid).name if m.cid in enc.names() else ""
    live = replace(live, claims=tuple(x for x in live.claims if (x[1], x[2]) != (enc.id, m.cid)),
                   trusted=tuple(t for t in live.trusted if not (t[0] in holders and t[1] == name)))
    model = replace(model, live=live)
    tell = tuple(LiveTell(you_text(""), p.id) for p in live.peers if p.connected and p.device in holders)
    return model, (*tell, Toast(f"{name or 'That character'} is free: a phone may claim it."), RenderSheet())


def claimed(live: Live, device: str, eid: str) -> str:
    """The character this phone plays in the fight `eid` ("": none there)."""
    return next((cid for d, e, cid in live.claims if d == device and e == eid), "") if device else ""


def with_claim(live: Live, device: str, eid: str, cid: str, name: str) -> Live:
    """This phone plays `cid` in the fight `eid` (its other claim there, and another phone's on that
    character, end), and its claims on a character of this name in another fight apply at once."""
    claims = tuple(x for x in live.claims if x[1] != eid or (x[0] != device and x[2] != cid))
    trusted = tuple(t for t in live.trusted if t != (device, name))[-(MAX_KEPT_TRUSTED - 1):] + ((device, name),)
    return replace(live, claims=(claims + ((device, eid, cid),))[-MAX_KEPT_CLAIMS:], trusted=trusted)


def refused(model: Model, peer: str = "", rid: int = 0, why: str = "") -> Result:
    """Counted on the game master's line; a request read whole is also answered with the reason."""
    model = replace(model, live=replace(model.live, refused=model.live.refused + 1))
    return model, ((answer_to(peer, rid, "refused", why),) if peer and why else ()) + redraw(model)


def wait_request(model: Model, request: Request, words: str = "") -> Result:
    """A request waits for Apply / Dismiss, oldest first: one of a kind per phone (a second "I'm done",
    a second attack at the same target before the first was applied, the same one sent again: the
    one card, now this request; a roll at another target waits beside it), at most
    MAX_WAITING_PER_PHONE a phone and MAX_WAITING in all (past them the oldest is dismissed, and its
    phone told why). `words`: what the player's phone may know of it now."""
    live = model.live
    request = replace(request, eid=model.timeline.present.id)  # (its ids are this fight's)
    same = next((r for r in live.requests if (r.device, r.kind) == (request.device, request.kind)
                 and (r.kind not in ("roll", "attack") or r.target == request.target)), None)
    if same is not None:  # asked again (a second tap, Send again): the one card, now answering this request
        requests = tuple(replace(request, id=same.id) if r is same else r for r in live.requests)
        model = replace(model, live=replace(live, requests=requests))
        return model, (RenderNotices(), answer_to(request.peer, request.rid, "waiting", words))
    dropped: list[Request] = []
    waiting = list(live.requests)
    stranger = unapproved(live, request)
    strangers = [r for r in waiting if unapproved(live, r)]
    while stranger and len(strangers) >= MAX_UNAPPROVED:  # phones holding only the link: a small cap of their own
        waiting.remove(strangers[0])
        dropped.append(strangers.pop(0))
    while waiting:
        mine = [r for r in waiting if r.peer == request.peer]  # (per connection: a device id is anyone's to make up)
        if len(waiting) < MAX_WAITING and len(mine) < MAX_WAITING_PER_PHONE:
            break
        pool = mine if len(mine) >= MAX_WAITING_PER_PHONE else [r for r in waiting if unapproved(live, r)] or ([] if stranger else waiting)
        if not pool:  # never an approved player's request dismissed for a phone the game master has not let in
            return refused(model, request.peer, request.rid, "too many requests are waiting: ask the game master")
        waiting.remove(pool[0])
        dropped.append(pool[0])
    turned = sum(1 for r in dropped if unapproved(live, r))
    model = replace(model, live=replace(live, requests=tuple(waiting) + (request,), asked=request.id, limited=live.limited + len(dropped) - turned,
                                        turned_away=live.turned_away + turned))
    told: tuple[Effect, ...] = ()
    for old in dropped:  # each phone told: a request is never dropped in silence
        model, said = tell_phone(model, old, "dismissed", "too many requests were waiting: send it again if it still stands")
        told += said
    return model, (RenderNotices(), Toast(request.text, request=request.id), answer_to(request.peer, request.rid, "waiting", words), *told)


def unapproved(live: Live, request: Request) -> bool:
    """A claim from a phone the game master has not let play anyone (it holds only the link)."""
    return request.kind == "claim" and not any(d == request.device for d, _, _ in live.claims)


def tell_phone(model: Model, request: Request, answer: str, why: str = "") -> Result:
    """The player's phone told what its request came to: its connection now (it may have reloaded
    since), else when it says hello again (Live.owed)."""
    peer = peer_of(model.live, request.device, request.peer)
    if not peer:
        owed = tuple(x for x in model.live.owed if x[0] != request.device)[-49:] + ((request.device, answer_text(request.rid, answer, why)),)
        return replace(model, live=replace(model.live, owed=owed)), ()
    return model, (answer_to(peer, request.rid, answer, why),)


def next_turn(model: Model, rng: Rng) -> Result:
    """The turn passes as by the game master's Next turn (its double-tap guard is for thumbs: a request
    is answered once)."""
    return act(model, "next_turn", Flow(), rng if rng is not None else Random())


def answered(model: Model, m: RequestAnswered) -> Result:
    """Apply: the request becomes what the game master would have done (one undoable step); Dismiss: it
    goes. Either way the player's phone is told."""
    live = model.live
    request = next((r for r in live.requests if r.id == m.id), None)
    if request is None:
        return model, (RenderNotices(), HideToast())
    model = replace(model, live=replace(live, requests=tuple(r for r in live.requests if r.id != m.id)))
    if not m.apply:
        peer = peer_of(live, request.device, request.peer)
        tell = (LiveTell(you_text(""), peer),) if request.kind == "claim" and peer else ()
        model, said = tell_phone(model, request, "dismissed")
        return model, (RenderNotices(), HideToast(), *tell, *said)
    model, effects = apply_request(model, request, m.rng)
    return model, (RenderNotices(), HideToast(), *effects)


def apply_request(model: Model, request: Request, rng: Rng) -> Result:
    """What the game master's Apply does (or the table's own rule, for a death save the game master
    lets apply): one undoable step through the same path as the game master's own tap, and the
    player's phone told what came of it, in words the players may know."""
    enc = model.timeline.present
    if request.eid and request.eid != enc.id:  # asked in another fight: its ids name others here
        model, said = tell_phone(model, request, "refused", "that was asked in another fight: ask again")
        return model, (Toast("That request was made in another fight."), *said)
    if request.kind == "claim":
        if request.cid not in enc.names():
            model, said = tell_phone(model, request, "refused", "that character is not in the fight now")
            return model, said
        model = replace(model, live=with_claim(model.live, request.device, enc.id, request.cid, enc.get(request.cid).name))
        peer = peer_of(model.live, request.device, request.peer)
        tell = (LiveTell(you_text(players_id(enc, model.live.secret, request.cid)), peer),) if peer else ()
        model, said = tell_phone(model, request, "applied")
        return model, (*tell, *said, *redraw(model))
    if request.kind == "done":
        if request.cid not in {x.id for x in active_unit(enc)}:
            model, said = tell_phone(model, request, "refused", "that turn was over already")
            return model, (Toast("That turn is over already."), *said)
        model, effects = next_turn(model, rng)
        model, said = tell_phone(model, request, "applied", "the turn passed")
        return model, (*effects, *said)
    if request.kind == "cast":
        return cast_applied(model, request)
    if request.kind == "attack":
        try:
            action = attack_action(enc, request.cid, request.target, request.weapon, request.seed, request.spell)
        except EngineError as error:
            model, said = tell_phone(model, request, "refused", str(error))
            return model, (Refuse(str(error)), *said)
        words = attack_words(enc, action)
        before = model.timeline
        model, effects = commit_action(model, action)
        if model.timeline is before:  # refused by the rules on the fight as it is now
            model, said = tell_phone(model, request, "refused", "the fight changed: attack again")
            return model, (*effects, *said)
        after = after_words(model.timeline.present, request.target)
        model, said = tell_phone(model, request, "applied", words + (f"; {after}" if after else ""))
        return model, (*effects, *said)
    if request.kind == "dsave":
        before = model.timeline
        try:
            action = tracker.request(enc, "death_save", generic.DeathSave(request.cid), Told(request.seed))
        except EngineError as error:
            model, said = tell_phone(model, request, "refused", str(error))
            return model, (Refuse(str(error)), *said)
        model, effects = commit_action(model, action)
        if model.timeline is before:
            model, said = tell_phone(model, request, "refused", "the rules refused it now")
            return model, (*effects, *said)
        last = model.timeline.logs[model.timeline.cursor - 1]
        model, said = tell_phone(model, request, "applied", last[-1].text if last else "")
        return model, (*effects, *said)
    if request.kind in ("heal", "temp"):
        kind, asked = (("heal", HitPoints(request.cid, request.amount)) if request.kind == "heal"
                       else ("temp_hp", Temporary(request.cid, request.amount)))
        model, effects = act(model, kind, asked, rng if rng is not None else Random())
        model, said = tell_phone(model, request, "applied")
        return model, (*effects, *said)
    # A typed damage type goes with the damage: the target's defenses and a troll's regeneration answer it.
    portion = split_typed(f"{request.amount} {request.dtype}") if request.dtype else ()
    parts = parts_to_args([(portion[0], request.amount)]) if portion else None
    model, effects = act(model, "damage", HitPoints(request.target, request.amount, request.cid, parts=parts),
                         rng if rng is not None else Random())
    model, said = tell_phone(model, request, "applied")
    return model, (*effects, *said)



def cast_applied(model: Model, request: Request) -> Result:
    """Apply on a player's spell with a save: the game master's save panel opens pre-filled (the spell
    at its level, the caster's DC, its targets still in the fight, the caster as its source); its Apply
    tells the caster's phone what came of it (web/app/update/saves.py)."""
    enc = model.timeline.present
    found = library_spell(model, request.weapon, "save")
    c = enc.get(request.cid) if request.cid in enc.names() else None
    dc = spell_save_dc(c) if c is not None else None
    if isinstance(found, str) or c is None or dc is None:
        why = found if isinstance(found, str) else "the caster is not in the fight, or has no spell save DC now"
        model, said = tell_phone(model, request, "refused", why)
        return model, (Refuse(why[:1].upper() + why[1:] + "."), *said)
    effect = found.effect(request.seed, dc)
    targets = [t for t in request.target.split(",") if t in enc.names()]
    model, effects = opened(model, "save", c.id)
    save = {"source": c.id, "effect": {**effect.to_dict(), "dc": str(effect.dc), "rounds": str(effect.rounds)}, "targets": targets,
            "d20": {}, "adv": {}, "pending": None, "caster": [request.device, request.peer, request.rid]}
    model = replace(model, ui=replace(model.ui, save=save))
    model, said = tell_phone(model, request, "waiting", f"the game master rolls {found.name}'s saves")
    return model, (*effects, *said)


def redraw(model: Model) -> tuple[Effect, ...]:
    """The line that changed, on the screen that shows it."""
    if model.ui.sheet == ("live", None):
        return (SayOnLine("live-followers", followers_line(model.live, model.timeline.present.combatants, model.timeline.present.id)),)
    return (SayOnLine("live-state", state_line(model.live), state_kind(model.live)),) if model.ui.sheet == ("live-follow", None) else ()

