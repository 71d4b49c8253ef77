""""My characters": a player's characters on the phone, each with named attacks, and the attack
screen where the player describes the target as the game master does and sees the exact odds, then
the roll die by die. Pure functions state -> HTML (every user text escaped) and the reading of the
forms; the attack panel itself is the system's view's (`View.attack_html`), on a practice encounter.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pyengine.characters import (
    MAX_ATTACKS,
    ME_ID,
    TARGET_ID,
    Character,
    NamedAttack,
    character_from_dict,
    character_payload,
    practice_encounter,
)
from pyengine.errors import EngineError
from pyengine.model import StatField
from pyengine.rules import get_system, systems
from web.app.html import esc, field, stat_fields_html
from web.app.model import Model
from web.app.views import View, view_for

__all__ = ["Stats", "characters_html", "character_form_html", "character_sheet_html", "read_stats", "character_link",
           "offer_text", "HELP"]

HELP = (
    "Keep your characters here, on your phone: their stats in your game's own fields and their attacks. "
    "Open a character, pick an attack, type what the game master says about the target (its AC, or "
    "Resistance, Dodge, armour…), and the exact odds show before you roll; the roll shows every die and "
    "goes into the dice history. Share gives the game master a link or a code that adds the character to "
    "the fight, so nobody types a sheet twice."
)


class Stats:
    """A dict of stats read like a combatant's (for the shared stat-field inputs)."""

    def __init__(self, stats: dict[str, Any]) -> None:
        self.stats = stats

    def stat(self, key: str, default: Any = None) -> Any:
        return self.stats.get(key, default)


def stat_fields_of(system: str, keys: tuple[str, ...] | None = None, exclude: tuple[str, ...] = ()) -> tuple[StatField, ...]:
    """The system's stat fields named in `keys` (in that order), else all but those in `exclude`."""
    fields = get_system(system).stat_fields
    if keys is not None:
        order = {k: i for i, k in enumerate(keys)}
        return tuple(sorted((f for f in fields if f.key in order), key=lambda f: order[f.key]))
    return tuple(f for f in fields if f.key not in exclude)


def read_stats(fields: tuple[StatField, ...], prefix: str, value: Callable[[str], str], checked: Callable[[str], bool]) -> dict[str, str | bool]:
    """What the <prefix>-stat-<key> inputs hold: flags as booleans, text as typed, numbers as typed
    (checked by pyengine.characters.validated_stats; an empty number is left out)."""
    out: dict[str, str | bool] = {}
    for f in fields:
        node = f"{prefix}-stat-{f.key}"
        if f.kind == "flag":
            out[f.key] = checked(node)
        elif f.kind == "text":
            out[f.key] = value(node).strip()
        else:
            text = value(node).strip()
            if text:
                out[f.key] = text
    return out


def character_link(base: str, c: Character) -> str:
    return f"{base}#character={character_payload(c)}"


def characters_html(characters: list[Character], note: str = "") -> str:
    """The list: each character with its attacks one tap away."""
    rows = []
    for c in characters:
        attacks = "".join(
            f'<button type="button" data-action="character-attack" data-id="{esc(c.id)}" data-index="{j}" data-testid="character-attack">'
            f'{esc(a.name)}</button>' for j, a in enumerate(c.attacks)
        )
        rows.append(
            f'<li class="char" data-testid="character-item"><div class="row"><b class="grow">{esc(c.name)}</b>'
            f'<small class="muted">{esc(get_system(c.system).label)}</small></div>'
            f'<div class="quick">{attacks}'
            f'<button type="button" data-action="open-character" data-id="{esc(c.id)}" data-testid="character-open">'
            f'{"Attack…" if not c.attacks else "Open"}</button>'
            f'<button type="button" data-action="edit-character" data-id="{esc(c.id)}" data-testid="character-edit">Edit</button></div></li>'
        )
    listing = f'<ul class="chars" data-testid="character-list">{"".join(rows)}</ul>' if rows else \
        '<p class="muted" data-testid="no-characters">No characters yet.</p>'
    options = "".join(f'<option value="{esc(s.name)}">{esc(s.label)}</option>' for s in systems())
    return (
        '<h3>My characters</h3>'
        + (f'<p class="muted">{esc(note)}</p>' if note else "")
        + listing
        + '<div class="row"><label class="field grow">Game system<select id="new-character-system" data-testid="new-character-system">'
        f'{options}</select></label>'
        '<button type="button" class="primary" data-action="new-character" data-testid="new-character">New character</button></div>'
        '<div class="grid2"><label class="field">Paste a character\'s code or link<input id="character-code" '
        'data-testid="character-code" autocomplete="off" autocapitalize="off" spellcheck="false"></label>'
        '<button type="button" data-action="import-character" data-testid="import-character">Add from code</button></div>'
        '<p class="err" id="character-error" data-testid="character-error" role="alert"></p>'
        f'<details class="help"><summary>How this works</summary><p data-testid="characters-help">{esc(HELP)}</p></details>'
    )


