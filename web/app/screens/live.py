"""The live table: the game master's screen (the join code and link, who follows, what players may
see, the table display) and the followed view on a player's phone or the table display."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pyengine.core_args import Flag, Option
from pyengine.handoff import SURPRISED
from pyengine.live import allowed_relays, new_room
from pyengine.model import Encounter
from pyengine.save_effects import ABILITY_NAMES
from pyengine.systems.saving_throws import SaveMode, p_fail
from pyengine.systems.spells import Spell
from web.app.html import esc, pct, view_body_html, view_round
from web.app.live_status import followers_line, gone_for, networks_line, playing, state_kind, state_line
from web.app.messages import (
    Act,
    AttackSent,
    AutoDoneToggled,
    AutoSavesToggled,
    ClaimReleased,
    ClaimTapped,
    DeathSaveSent,
    DisplayOpened,
    DoneTapped,
    HealSent,
    InitiativeRolled,
    InitiativeSent,
    LinkCopied,
    LiveAttackPicked,
    LiveOpened,
    LiveStopped,
    PlayerPanelToggled,
    PlayerTargetPicked,
    RequestAnswered,
    RequestResent,
    RollSent,
    SaveSent,
    ServersSaved,
    SheetOpened,
    SpellPicked,
    SpellSent,
    TrayToggled,
)
from web.app.model import Live
from web.app.screens.base import Context, Elsewhere, Screen
from web.app.screens.pairing import offline_section
from web.app.views import Events, Handler, Page, datum


def draw_host(ctx: Context, ident: str | None) -> str | Elsewhere:
    live = ctx.model.live
    if not live.hosting:
        return Elsewhere()
    enc = ctx.model.timeline.present
    return live_host_html(followers_line(live, enc.combatants, enc.id), str(enc.option("players_hp", "words")), live.auto_done, live.relays, live.stun,
                                 live.nostr, networks_line(live),
                                 offline_section(live), live.auto_saves, claims_html(live, enc))


def claims_html(live: Live, enc: Encounter) -> str:
    """Who plays whom in the fight on screen, each with its phone and whether it is connected, and a
    Release that frees the character (its phone asks again; another may claim it)."""
    rows = []
    for device, eid, cid in live.claims:
        if eid != enc.id or cid not in enc.names():
            continue
        phones = [p for p in live.peers if p.device == device]
        name = next((p.name for p in reversed(phones) if p.name), "")
        if any(p.connected for p in phones):
            how = "connected"
        else:
            minutes = round((gone_for(live, device, live.now_ms) or 0) / 60_000)  # (the clock of the last message heard)
            how = ("left just now" if minutes < 1 else f"left {minutes} min ago") if phones else "not seen since this page opened"
        phone = f"{esc(name)}'s phone" if name else "a phone"
        rows.append(f'<li data-testid="claim-row"><span><b>{esc(enc.get(cid).name)}</b>: {phone} ({how})</span>'
                    f'<button type="button" data-action="release-claim" data-id="{esc(cid)}" data-testid="release-claim">Release</button></li>')
    if not rows:
        return ""
    return '<h4>Who plays whom</h4><ul class="claims" data-testid="claims">' + "".join(rows) + "</ul>"



def draw_follow(ctx: Context, ident: str | None) -> str | Elsewhere:
    live = ctx.model.live
    if not live.following:
        return Elsewhere()
    model = ctx.model
    spells = model.library.spells if model.library is not None else None
    return live_follow_html(live, state_line(live), live.role == "display", my_attacks(model.characters), state_kind(live),
                            spells, model.library_state)


def my_attacks(characters: Sequence[Mapping[str, object]]) -> list[tuple[str, str]]:
    """(label, damage dice) of My characters' attacks (an attack's own damage, else its character's),
    for a player's roll against a target at a live table."""
    out = []
    for c in characters:
        stats_of_c = c.get("stats")
        own = stats_of_c.get("damage") if isinstance(stats_of_c, dict) else None
        attacks = c.get("attacks")
        for a in attacks if isinstance(attacks, list) else []:
            if not isinstance(a, dict):
                continue
            weapon = a.get("stats")
            dice = (weapon.get("damage") if isinstance(weapon, dict) else None) or own
            if isinstance(dice, str) and dice.strip():
                out.append((f"{c.get('name', '')}: {a.get('name', '')}", dice.strip()))
    return out[:50]


