"""The menu: encounters (switch, new, copy, rename, delete, undelete), the game system, the theme,
how storage stands, export and import, sharing, the rules."""

from __future__ import annotations

from .. import render
from .base import EVERY_COLLECTION, Context, Elsewhere, Screen


def draw(ctx: Context, ident: str | None) -> str | Elsewhere:
    enc = ctx.model.timeline.present
    return render.menu_sheet_html(list(ctx.encounters), enc.id, set(ctx.locked), ctx.theme, enc.option("skip_down", "npcs"),
                                  list(ctx.trash), enc.system, ctx.storage, ctx.now)


SCREENS = (Screen("menu", draw, "menu-error", EVERY_COLLECTION),)