def character_form_html(system: str, c: Character | None, editing_attack: NamedAttack | None = None) -> str:
    """New or edit: name, HP, the system's own fields, and the named attacks (each with its weapon)."""
    view = view_for(system)
    own = stat_fields_of(system, exclude=view.weapon_fields)
    weapon = stat_fields_of(system, view.weapon_fields)
    stats = Stats(c.stats if c else {})
    attacks = "".join(
        f'<li><button type="button" data-action="pick-attack" data-index="{i}" data-testid="character-attack-item">{esc(a.name)}</button>'
        f'<button type="button" class="x" data-action="remove-attack" data-index="{i}" aria-label="Remove {esc(a.name)}">×</button></li>'
        for i, a in enumerate(c.attacks if c else ())
    )
    shown = Stats({**(c.stats if c else {}), **(editing_attack.stats if editing_attack else {})})
    attack_form = (
        '<h3>Attacks</h3>'
        + (f'<ul class="attack-list" data-testid="character-attacks">{attacks}</ul>' if attacks else '<p class="muted">No attacks yet.</p>')
        + '<p class="muted">An attack: a name and its weapon (what differs from the character\'s own). '
        'Tap one above to change it; the same name replaces it.</p>'
        + field("Attack name", "name", editing_attack.name if editing_attack else "", extra=' maxlength="60" autocomplete="off"', prefix="a")
        + stat_fields_html(weapon, shown, prefix="a")
        + ('<button type="button" data-action="save-attack" data-testid="save-attack">Save attack</button>'
           if (c is None or len(c.attacks) < MAX_ATTACKS or editing_attack) else f'<p class="muted">At most {MAX_ATTACKS} attacks.</p>')
    )
    return (
        f'<h3>{"Edit " + esc(c.name) if c else "New character"}</h3>'
        f'<p class="muted">{esc(get_system(system).label)}</p>'
        '<div class="grid2">'
        + field("Name", "name", c.name if c else "", extra=' maxlength="60" autocomplete="off" required', prefix="k")
        + field("Max HP", "max_hp", "" if c is None or c.max_hp is None else c.max_hp, "number", ' inputmode="numeric" min="1"', prefix="k")
        + field("Initiative modifier", "init_mod", c.init_mod if c else 0, "number", ' min="-100" max="100"', prefix="k")
        + '</div>'
        + stat_fields_html(own, stats, prefix="k")
        + attack_form
        + '<p class="err" id="character-error" data-testid="character-error" role="alert"></p>'
        '<div class="grid2"><button type="button" class="primary" data-action="save-character" data-testid="save-character">Save character</button>'
        + (f'<button type="button" class="danger" data-action="delete-character" data-id="{esc(c.id)}" data-testid="delete-character">Delete</button>'
           if c else "")
        + '<button type="button" data-action="my-characters" data-testid="back-characters">Back</button></div>'
    )


def _practice_panel(c: Character, chosen: NamedAttack | None, view: View, practice: dict[str, Any], attack: dict[str, Any]) -> str:
    """The system's attack panel on the practice encounter (marked a practice: a defence not typed yet
    is said as what to type, views.attack_error_html)."""
    target_stats = practice.get("target", {})
    try:
        enc = practice_encounter(c, chosen, target_stats, practice.get("hp"), practice.get("name") or "Target")
        panel = view.attack_html(enc, enc.get(TARGET_ID), {**attack, "attacker": ME_ID, "at_least": practice.get("at_least"),
                                                           "practice": True})
    except EngineError as error:
        panel = f'<p class="err" data-testid="attack-error">{esc(error)}</p>'
    return panel or f'<p class="muted">{esc(get_system(c.system).label)} has no attack roll here; use the dice roller.</p>'


