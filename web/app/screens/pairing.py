"""The live table with no internet: the game master's No internet section (drawn in the Live table
screen), the scanner (reads an offer on a player's phone, an answer on the game master's) and a
player's join step (its answer, for the game master's phone to scan)."""

from __future__ import annotations

from pyengine.live import new_room
from web.app.html import esc
from web.app.live_status import relays_line
from web.app.messages import CodeRead, LinkCopied, OfflineStarted, ScanOpened
from web.app.model import Live
from web.app.screens.base import Context, Elsewhere, Screen
from web.app.views import Handler


def offline_section(live: Live) -> str:
    """The No internet part of the game master's Live table screen."""
    return offline_html(live.pairing, relays_line(live), live.offer[1] if live.offer else "")


def draw_scan(ctx: Context, ident: str | None) -> str | Elsewhere:
    if ident == "answer" and not (ctx.model.live.hosting and ctx.model.live.offer):
        return Elsewhere()
    return scan_html("answer" if ident == "answer" else "offer")


def draw_join(ctx: Context, ident: str | None) -> str | Elsewhere:
    live = ctx.model.live
    if not (live.role == "follow" and live.direct):
        return Elsewhere()
    return join_html(live.pairing, live.answer)


SCREENS = (Screen("scan", draw_scan, "scan-error"), Screen("join", draw_join, "join-error"))

EVENTS: dict[str, Handler] = {
    "live-offline": lambda page: OfflineStarted(*new_room()),
    "scan-open": lambda page: ScanOpened("answer"),
    "join-table": lambda page: ScanOpened("offer"),
    "scan-submit": lambda page: CodeRead(page.value("scan-paste"), "answer" if page.data("kind") == "answer" else "offer"),
    "copy-offer": lambda page: LinkCopied("offer-code", "offer-out"),
    "copy-answer": lambda page: LinkCopied("answer-code", "answer-out"),
}


def offline_html(said: str, relays_said: str, link: str) -> str:
    """The Live table's No internet section: a player joins by two scans (the offer here, then its answer)."""
    if link:
        steps = (
            '<ol class="steps"><li>The player opens Menu → <b>Join a table (scan)</b> and scans this code.</li>'
            '<li>Their phone then shows a code: scan it with <b>Scan the player\'s answer</b>.</li></ol>'
            '<div id="offer-qr" class="qr" data-testid="offer-qr" hidden></div>'
            '<p id="offer-qr-note" class="muted" aria-live="polite"></p>'
            f'<div class="row share-row"><input id="offer-code" readonly data-testid="offer-code" aria-label="The game master\'s code" value="{esc(link)}">'
            '<button type="button" data-action="copy-offer" data-testid="copy-offer">Copy</button></div>'
            '<p id="offer-out" class="muted" aria-live="polite"></p>'
            '<button type="button" class="primary" data-action="scan-open" data-testid="scan-open">Scan the player\'s answer</button>'
        )
        again = "Make a new code"
    else:
        steps = ('<p class="muted">This phone shows a code for the next player, then reads the code their phone shows '
                 '(it asks for the camera once).</p>')
        again = "Join a phone without internet"
    return (
        '<section class="offline" data-testid="offline-section"><h4>No internet</h4>'
        f'<p id="relays-state" data-testid="relays-state" aria-live="polite">{esc(relays_said)}</p>{steps}'
        f'<p id="pairing-state" data-testid="pairing-state" aria-live="polite">{esc(said)}</p>'
        f'<button type="button" data-action="live-offline" data-testid="live-offline">{again}</button>'
        '<details class="help"><summary>When to join without internet</summary><p>When the phones cannot reach the relays '
        '(no signal, no Wi-Fi internet) but are on one Wi-Fi: a venue\'s, a home router, or the game master\'s phone as a '
        'hotspot (it works with no mobile data). Each player\'s phone and this one exchange two codes by camera; then the '
        'fight goes from this phone to theirs directly. It cannot work between different networks, nor on a Wi-Fi that keeps '
        'its devices apart (many guest and venue networks). A phone that drops or reloads joins again with the two scans; '
        'the fight here is never affected.</p></details></section>'
    )


def scan_html(kind: str) -> str:
    """The scanner: the camera in a frame, and a field for a pasted code."""
    what = "the game master's code" if kind == "offer" else "the player's answer"
    return (
        f'<h3>Scan {what}</h3>'
        '<p class="muted">Hold this phone so that the code on the other phone\'s screen fills the frame.</p>'
        '<div class="scan-frame" data-testid="scan-frame"><video id="scan-video" data-testid="scan-video" playsinline muted '
        'aria-label="Camera"></video><span class="scan-aim" aria-hidden="true"></span></div>'
        '<p id="scan-state" class="muted" data-testid="scan-state" aria-live="polite">Opening the camera…</p>'
        '<p class="err" id="scan-error" data-testid="scan-error" role="alert"></p>'
        '<label class="field">No camera? Paste the code<textarea id="scan-paste" data-testid="scan-paste" rows="3" '
        'autocomplete="off" autocapitalize="off" spellcheck="false"></textarea></label>'
        f'<div class="row"><button type="button" class="primary" data-action="scan-submit" data-kind="{esc(kind)}" '
        'data-testid="scan-submit">Use this code</button>'
        + ('<button type="button" data-action="live-table" data-testid="scan-back">Back</button></div>' if kind == "answer" else
           '<button type="button" data-action="close-sheet" data-testid="close-sheet">Cancel</button></div>')
    )


def join_html(said: str, code: str) -> str:
    """A player's phone joining without internet: its answer, for the game master's phone to scan."""
    shown = (
        '<div id="answer-qr" class="qr" data-testid="answer-qr" hidden></div>'
        '<p id="answer-qr-note" class="muted" aria-live="polite"></p>'
        f'<div class="row share-row"><input id="answer-code" readonly data-testid="answer-code" aria-label="This phone\'s answer" value="{esc(code)}">'
        '<button type="button" data-action="copy-answer" data-testid="copy-answer">Copy</button></div>'
        '<p id="answer-out" class="muted" aria-live="polite"></p>'
    ) if code else ""
    return (
        '<h3>Show this to the game master</h3>'
        '<p class="muted">On their Live table screen they tap <b>Scan the player\'s answer</b> and point their phone at this code.</p>'
        + shown +
        f'<p id="join-state" data-testid="join-state" aria-live="polite">{esc(said)}</p>'
        '<p class="err" id="join-error" data-testid="join-error" role="alert"></p>'
        '<div class="row"><button type="button" data-action="join-table" data-testid="scan-again">Scan again</button>'
        '<button type="button" data-action="live-stop" data-testid="join-cancel">Cancel</button></div>'
    )
