"""The players' read-only view of a fight, from a #view= link."""

from __future__ import annotations

from web.app import render
from web.app.screens.base import Context, Elsewhere, Screen


def draw(ctx: Context, ident: str | None) -> str | Elsewhere:
    view = ctx.model.ui.table_view
    return Elsewhere() if view is None else render.table_view_html(view)


SCREENS = (Screen("view", draw),)