def attack_picked(page: Page) -> Events:
    found = my_attacks(page.model.characters)
    at = page.number(page.chosen)
    if at is None or not 0 <= at < len(found):
        return None
    label, dice = found[at]
    return LiveAttackPicked(dice, label.split(": ", 1)[-1])


SCREENS = (Screen("live", draw_host, "live-error"), Screen("live-follow", draw_follow, "sheet-error"))


def live_table(page: Page) -> Events:
    """The menu's Live table: a follower sees its view again; the game master hosts (a fresh room, or
    the one already live)."""
    if page.model.live.following:
        return SheetOpened("live-follow")
    relays, stun = page.servers
    return LiveOpened(*new_room(), relays=relays, stun=stun, nostr=page.nostr, rng=page.rng)


def hide_toggled(page: Page) -> Events:
    c, flag = page.model.timeline.present.get(datum(page, "id")), datum(page, "flag")
    return Act("set_flag", Flag(c.id, flag, flag not in c.flags), page.rng)


EVENTS: dict[str, Handler] = {
    "live-table": live_table,
    "live-stop": lambda page: LiveStopped(),
    "copy-live": lambda page: LinkCopied("live-link", "live-out"),
    "table-display": lambda page: DisplayOpened(),
    "players-flag": hide_toggled,
    "request-apply": lambda page: RequestAnswered(int(datum(page, "id")), True, page.rng),
    "request-dismiss": lambda page: RequestAnswered(int(datum(page, "id")), False, page.rng),
    "live-claim": lambda page: ClaimTapped(str(page.data("id"))),
    "release-claim": lambda page: ClaimReleased(str(datum(page, "id"))),
    "request-again": lambda page: RequestResent(),
    "send-initiative": lambda page: InitiativeSent(page.number(page.value("live-init"))),
    "roll-initiative": lambda page: InitiativeRolled(page.rng),
    "im-done": lambda page: DoneTapped(),
    "save-servers": lambda page: ServersSaved(page.value("live-relays"), page.value("live-stun"), allowed_relays(
        page.attribute("meta[http-equiv=Content-Security-Policy]", "content") or ""), page.value("live-nostr")),
    "player-attack": lambda page: PlayerPanelToggled("attack"),
    "player-heal": lambda page: PlayerPanelToggled("heal"),
    "send-attack": lambda page: AttackSent(page.value("attack-target"), page.value("attack-with"), page.rng),
    "send-heal": lambda page: HealSent(page.number(page.value("live-heal")), page.value("heal-kind") == "temp"),
    "live-death-save": lambda page: DeathSaveSent(page.rng, page.value("death-save-typed")),
    "roll-save": lambda page: SaveSent(page.rng),
    "player-spell": lambda page: PlayerPanelToggled("spell"),
    "send-spell": lambda page: SpellSent(page.rng, page.value("spell-pick"), page.number(page.value("spell-level")),
                                         tuple(page.checked("#sheet input.spell-target"))),
    "send-save-typed": lambda page: SaveSent(page.rng, page.value("save-typed")),
    "request-tray": lambda page: TrayToggled(),
    "send-roll": lambda page: RollSent(page.value("live-target"), page.value("live-dice"), page.value("live-label"), page.rng,
                                       page.value("live-typed")),
}
CHANGES: dict[str, Handler] = {
    "auto-done": lambda page: AutoDoneToggled(page.ticked("auto-done")),
    "live-attack": attack_picked,
    "player-target": lambda page: PlayerTargetPicked(page.chosen),
    "spell-pick": lambda page: SpellPicked(page.chosen),
    "auto-saves": lambda page: AutoSavesToggled(page.ticked("auto-saves")),
    "players-hp": lambda page: Act("set_option", Option("players_hp", page.chosen), page.rng),
}


