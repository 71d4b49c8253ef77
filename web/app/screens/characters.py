"""My characters: the list, a character's attack screen (practice against a described target), and
the character's form. A character is a stored document (Model.characters), read here."""

from __future__ import annotations

from web.app import characters as html
from web.app.characters import find, fresh_id, open_character, readable
from web.app.messages import (
    AttackOptionsSaved,
    AttackPicked,
    AttackRemoved,
    CharacterDeleted,
    CharacterOffered,
    CharacterOpened,
    CharacterSaved,
    LinkCopied,
    SheetOpened,
    TargetDescribed,
)
from web.app.screens.base import Context, Elsewhere, Screen
from web.app.storage.records import CHARACTERS
from web.app.views import Events, Handler, Page, view_for


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


def saved(page: Page) -> Events:
    """The form as one character; Save attack also adds (or, by name, replaces) the attack typed below."""
    ident = str(page.model.ui.sheet[1] if page.model.ui.sheet is not None else "")
    c = None if ident.startswith("new:") else find(page.model.characters, ident)
    system = ident[4:] if ident.startswith("new:") else (c.system if c is not None else "generic")
    weapon_keys = view_for(system).weapon_fields
    own, weapon = html.stat_fields_of(system, exclude=weapon_keys), html.stat_fields_of(system, weapon_keys)
    attack = None
    if page.data("action") == "save-attack":
        attack = (page.value("a-name"), html.read_stats(weapon, "a", page.value, page.ticked))
    return CharacterSaved(system, None if ident.startswith("new:") else ident, fresh_id(page.model.characters, page.new_id()),
                          page.value("k-name"), page.value("k-max_hp"), page.value("k-init_mod"),
                          html.read_stats(own, "k", page.value, page.ticked), attack)


def target_described(page: Page) -> Events:
    """What the game master says about the practice target, read whole from the character's screen."""
    c = open_character(page.model)
    if c is None:
        return None
    fields = html.stat_fields_of(c.system, view_for(c.system).target_fields)
    return TargetDescribed(html.read_stats(fields, "t", page.value, page.ticked), page.value("t-hp"), page.value("t-at_least"),
                           page.value("t-name"), page.typing)


def _index(page: Page) -> int:
    return page.number(page.data("index"), -1) or 0


EVENTS: dict[str, Handler] = {
    "new-character": lambda page: SheetOpened("character-edit", "new:" + (page.value("new-character-system") or "generic")),
    "edit-character": lambda page: SheetOpened("character-edit", page.data("id")),
    "open-character": lambda page: CharacterOpened(str(page.data("id"))),
    "character-attack": lambda page: CharacterOpened(str(page.data("id")), page.number(page.data("index")), practice=True),
    "practice-attack": lambda page: CharacterOpened(str(page.data("id")), practice=True),
    "save-character": saved,
    "save-attack": saved,
    "pick-attack": lambda page: AttackPicked(_index(page)),
    "remove-attack": lambda page: AttackRemoved(page.number(page.data("index"), -1) or 0),
    "delete-character": lambda page: CharacterDeleted(str(page.data("id"))),
    "save-attack-options": lambda page: AttackOptionsSaved(),
    "copy-character": lambda page: LinkCopied("character-link", "character-out"),
    "import-character": lambda page: CharacterOffered(page.value("character-code"), from_link=False),
}
CHANGES: dict[str, Handler] = {"practice-target": target_described}
