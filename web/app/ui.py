"""The page's UI state as one value, changed only by the typed functions here (each takes the state
and returns the next; the old value never changes), which web/app/update calls.

>>> ui = sheet_opened(Ui(), "combatant", "c1")
>>> ui.sheet, sheet_closed(ui).sheet
(('combatant', 'c1'), None)


The fight itself is the encounter's `Timeline` (the engine's); this is what the screen adds: which
sheet is open, the attack panel's choices and its rolled but unapplied attack, the last target, and
the small memories of the everyday loop (the Next-turn guard, saved rolls that Undo can bring back,
a shared fight waiting for the user's answer). A new feature adds a field and a message here, not
another attribute on the App.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from pyengine.errors import RuleError
from pyengine.save_effects import SaveEffect

if TYPE_CHECKING:
    from pyengine.characters import Character
    from pyengine.tracker import Timeline

__all__ = ["Ui", "FRESH_ATTACK", "SAVE_BLANK", "AREA_BLANK", "area_args", "POWER_BLANK", "power_args", "save_effect", "sheet_opened", "target_picked", "section_picked", "tool_kind_picked", "sheet_closed", "attack_configured", "attack_rolled", "attack_applied", "next_turn_tapped", "dice_typed", "dice_rolled", "character_opened", "target_described", "view_opened", "character_offered", "character_taken", "share_offered", "share_taken", "selecting_toggled", "selection_toggled", "selection_done", "combatant_added"]

# A save typed by hand starts so: a trap or a spell the game master describes.
SAVE_BLANK: dict[str, Any] = {"name": "Save", "ability": "dex", "dc": "15", "success": "half", "damage": "", "condition": "",
                         "rounds": "0", "repeat": False, "magical": False}


def save_effect(config: dict[str, Any]) -> SaveEffect:
    """The panel's effect as a value, checked (RuleError with a plain message)."""
    effect = dict(config.get("effect") or SAVE_BLANK)
    for key in ("dc", "rounds"):
        text = str(effect.get(key, "")).strip()
        try:
            effect[key] = int(text) if text else (0 if key == "rounds" else None)
        except ValueError:
            raise RuleError("The DC is a whole number from 1 to 40." if key == "dc" else "The duration is unreadable.") from None
    effect["repeat"], effect["magical"] = effect.get("repeat") is True, effect.get("magical") is True
    return SaveEffect.read({k: v for k, v in effect.items() if v not in (None, "")} | {"dc": effect["dc"]}, "The save")


# Enchanted Realms' area effect starts so (pyengine/systems/realms/area.py): a body preservation save.
AREA_BLANK: dict[str, Any] = {"name": "Area effect", "kind": "body", "dc": "12", "modifier": "0", "damage": "", "success": "none"}


def area_args(config: dict[str, Any], names: set[str]) -> dict[str, Any]:
    """The panel's Enchanted Realms area effect as the `er_area` request's fields, checked (RuleError)."""
    effect = {**AREA_BLANK, **(config.get("effect") or {})}
    numbers = {}
    for key, low, high in (("dc", -50, 100), ("modifier", -50, 50)):
        text = str(effect.get(key) or "0").strip()
        try:
            numbers[key] = int(text)
        except ValueError:
            raise RuleError(f"The {'DC' if key == 'dc' else 'modifier'} is a whole number from {low} to {high}.") from None
    cover, adv = config.get("cover") or {}, config.get("adv") or {}
    targets = [{"id": i, "cover": cover.get(i) or "none", "adv": adv.get(i) == "adv", "dis": adv.get(i) == "dis"}
               for i in config.get("targets") or () if i in names]
    if not targets:
        raise RuleError("Tick the targets of the area effect.")
    return {"name": str(effect.get("name") or "Area effect")[:60], "kind": str(effect.get("kind") or "body"), **numbers,
            "damage": str(effect.get("damage") or "").strip()[:100], "success": str(effect.get("success") or "none"), "targets": targets}


# Realm of Strife's power on several targets starts so (pyengine/systems/strife/power.py).
POWER_BLANK: dict[str, Any] = {"attacker": "", "modifier": "0", "bonus": "0", "missile": False}


def power_args(config: dict[str, Any], names: set[str]) -> dict[str, Any]:
    """The panel's power as the `ros_power` request's fields, checked (RuleError)."""
    effect = {**POWER_BLANK, **(config.get("effect") or {})}
    numbers = {}
    for key in ("modifier", "bonus"):
        try:
            numbers[key] = int(str(effect.get(key) or "0").strip())
        except ValueError:
            raise RuleError(f"The {key} is a whole number.") from None
    targets = [i for i in config.get("targets") or () if i in names and i != effect.get("attacker")]
    if not targets:
        raise RuleError("Tick the power's targets.")
    return {"attacker": str(effect.get("attacker") or ""), "targets": targets, **numbers, "missile": effect.get("missile") is True}


FRESH_ATTACK: dict[str, Any] = {"attacker": None, "pending": None}
FRESH_PRACTICE: dict[str, Any] = {"attack": None, "target": {}, "hp": None, "name": "Target", "at_least": None, "open": False}