def live_host_html(followers: str, players_hp: str, auto_done: bool = False, relays: tuple[str, ...] = (),
                   stun: tuple[str, ...] = (), nostr: tuple[str, ...] = (), networks: str = "", offline: str = "", auto_saves: bool = False,
                   claims: str = "") -> str:
    """The game master's Live table: the join code and link (when the table is at the relays), the
    No internet section (`offline`, offline_html), who follows, what players may see."""
    pick = "".join(f'<option value="{v}"{" selected" if v == players_hp else ""}>{label}</option>'
                   for v, label in (("words", "HP as words (hurt, bloodied)"), ("numbers", "HP as numbers")))
    at_relays = (
        '<p class="muted">Players scan this code (or open the link) and follow the fight on their phones as it happens.</p>'
        '<div id="live-qr" class="qr" data-testid="live-qr" hidden></div>'
        '<p id="live-qr-note" class="muted" aria-live="polite"></p>'
        '<div class="row share-row"><input id="live-link" readonly data-testid="live-link" aria-label="Join link">'
        '<button type="button" data-action="copy-live" data-testid="copy-live">Copy</button></div>'
        '<p id="live-out" class="muted" aria-live="polite"></p>'
    ) if relays or nostr else ""
    return (
        '<h3>Live table</h3>' + at_relays +
        f'<p data-testid="live-followers" id="live-followers" aria-live="polite">{esc(followers)}</p>'
        + (f'<p class="muted" data-testid="live-networks" id="live-networks" aria-live="polite">{esc(networks)}</p>' if relays or nostr else "")
        + claims + offline +
        ''
        f'<label class="field">What players see of opponents<select id="players-hp" data-action-change="players-hp" data-testid="players-hp">{pick}</select></label>'
        '<label class="check"><input type="checkbox" id="auto-done" data-action-change="auto-done" data-testid="auto-done"'
        f'{" checked" if auto_done else ""}> A player\'s "I\'m done" passes the turn without asking</label>'
        '<label class="check"><input type="checkbox" id="auto-saves" data-action-change="auto-saves" data-testid="auto-saves"'
        f'{" checked" if auto_saves else ""}> Apply players\' death saves without asking</label>'
        '<p class="muted">Hide a combatant (an ambush, reinforcements) or keep its name unknown from its sheet: what is hidden is '
        'never sent to a phone.</p>'
        '<p class="err" id="live-error" data-testid="live-error" role="alert"></p>'
        '<div class="grid2">'
        '<button type="button" data-action="table-display" data-testid="table-display">Open table display</button>'
        '<button type="button" class="danger" data-action="live-stop" data-testid="live-stop">Stop live table</button></div>'
        '<details class="help"><summary>Connection settings</summary>'
        '<p class="muted">A table that goes live uses these (a table live without the relays: stop it and open Live table).</p>'
        f'<label class="field">Relays (WebTorrent trackers, comma-separated, or "none")<input id="live-relays" data-testid="live-relays" '
        f'autocomplete="off" value="{esc(", ".join(relays) or "none")}"></label>'
        f'<label class="field">Nostr relays (comma-separated, or "none")<input id="live-nostr" data-testid="live-nostr" '
        f'autocomplete="off" value="{esc(", ".join(nostr) or "none")}"></label>'
        f'<label class="field">STUN servers (or "none")<input id="live-stun" data-testid="live-stun" autocomplete="off" '
        f'value="{esc(", ".join(stun) or "none")}"></label>'
        '<button type="button" data-action="save-servers" data-testid="save-servers">Save</button>'
        '<p class="muted" id="live-servers-out" aria-live="polite"></p></details>'
        '<details class="help"><summary>How the live table connects</summary><p>The phones meet through public relays of two '
        'networks at once (Nostr relays and WebTorrent trackers), which only see that browsers asked for the same coded room name '
        '(Nostr: signed events of a throwaway key; the handshakes inside are encrypted with the room\'s password); the fight then goes '
        'from phone to phone, encrypted by WebRTC. Phones that do not meet: the line above says which relays answer. '
        'The room and its password are only in this code and link. The table display is a second window on this device and needs no network.</p></details>'
        '<div class="row"><button type="button" data-action="close-sheet" data-testid="close-sheet">Close</button></div>'
    )


