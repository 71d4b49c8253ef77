"""The initiative step before a fight: the players call out their numbers."""

from __future__ import annotations

from .. import render
from ..messages import InitiativeEntered
from ..views import Events, Handler, Page
from .base import Context, Elsewhere, Screen
from .tracker import start_args


def draw(ctx: Context, ident: str | None) -> str | Elsewhere:
    enc = ctx.model.timeline.present
    return Elsewhere() if enc.started else render.initiative_sheet_html(enc, dict(ctx.model.live.initiatives))


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
