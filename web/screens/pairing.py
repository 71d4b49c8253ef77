"""The live table with no internet: the game master's No internet section (drawn in the Live table
screen), the scanner (reads an offer on a player's phone, an answer on the game master's) and a
player's join step (its answer, for the game master's phone to scan)."""

from __future__ import annotations

from pyengine.live import new_room

from .. import render
from ..live import relays_line
from ..messages import CodeRead, LinkCopied, OfflineStarted, ScanOpened
from ..model import Live
from ..views import Handler
from .base import Context, Elsewhere, Screen


def offline_section(live: Live) -> str:
    """The No internet part of the game master's Live table screen."""
    return render.offline_html(live.pairing, relays_line(live), live.offer[1] if live.offer else "")


def draw_scan(ctx: Context, ident: str | None) -> str | Elsewhere:
    if ident == "answer" and not (ctx.model.live.hosting and ctx.model.live.offer):
        return Elsewhere()
    return render.scan_html("answer" if ident == "answer" else "offer")


def draw_join(ctx: Context, ident: str | None) -> str | Elsewhere:
    live = ctx.model.live
    if not (live.role == "follow" and live.direct):
        return Elsewhere()
    return render.join_html(live.pairing, live.answer)


SCREENS = (Screen("scan", draw_scan, "scan-error"), Screen("join", draw_join, "join-error"))

EVENTS: dict[str, Handler] = {
    "live-offline": lambda page: OfflineStarted(*new_room()),
    "scan-open": lambda page: ScanOpened("answer"),
    "join-table": lambda page: ScanOpened("offer"),
    "scan-submit": lambda page: CodeRead(page.value("scan-paste"), "answer" if page.data("kind") == "answer" else "offer"),
    "copy-offer": lambda page: LinkCopied("offer-code", "offer-out"),
    "copy-answer": lambda page: LinkCopied("answer-code", "answer-out"),
}