def live_follow_html(live: Live, state: str, display: bool, attacks: list[tuple[str, str]] | None = None, kind: str = "",
                     spells: tuple[Spell, ...] | None = None, spells_state: str = "") -> str:
    """A player's phone (or the table display) following the fight live: the players' view, how the
    connection stands, and (a player's phone) what it may ask the game master."""
    body = (view_body_html(live.view) if live.view is not None
            else '<p class="muted">Waiting for the game master\'s phone…</p>')
    stop = "" if display else '<button type="button" data-action="live-stop" data-testid="live-leave">Stop following</button>'
    if live.direct and not live.host_here() and live.revision:
        # Joined by two scans and lost: no relay to look again through; the two scans bring it back.
        stop = '<button type="button" class="primary" data-action="join-table" data-testid="join-again">Join again (two scans)</button>' + stop
    return (
        f'<div class="live-view{" display" if display else ""}" data-testid="live-view">'
        f'<p class="live-state" id="live-state" data-testid="live-state" data-state="{esc(kind)}" aria-live="polite">{esc(state)}</p>'
        # (a save the game master asks of this phone's character: first, above the fight)
        f'{"" if display else save_request_html(live)}{body}</div>'
        + ("" if display or live.view is None else _player_asks(live, attacks or [], spells, spells_state))
        + ("" if display else f'<div class="row">{stop}<button type="button" data-action="close-sheet" data-testid="close-sheet">Close</button></div>')
    )


