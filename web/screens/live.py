"""The live table: the game master's screen (the join code and link, who follows, what players may
see, the table display) and the followed view on a player's phone or the table display."""

from __future__ import annotations

from typing import Any

from pyengine.live import allowed_relays, new_room

from .. import render
from ..live import followers_line, networks_line, state_kind, state_line
from ..messages import (
    Act,
    AttackSent,
    AutoDoneToggled,
    AutoSavesToggled,
    ClaimTapped,
    DeathSaveSent,
    DisplayOpened,
    DoneTapped,
    HealSent,
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
    ServersSaved,
    SheetOpened,
    TrayToggled,
)
from ..views import Events, Handler, Page
from .base import Context, Elsewhere, Screen
from .pairing import offline_section


def draw_host(ctx: Context, ident: str | None) -> str | Elsewhere:
    live = ctx.model.live
    if not live.hosting:
        return Elsewhere()
    enc = ctx.model.timeline.present
    return render.live_host_html(followers_line(live, enc.combatants), str(enc.option("players_hp", "words")), live.auto_done, live.relays, live.stun,
                                 live.nostr, networks_line(live),
                                 offline_section(live), live.auto_saves)


def draw_follow(ctx: Context, ident: str | None) -> str | Elsewhere:
    live = ctx.model.live
    if not live.following:
        return Elsewhere()
    return render.live_follow_html(live, state_line(live), live.role == "display", my_attacks(ctx.model.characters), state_kind(live))


def my_attacks(characters: tuple[dict[str, Any], ...]) -> list[tuple[str, str]]:
    """(label, damage dice) of My characters' attacks (an attack's own damage, else its character's),
    for a player's roll against a target at a live table."""
    out = []
    for c in characters:
        stats_of_c = c.get("stats")
        own = stats_of_c.get("damage") if isinstance(stats_of_c, dict) else None
        for a in c.get("attacks", []) if isinstance(c.get("attacks"), list) else []:
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
    return LiveOpened(*new_room(), relays=relays, stun=stun, nostr=page.nostr)


def hide_toggled(page: Page) -> Events:
    c = page.model.timeline.present.get(str(page.data("id")))
    return Act("set_flag", {"id": c.id, "flag": str(page.data("flag")), "on": str(page.data("flag")) not in c.flags}, page.rng)


EVENTS: dict[str, Handler] = {
    "live-table": live_table,
    "live-stop": lambda page: LiveStopped(),
    "copy-live": lambda page: LinkCopied("live-link", "live-out"),
    "table-display": lambda page: DisplayOpened(),
    "players-flag": hide_toggled,
    "request-apply": lambda page: RequestAnswered(int(page.data("id")), True, page.rng),
    "request-dismiss": lambda page: RequestAnswered(int(page.data("id")), False, page.rng),
    "live-claim": lambda page: ClaimTapped(str(page.data("id"))),
    "request-again": lambda page: RequestResent(),
    "send-initiative": lambda page: InitiativeSent(page.number(page.value("live-init"))),
    "im-done": lambda page: DoneTapped(),
    "save-servers": lambda page: ServersSaved(page.value("live-relays"), page.value("live-stun"), allowed_relays(
        page.attribute("meta[http-equiv=Content-Security-Policy]", "content") or ""), page.value("live-nostr")),
    "player-attack": lambda page: PlayerPanelToggled("attack"),
    "player-heal": lambda page: PlayerPanelToggled("heal"),
    "send-attack": lambda page: AttackSent(page.value("attack-target"), page.value("attack-with"), page.rng),
    "send-heal": lambda page: HealSent(page.number(page.value("live-heal")), page.value("heal-kind") == "temp"),
    "live-death-save": lambda page: DeathSaveSent(page.rng),
    "request-tray": lambda page: TrayToggled(),
    "send-roll": lambda page: RollSent(page.value("live-target"), page.value("live-dice"), page.value("live-label"), page.rng),
}
CHANGES: dict[str, Handler] = {
    "auto-done": lambda page: AutoDoneToggled(page.ticked("auto-done")),
    "live-attack": attack_picked,
    "player-target": lambda page: PlayerTargetPicked(page.chosen),
    "auto-saves": lambda page: AutoSavesToggled(page.ticked("auto-saves")),
    "players-hp": lambda page: Act("set_option", {"key": "players_hp", "value": page.chosen}, page.rng),
}
