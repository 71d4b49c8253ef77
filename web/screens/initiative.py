"""The initiative step before a fight: the players call out their numbers."""

from __future__ import annotations

from .. import render
from .base import Context, Elsewhere, Screen


def draw(ctx: Context, ident: str | None) -> str | Elsewhere:
    enc = ctx.model.timeline.present
    return Elsewhere() if enc.started else render.initiative_sheet_html(enc)


SCREENS = (Screen("init", draw, "form-error"),)
