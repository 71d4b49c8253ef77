"""The add form (with the saved party and opponents one tap away) and the edit form."""

from __future__ import annotations

from .. import render
from .base import EVERY_COLLECTION, Context, Elsewhere, Screen


def draw_add(ctx: Context, ident: str | None) -> str | Elsewhere:
    enc = ctx.model.timeline.present
    return render.add_sheet_html(enc, list(ctx.model.roster), list(ctx.model.templates), last=ctx.model.ui.last_added)


def draw_edit(ctx: Context, ident: str | None) -> str | Elsewhere:
    enc = ctx.model.timeline.present
    if ident is None or ident not in enc.names():
        return Elsewhere()
    return render.add_sheet_html(enc, list(ctx.model.roster), list(ctx.model.templates), edit=enc.get(ident))


SCREENS = (Screen("add", draw_add, "form-error", EVERY_COLLECTION), Screen("edit", draw_edit, "form-error"))