@dataclass(frozen=True)
class Ui:
    sheet: tuple[str, str | None] | None = None   # ("combatant", id), ("add", None), ("edit", id), ("menu", None)
    attack: dict[str, Any] = field(default_factory=lambda: dict(FRESH_ATTACK))  # the panel's choices; "pending": rolled, not applied
    last_target: str | None = None                 # whom the last applied attack hit (the next Attack… opens it)
    building: bool = False                         # the dice box holds an expression the quick dice add to
    last_next_turn: float = -1.0                   # when Next turn last acted (monotonic seconds)
    pending_share: Timeline | None = None          # the fight of a shared link, until the user opens it
    selected: tuple[str, ...] | None = None        # rows chosen to act on together (None: not selecting)
    last_added: tuple[str, bool] = ("opponents", False)  # side and PC of the last combatant added: the next starts so
    section: str | None = None                     # the open part of a long sheet (None: its first, the attack)
    practice: dict[str, Any] = field(default_factory=lambda: dict(FRESH_PRACTICE))  # a character's attack: which, at what target
    pending_character: Character | None = None     # the character of a #character= link, until the user answers
    table_view: Any = None                         # a fight's read-only view from a #view= link (pyengine.handoff)
    tool_kind: str | None = None                   # the sheet's turn-tool form, open for this kind (None: closed)
    save: dict[str, Any] = field(default_factory=dict)  # the save panel: source, effect, targets, typed dice; "pending": rolled

    @property
    def practising(self) -> bool:
        """A character's attack screen is open: attacks there are practice, never the fight's."""
        return self.sheet is not None and self.sheet[0] == "character"


def sheet_opened(ui: Ui, kind: str, ident: str | None = None) -> Ui:
    return replace(ui, sheet=(kind, ident), attack=dict(FRESH_ATTACK), section=None, tool_kind=None)


def target_picked(ui: Ui, ident: str) -> Ui:
    """The attack panel moves to another target: its attacker and choices stay, a rolled attack does not."""
    kind = ui.sheet[0] if ui.sheet else "combatant"
    return replace(ui, sheet=(kind, ident), attack={**ui.attack, "pending": None})


def section_picked(ui: Ui, key: str) -> Ui:
    return replace(ui, section=key)


def tool_kind_picked(ui: Ui, kind: str | None) -> Ui:
    return replace(ui, tool_kind=kind)


def sheet_closed(ui: Ui) -> Ui:
    return replace(ui, sheet=None)


def attack_configured(ui: Ui, config: dict[str, Any]) -> Ui:
    return replace(ui, attack={**config, "pending": None})


def attack_rolled(ui: Ui, pending: dict[str, Any]) -> Ui:
    return replace(ui, attack={**ui.attack, "pending": pending})


def attack_applied(ui: Ui) -> Ui:
    pending = ui.attack.get("pending") or {}
    return replace(ui, attack={**ui.attack, "pending": None}, last_target=pending.get("target", ui.last_target))


def next_turn_tapped(ui: Ui, now: float) -> Ui:
    return replace(ui, last_next_turn=now)


def dice_typed(ui: Ui) -> Ui:
    return replace(ui, building=True)


def dice_rolled(ui: Ui) -> Ui:
    return replace(ui, building=False)


def character_opened(ui: Ui, ident: str, attack: int | None, config: dict[str, Any], practicing: bool = False) -> Ui:
    """A character's card, its practice attack open when asked (`practicing`): the chosen attack's
    options in the panel; the target described before stays (the game master's monster does not
    change with the attack)."""
    return replace(ui, sheet=("character", ident), attack={**FRESH_ATTACK, **config}, section=None,
                   practice={**ui.practice, "attack": attack, "open": practicing})


def target_described(ui: Ui, target: dict[str, Any], hp: int | None, name: str, at_least: int | None = None) -> Ui:
    return replace(ui, practice={**ui.practice, "target": target, "hp": hp, "name": name, "at_least": at_least},
                   attack={**ui.attack, "pending": None})


def view_opened(ui: Ui, view: dict[str, Any]) -> Ui:
    return replace(ui, sheet=("view", None), table_view=view, attack=dict(FRESH_ATTACK), section=None)


def character_offered(ui: Ui, character: Character) -> Ui:
    return replace(ui, pending_character=character)


def character_taken(ui: Ui) -> Ui:
    return replace(ui, pending_character=None)


def share_offered(ui: Ui, timeline: Timeline) -> Ui:
    return replace(ui, pending_share=timeline)


def share_taken(ui: Ui) -> Ui:
    return replace(ui, pending_share=None)


def selecting_toggled(ui: Ui) -> Ui:
    return replace(ui, selected=None if ui.selected is not None else ())


def selection_toggled(ui: Ui, ident: str) -> Ui:
    chosen = ui.selected or ()
    return replace(ui, selected=tuple(i for i in chosen if i != ident) if ident in chosen else chosen + (ident,))


def selection_done(ui: Ui) -> Ui:
    return replace(ui, selected=None)


def combatant_added(ui: Ui, side: str, pc: bool) -> Ui:
    return replace(ui, last_added=(side, pc))