def character_sheet_html(c: Character, practice: dict[str, Any], attack: dict[str, Any], link: str) -> str:
    """A character's card: its attacks (each a button that practises it), its link and code for the
    game master. Once a practice is asked for (`practice["open"]`): the target as the game master
    describes it, then the system's own attack panel (exact odds, Roll, every die) on the practice
    encounter; until the target's defences are typed, a hint says what to type (no error)."""
    view = view_for(c.system)
    index = practice.get("attack")
    chosen = c.attack(index) if isinstance(index, int) else None
    practising = bool(practice.get("open"))
    pressed = index if practising else None  # (the attack being practised)
    buttons = "".join(
        f'<button type="button" class="{"primary" if j == pressed else ""}" data-action="character-attack" data-id="{esc(c.id)}" '
        f'data-index="{j}" data-testid="character-attack" aria-pressed="{"true" if j == pressed else "false"}">{esc(a.name)}</button>'
        for j, a in enumerate(c.attacks)
    )
    target_stats = practice.get("target", {})
    target = (
        '<h3>The target</h3><p class="muted">What the game master tells you about it.</p>'
        '<div class="grid2">'
        + field("Name", "name", practice.get("name", "Target"), extra=' maxlength="60" autocomplete="off" data-action-change="practice-target"',
                prefix="t")
        + field("HP (if known)", "hp", practice.get("hp") or "", "number", ' inputmode="numeric" min="1" data-action-change="practice-target"',
                prefix="t")
        + field("Chance of at least … damage", "at_least", "" if practice.get("at_least") is None else practice["at_least"], "number",
                ' inputmode="numeric" min="0" data-action-change="practice-target"', prefix="t")
        + '</div>'
        + stat_fields_html(stat_fields_of(c.system, view.target_fields), Stats(target_stats), prefix="t",
                           extra=' data-action-change="practice-target"')
    )
    panel = _practice_panel(c, chosen, view, practice, attack) if practising else ""  # (no odds worked out for the card)
    save_options = (f'<button type="button" data-action="save-attack-options" data-testid="save-attack-options">'
                    f'Keep these options in {esc(chosen.name)}</button>' if chosen is not None else "")
    return (
        f'<h3 data-testid="character-name">{esc(c.name)}</h3><p class="muted">{esc(get_system(c.system).label)}</p>'
        + ((f'<h3>Practice an attack</h3><div class="quick" data-testid="character-attacks">{buttons}</div>' if buttons else
            '<p class="muted">No named attacks: Edit adds them. The character\'s own weapon is used.</p>')
           + ('' if practising or buttons else
              f'<button type="button" data-action="practice-attack" data-id="{esc(c.id)}" data-testid="practice-attack">'
              'Practice an attack</button>')
           + ('' if practising or not buttons else '<p class="muted">Tap an attack to practise it against a target the game master describes.</p>'))
        + (target + f'<div class="practice" data-testid="practice">{panel}</div>' + save_options if practising else "")
        + '<h3>Give it to the game master</h3>'
        '<p class="muted">The game master scans this code with the phone\'s camera, or opens the link (or pastes it into '
        '"My characters" → Add from code on the tracker\'s phone): the character joins the fight.</p>'
        '<div id="character-qr" class="qr" data-testid="character-qr" hidden></div>'
        '<p id="character-qr-note" class="muted" data-testid="character-qr-note" aria-live="polite"></p>'
        f'<div class="row share-row"><input id="character-link" readonly value="{esc(link)}" data-testid="character-link" '
        'aria-label="Character link"><button type="button" data-action="copy-character" data-testid="copy-character">Copy</button></div>'
        '<p id="character-out" class="muted" aria-live="polite"></p>'
        f'<div class="grid2"><button type="button" data-action="edit-character" data-id="{esc(c.id)}" data-testid="character-edit">Edit</button>'
        '<button type="button" data-action="my-characters" data-testid="back-characters">Back</button></div>'
    )


def offer_text(c: Character, fight: str) -> str:
    """The notice for a #character= link: add to the open fight (of the same system), or keep it."""
    what = f"{c.name} ({get_system(c.system).label}, {len(c.attacks)} attack{'s' * (len(c.attacks) != 1)}) is in this link."
    return f"{what} Add to {fight}?" if fight else f"{what} The open fight is of another game system: save it to My characters?"


# -- My characters as stored (the update's and the screens' alike) ------------------------------

def find(docs: Sequence[Mapping[str, object]], ident: str | None) -> Character | None:
    """The character stored under `ident` (None: none, or one this version cannot read)."""
    item = next((c for c in docs if c.get("id") == ident), None)
    try:
        return character_from_dict(item) if item is not None else None
    except EngineError:
        return None


def readable(docs: Sequence[Mapping[str, object]]) -> list[Character]:
    """The characters this version can read (a newer tab's may not be; it stays stored)."""
    out = []
    for item in docs:
        try:
            out.append(character_from_dict(item))
        except EngineError:
            continue
    return out


def open_character(model: Model) -> Character | None:
    """The character whose screen (or form) is open, if it is still stored."""
    return find(model.characters, model.ui.sheet[1] if model.ui.sheet is not None else None)


def fresh_id(characters: Sequence[Mapping[str, object]], new_id: str) -> str:
    """An id for a new character, not taken by another: "k<n>-<the end of a fresh id>"."""
    ids = {c.get("id") for c in characters}
    n = len(characters) + 1
    while f"k{n}-{new_id[-6:]}" in ids:
        n += 1
    return f"k{n}-{new_id[-6:]}"


def edited(model: Model) -> tuple[str, Character | None]:
    """The system and the character of the open form (None: a new one); EngineError when the
    character is gone."""
    ident = str(model.ui.sheet[1] if model.ui.sheet is not None else "")
    if ident.startswith("new:"):
        return ident[4:], None
    c = find(model.characters, ident)
    if c is None:
        raise EngineError("That character is gone (deleted in another tab?).")
    return c.system, c