def _player_asks(live: Live, attacks: list[tuple[str, str]], spells: tuple[Spell, ...] | None = None, spells_state: str = "") -> str:
    """A player's part: claim a party combatant; then its own state (HP with temporary HP,
    conditions, death saves), initiative or "I'm done", an attack the game master's engine resolves,
    healing or temporary HP received, and any other roll against a target."""
    again = ('<button type="button" data-action="request-again" data-testid="request-again">Send again</button>'
             if live.said.startswith("not delivered") and live.asking else "")
    said_here = live.said if live.asked_fight == live.fight else ""  # (an answer belongs to the fight it was asked in)
    said = (f'<p class="request-state" id="request-state" data-testid="request-state" aria-live="polite">{esc(said_here)}</p>'
            + (again if said_here else ""))
    err = '<p class="err" id="sheet-error" data-testid="sheet-error" role="alert"></p>'
    names = {i: n for i, n, _ in live.ids}
    you = playing(live)
    if not you:  # (another fight: the character of the name it played is offered first)
        party = sorted(((i, n) for i, n, side in live.ids if side == "p"), key=lambda x: x[1] != live.played)
        if not party:
            return said
        return (
            '<h4>Which one is you?</h4><div class="grid2">'
            + "".join(f'<button type="button" data-action="live-claim" data-id="{esc(i)}" data-testid="claim">{esc(n)}</button>'
                      for i, n in party)
            + f'</div>{said}{err}'
        )
    me = names.get(you, "your character")
    started = bool(live.view and live.view.get("round"))
    mine = you in live.turn
    own = (live.pcs or {}).get(you) or {}
    # Whose turn it is and this phone's own request, held at the top of the sheet while the player's
    # controls below scroll (issue 50, item 7: both were off the screen with a panel open at 390×844).
    parts = [_turn_bar(live, said), f'<h4>You play <b data-testid="live-you">{esc(me)}</b></h4>', _own_state(own, started and mine)]
    if not started:
        parts.append(
            '<div class="row"><input id="live-init" type="number" inputmode="numeric" placeholder="Your initiative" '
            'aria-label="Your initiative" data-testid="live-init">'
            '<button type="button" data-action="send-initiative" data-testid="send-initiative">Send initiative</button></div>'
            f'<button type="button" class="primary" data-action="roll-initiative" data-testid="roll-initiative-phone">'
            f'Roll initiative (d20 {int(own.get("init", 0)):+d})</button>')
    else:
        label = "I'm done" if mine else "I'm done (on your turn)"
        parts.append(f'<button type="button" class="primary" data-action="im-done" data-testid="im-done"{"" if mine else " disabled"}>'
                     f'{label}</button>')
    down = str(own.get("down") or "")  # (as its system counts it: a dying character rolls death saves, not attacks)
    if not down and any(name == SURPRISED for name, _ in own.get("cond") or []):
        down = "Surprised (round 1)"  # (the game master's engine refuses it too)
    attack = (f'<p class="muted small" data-testid="no-attack">{esc(down)}: no attacks.</p>' if down else
              f'<button type="button" data-action="player-attack" data-testid="player-attack" aria-expanded="{str(live.panel == "attack").lower()}">'
              'Attack</button>')
    generic = bool(live.view and live.view.get("system") == "generic")
    spell = (f'<button type="button" data-action="player-spell" data-testid="player-spell" aria-expanded="{str(live.panel == "spell").lower()}">'
             'Spell</button>') if generic and not down else ""
    parts.append(
        f'<div class="row">{attack}{spell}'
        f'<button type="button" data-action="player-heal" data-testid="player-heal" aria-expanded="{str(live.panel == "heal").lower()}">'
        'Healing, temp HP</button></div>')
    if live.panel == "spell" and generic and not down:
        parts.append(spell_panel_html(live, spells, spells_state))
    chosen = player_target(live)
    targets = "".join(f'<option value="{esc(i)}"{" selected" if i == chosen else ""}>{esc(n)}</option>'
                      for i, n, side in live.ids if side != "x" and i != you)  # (the attack's and another roll's)
    if live.panel == "attack" and not down:
        weapons = own.get("atk") or []
        pick = ('<label class="field">With<select id="attack-with" data-testid="attack-with">'
                + "".join(f'<option value="{esc(a)}">{esc(a)}</option>' for a in weapons) + '</select></label>') if weapons else ""
        parts.append(
            '<div class="panel player-attack" data-testid="attack-panel">'
            f'<label class="field">Target<select id="attack-target" data-testid="attack-target" data-action-change="player-target">{targets}</select></label>'
            f'{pick}<p class="muted small">Your phone rolls the dice; the game master\'s phone rolls them against the target\'s defences.</p>'
            '<button type="button" class="primary" data-action="send-attack" data-testid="send-attack">Roll the attack</button></div>')
    if live.panel == "heal":
        parts.append(
            '<div class="panel player-heal" data-testid="heal-panel"><div class="grid2">'
            '<label class="field">How much<input id="live-heal" type="number" inputmode="numeric" min="1" data-testid="live-heal"></label>'
            '<label class="field">What<select id="heal-kind" data-testid="heal-kind"><option value="heal">Healing</option>'
            '<option value="temp">Temporary HP</option></select></label></div>'
            '<button type="button" data-action="send-heal" data-testid="send-heal">Send to the game master</button></div>')
    if attacks:
        parts.append(
            '<label class="field">From My characters<select id="live-attack" data-action-change="live-attack" data-testid="live-attack">'
            '<option value="">Pick an attack…</option>'
            + "".join(f'<option value="{i}">{esc(label)} ({esc(dice)})</option>' for i, (label, dice) in enumerate(attacks))
            + '</select></label>')
    parts.append(
        '<h4 class="small">Another roll (a spell, typed dice)</h4>'
        # (the target's box the whole width: "Young Red Dragon" is cut in half of it at 390 px)
        '<label class="field">Target<select id="live-target" data-testid="live-target" data-action-change="player-target">'
        f'{targets}</select></label>'
        '<div class="grid2"><label class="field">Dice<input id="live-dice" data-testid="live-dice" autocomplete="off" placeholder="2d10 fire"></label>'
        # (labels above the boxes: a placeholder is cut where a phone's font is wider, Firefox's at 390 px)
        '<label class="field">What it is<input id="live-label" data-testid="live-label" maxlength="60" '
        'autocomplete="off" placeholder="a spell"></label></div>'
        '<label class="field">Real dice total<input id="live-typed" data-testid="live-typed" type="number" inputmode="numeric" '
        'placeholder="typed"></label>'
        '<p class="muted small">Your phone\'s dice are drawn with the game master\'s phone: neither chooses them. '
        'A total typed from real dice is sent as typed.</p>'
        '<button type="button" data-action="send-roll" data-testid="send-roll">Roll and send</button>')
    return "".join(parts) + err


def _turn_bar(live: Live, said: str) -> str:
    """The round and whose turn it is (the players' view's own words), then `said`: what became of this
    phone's request."""
    view = live.view or {}
    now = str(view.get("now") or "")
    line = f'<b>{esc(view_round(view))}</b>' + (f' · now <b data-testid="bar-now">{esc(now)}</b>' if now else "")
    return f'<div class="turn-bar" data-testid="turn-bar"><p class="turn-line">{line}</p>{said}</div>'


