"""The initiative step before a fight: the players call out their numbers."""

from __future__ import annotations

from pyengine.model import Combatant, Encounter
from web.app.html import esc
from web.app.messages import InitiativeEntered
from web.app.screens.base import Context, Elsewhere, Screen
from web.app.screens.tracker import start_args
from web.app.views import Events, Handler, Page


def draw(ctx: Context, ident: str | None) -> str | Elsewhere:
    enc = ctx.model.timeline.present
    return Elsewhere() if enc.started else initiative_sheet_html(enc, dict(ctx.model.live.initiatives))


SCREENS = (Screen("init", draw, "form-error"),)


def entered(page: Page) -> Events:
    """The numbers the players called out, by combatant (an empty field: rolled); the die alone
    when the step says so, each combatant's modifier then added."""
    typed = {}
    enc = page.model.timeline.present
    die_alone = page.value("init-typed") == "die"
    for ident, text, _, _ in page.fields("[data-testid=init-input]", "data-combatant-id"):
        value = page.number(text)
        if value is not None:
            typed[ident] = value + (enc.get(ident).init_mod if die_alone and ident in enc.names() else 0)
    return InitiativeEntered(typed, page.rng, start_args(page))


SUBMITS: dict[str, Handler] = {"init-start": entered}


def initiative_sheet_html(enc: Encounter, sent: dict[str, int] | None = None) -> str:
    """The players call out their initiative: one number field per player character, in order;
    Enter moves on; whoever is left empty (and every other combatant) is rolled. `sent`: what
    players' phones sent at the live table (their latest roll: it fills the field)."""
    sent = sent or {}

    def value(c: Combatant) -> str:
        return str(sent[c.id]) if c.id in sent else "" if c.initiative is None else str(c.initiative)

    rows = "".join(
        f'<label class="field init-row">{esc(c.name)} <span class="muted">({c.init_mod:+d})</span>'
        f'<input id="init-{esc(c.id)}" type="number" '
        f'enterkeyhint="next" autocomplete="off" data-testid="init-input" data-combatant-id="{esc(c.id)}" '
        f'value="{esc(value(c))}" placeholder="roll"></label>'
        for c in enc.combatants if c.pc
    )
    return (
        '<h3>Initiative</h3>'
        '<p class="muted">Players: type your initiative. Anyone left empty, and every non-player, is rolled.</p>'
        f'<form id="init-form" class="init-entry" data-action-submit="init-start" data-testid="init-entry">{rows}'
        # After the fields: the first player's field has the focus (Enter moves on to the next).
        '<label class="field">What is typed<select id="init-typed" data-testid="init-typed">'
        '<option value="total">Total (die + modifier)</option>'
        '<option value="die">The die alone (+ modifier here)</option></select></label>'
        '<p class="err" id="form-error" data-testid="form-error" role="alert"></p>'
        '<div class="row"><button type="button" data-action="close-sheet">Cancel</button>'
        '<button type="submit" class="primary" data-testid="init-done">Roll for the rest and start</button></div></form>'
    )
