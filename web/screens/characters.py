"""My characters: the list, a character's attack screen (practice against a described target), and
the character's form. A character is a stored document (Model.characters), read here."""

from __future__ import annotations

from typing import Any

from pyengine.characters import Character, character_from_dict
from pyengine.errors import EngineError

from .. import characters as html
from ..persist import CHARACTERS
from .base import Context, Elsewhere, Screen


def find(docs: tuple[dict[str, Any], ...] | list[dict[str, Any]], ident: str | None) -> Character | None:
    """The character stored under `ident` (None: none, or one this version cannot read)."""
    item = next((c for c in docs if c.get("id") == ident), None)
    try:
        return character_from_dict(item) if item is not None else None
    except EngineError:
        return None


def readable(docs: tuple[dict[str, Any], ...] | list[dict[str, Any]]) -> list[Character]:
    """The characters this version can read (a newer tab's may not be; it stays stored)."""
    out = []
    for item in docs:
        try:
            out.append(character_from_dict(item))
        except EngineError:
            continue
    return out


def draw_list(ctx: Context, ident: str | None) -> str | Elsewhere:
    return html.characters_html(readable(ctx.model.characters))


def draw_form(ctx: Context, ident: str | None) -> str | Elsewhere:
    if ident is not None and ident.startswith("new:"):
        return html.character_form_html(ident[4:], None)
    c = find(ctx.model.characters, ident)
    return Elsewhere("characters") if c is None else html.character_form_html(c.system, c)


def draw_character(ctx: Context, ident: str | None) -> str | Elsewhere:
    c = find(ctx.model.characters, ident)
    if c is None:
        return Elsewhere("characters")
    ui = ctx.model.ui
    return html.character_sheet_html(c, ui.practice, ui.attack, html.character_link(ctx.page_url, c))


SCREENS = (
    Screen("characters", draw_list, "character-error", frozenset({CHARACTERS})),
    Screen("character", draw_character, None, frozenset({CHARACTERS})),  # its panel says its own errors; others are notices
    Screen("character-edit", draw_form, "character-error"),
)