def spell_panel_html(live: Live, spells: tuple[Spell, ...] | None, state: str = "") -> str:
    """The phone's Spell panel (issue 52): the SRD spells the engine resolves, by level; the level it
    is cast at (its damage there); its targets (several for a save spell, one for an attack or damage
    alone); Cast. A save spell's DC is the caster's, kept on the game master's phone."""
    if spells is None:
        said = (f'<p class="err" role="alert">{esc(state)}</p>'
                '<button type="button" data-action="srd-retry" data-testid="srd-retry">Retry</button>') if state and state != "loading" \
            else '<p class="muted" role="status">Loading the SRD spells…</p>'
        return f'<div class="panel" data-testid="spell-panel">{said}</div>'
    chosen = next((s for s in spells if s.name == live.spell), None) or next((s for s in spells if s.name == "Fire Bolt"), spells[0])
    groups = "".join(
        f'<optgroup label="{"Cantrips" if level == 0 else f"Level {level}"}">'
        + "".join(f'<option value="{esc(s.name)}"{" selected" if s is chosen else ""}>{esc(s.name)}</option>' for s in spells if s.level == level)
        + '</optgroup>' for level in sorted({s.level for s in spells}))
    levels = "".join(f'<option value="{n}">{f"Character level {n}+" if not chosen.level else f"Level {n}"}'
                     f'{" · " + esc(chosen.damage_at(n)) if chosen.damage_at(n) else ""}</option>' for n in chosen.slots())
    what = {"save": f"{ABILITY_NAMES.get(chosen.ability or '', '')} save" + (", half on a success" if chosen.damage and chosen.success == "half" else ""),
            "attack": "spell attack", "damage": "damage, no roll to hit"}[chosen.kind]
    if chosen.condition:
        what += f", {chosen.condition.lower()} on a failure"
    many = chosen.kind == "save"
    you = playing(live)
    targets = "".join(
        f'<label class="check toggle"><input type="{"checkbox" if many else "radio"}" name="spell-target" class="spell-target" '
        f'value="{esc(i)}" data-testid="spell-target"> {esc(n)}</label>'
        for i, n, side in live.ids if side != "x" and (many or i != you))
    return (
        '<div class="panel" data-testid="spell-panel">'
        f'<label class="field">Spell<select id="spell-pick" data-testid="spell-pick" data-action-change="spell-pick">{groups}</select></label>'
        f'<p class="muted small" data-testid="spell-words">{esc(what)}</p>'
        f'<label class="field">Cast at<select id="spell-level" data-testid="spell-level">{levels}</select></label>'
        f'<h4 class="small">{"Targets" if many else "Target"}</h4><div class="checks">{targets}</div>'
        '<button type="button" class="primary" data-action="send-spell" data-testid="send-spell">Cast</button>'
        + ('<p class="muted small">The game master rolls its damage once and each target\'s save.</p>' if many else "")
        + '</div>')


ROLL_WORDS = {"1d20": "", "2d20kh1": "with advantage", "2d20kl1": "with disadvantage"}


def save_request_html(live: Live) -> str:
    """The save the game master asks of this phone's character (issue 52): the effect, the DC, the
    character's own bonus and how it rolls, its exact chance, Roll (the d20s from both phones) or a real
    die's face typed; then what came of it, once the game master applied the save."""
    ask = live.save_ask
    if ask is None or ask.cid != playing(live):
        return ""
    ability = ABILITY_NAMES.get(ask.ability, ask.ability)
    head = f'<p><b>{esc(ask.what or "A save")}</b>: make a DC {ask.dc} {esc(ability)} saving throw.</p>'
    if ask.outcome:
        return (f'<div class="panel save-request" data-testid="save-request" data-state="done">{head}'
                f'<p data-testid="save-outcome"><b>{esc(ask.outcome)}</b></p></div>')
    if not ask.roll:
        return f'<div class="panel save-request" data-testid="save-request">{head}<p>It fails whatever it rolls.</p></div>'
    chance = 1 - p_fail(SaveMode(ask.roll), ask.bonus, ask.dc)
    how = " ".join(x for x in (ROLL_WORDS.get(ask.roll, ""), f"({ask.note})" if ask.note else "") if x)
    odds = (f'<p class="muted">Your bonus <b>{ask.bonus:+d}</b>{" " + esc(how) if how else ""} · '
            f'success <b data-testid="save-chance">{pct(float(chance))}</b></p>')
    if live.save_sent:
        return (f'<div class="panel save-request" data-testid="save-request" data-state="sent">{head}{odds}'
                '<p class="muted">Sent: the game master applies the save with the others.</p></div>')
    dice = "2d20" if ask.roll.startswith("2") else "d20"
    return (f'<div class="panel save-request" data-testid="save-request" data-state="asked" role="alert">{head}{odds}'
            f'<button type="button" class="primary" data-action="roll-save" data-testid="roll-save">Roll the save ({dice} {ask.bonus:+d})</button>'
            '<div class="row"><input id="save-typed" data-testid="save-typed" type="number" inputmode="numeric" min="1" max="20" '
            'placeholder="Real d20?" aria-label="The real d20 you kept (sent as typed)">'
            '<button type="button" data-action="send-save-typed" data-testid="send-save-typed">Send the die</button></div></div>')


def player_target(live: Live) -> str:
    """The target a player's phone offers first: the one this player picked during this turn, else
    the opponent whose turn it is, else the last one it chose (kept across sends), else the first
    opponent; never the lair, never itself, never one the players cannot see."""
    valid = {i for i, _, side in live.ids if side != "x" and i != playing(live)}
    foes = [i for i, _, side in live.ids if side == "o"]
    if live.target in valid and live.target_turn == live.turn:
        return str(live.target)
    acting = next((i for i in live.turn if i in foes), "")
    if acting:
        return acting
    if live.target in valid:
        return str(live.target)
    return foes[0] if foes else next(iter(sorted(valid)), "")


def _own_state(own: dict[str, Any], my_turn: bool) -> str:
    """A player's own character as its system keeps it: exact HP (the system's word for it: Stamina,
    Body) with temporary HP ("22/44 +8"), the rest of its state (Laurels' Injuries, Realm of Strife's
    resources), conditions and what remains of them, death saves at 0 HP (and the button to roll one
    on its turn)."""
    if not own:
        return ""
    hp, most, temp = own.get("hp"), own.get("max"), own.get("temp") or 0
    shown = "—" if hp is None else f"{hp}/{most}" if most else f"{hp}"
    out = (f'<p class="my-hp" data-testid="my-hp"><span class="muted">{esc(own.get("label") or "HP")}</span> <b>{esc(shown)}</b>'
           + (f' <span class="temp">+{temp}</span>' if temp else "")
           + "".join(f' · <span class="muted">{esc(name)}</span> <b data-testid="my-gauge">{esc(value)}{"/" + esc(top) if top else ""}</b>'
                     for name, value, top in own.get("more") or [])
           + '</p>')
    conds = own.get("cond") or []
    out += ('<ul class="my-conditions" data-testid="my-conditions">'
            + "".join(f'<li><b>{esc(name)}</b> <span class="muted">{esc(left)}</span></li>' for name, left in conds)
            + '</ul>') if conds else '<p class="muted small" data-testid="my-conditions">No conditions.</p>'
    saves = own.get("ds")
    if saves:
        successes, failures, state = saves
        out += (f'<p data-testid="my-death-saves">Death saves: <b>{successes}</b>/3 ✓ · <b>{failures}</b>/3 ✗ '
                f'<span class="muted">({esc(state)})</span></p>')
        if state == "dying":
            label = "Roll death save" if my_turn else "Roll death save (on your turn)"
            out += (f'<div class="row"><button type="button" class="primary" data-action="live-death-save" data-testid="death-save"'
                    f'{"" if my_turn else " disabled"}>{label}</button>'
                    '<input id="death-save-typed" data-testid="death-save-typed" type="number" inputmode="numeric" min="1" max="20" '
                    'placeholder="Real d20?" aria-label="A real d20\'s face (sent as typed)"></div>')
    return out
