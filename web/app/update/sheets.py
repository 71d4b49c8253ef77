"""The sheets and the page's small screens: open and close, the attack panel's target and settings, the
theme, export and share, the add form's side and name, the roller's odds target."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import assert_never

from pyengine.rules import system_of
from web.app import ui as state
from web.app.effects import CopyLink, Download, Reload, RenderSheet, SetField, SetTheme, ShowShareLink, ShowSheet, StopOdds
from web.app.messages import (
    AttackConfigured,
    AttackLastTapped,
    EarlyViewLeft,
    Exported,
    LinkCopied,
    NameTyped,
    OddsTargetTyped,
    ReloadTapped,
    ShareLinkAsked,
    SheetClosed,
    SheetOpened,
    SidePicked,
    TargetPicked,
    ThemeToggled,
)
from web.app.model import Model
from web.app.update.common import Result, closed, opened
from web.app.update.timers import odds_later, redrawn

__all__ = ["Handled", "handle"]


def _sheet_opened(model: Model, m: SheetOpened) -> Result:
    return opened(model, m.kind, m.ident)


def _sheet_closed(model: Model, m: SheetClosed) -> Result:
    if model.live.role == "display" and model.ui.sheet is not None:
        return model, (ShowSheet(False),)  # the table display's one screen (Escape, Back): it stays
    return closed(model)


def _attack_last(model: Model, m: AttackLastTapped) -> Result:
    """The attack panel with its defaults: the last target still standing, else the first foe of
    whoever's turn it is."""
    enc = model.timeline.present
    me = enc.get(enc.active_id) if enc.active_id else None
    system = system_of(enc)
    standing = [c.id for c in enc.combatants if not system.is_down(c) and system.is_creature(c)]  # a lair is never a target
    last = model.ui.last_target
    target = last if (last in standing and last != enc.active_id and (me is None or enc.get(last).side != me.side)) else None
    if target is None:  # never one of its own side (a group's other member) unless chosen
        target = next((cid for cid in standing if enc.get(cid).side != (me.side if me else "")), None)
    return opened(model, "combatant", target) if target is not None else (model, ())


def _target_picked(model: Model, m: TargetPicked) -> Result:
    return replace(model, ui=state.target_picked(model.ui, ident=m.ident)), (RenderSheet(),)


def _attack_configured(model: Model, m: AttackConfigured) -> Result:
    """The attack panel's inputs, read whole (a rolled attack not applied is dropped)."""
    return redrawn(replace(model, ui=state.attack_configured(model.ui, config=dict(m.config))), m.typing)


def _theme(model: Model, m: ThemeToggled) -> Result:
    return (model, (SetTheme(m.theme), RenderSheet())) if m.theme in ("system", "light", "dark") else (model, ())


def _exported(model: Model, m: Exported) -> Result:
    return model, (Download(m.what),)


def _share_link(model: Model, m: ShareLinkAsked) -> Result:
    return model, (ShowShareLink(m.kind or "view"),)


def _link_copied(model: Model, m: LinkCopied) -> Result:
    return model, (CopyLink(m.field, m.line),)


def _reload(model: Model, m: ReloadTapped) -> Result:
    return model, (Reload(),)


def _side_picked(model: Model, m: SidePicked) -> Result:
    return model, (SetField("f-pc", "1" if m.side == "party" else "0"),)


def side_for_name(model: Model, name: str) -> tuple[str, bool] | None:
    """(side, PC) the add form should show for a typed name: a saved party member's own; a saved
    opponent's, or another copy of an opponent already in the fight ("Goblin", "Goblin 2"): the
    opponents', not a player character. None: nothing known about that name."""
    key = " ".join(name.split()).casefold()
    if not key:
        return None
    base = re.sub(r"\s+\d+$", "", key)
    for p in model.roster:
        if str(p.get("name", "")).casefold() == key:
            return str(p.get("side", "party")), bool(p.get("pc", True))
    if any(str(p.get("name", "")).casefold() in (key, base) for p in model.templates):
        return "opponents", False
    for c in model.timeline.present.combatants:
        if c.side == "opponents" and re.sub(r"\s+\d+$", "", c.name.casefold()) in (key, base):
            return "opponents", False
    return None


def _name_typed(model: Model, m: NameTyped) -> Result:
    found = side_for_name(model, m.name)
    if found is None:
        return model, ()
    side, pc = found
    return model, (SetField("f-side", side), SetField("f-pc", "1" if pc else "0"))


def _odds_target(model: Model, m: OddsTargetTyped) -> Result:
    return odds_later(model), (StopOdds(),)


Handled = SheetOpened | SheetClosed | EarlyViewLeft | AttackLastTapped | TargetPicked | AttackConfigured | ThemeToggled | Exported | ShareLinkAsked | LinkCopied | ReloadTapped | SidePicked | NameTyped | OddsTargetTyped


def handle(model: Model, message: Handled) -> Result:  # noqa: C901 - one case a message
    """The model after one of this module's messages, and its effects: a `match` that mypy checks
    is whole (`assert_never`): a message in `Handled` with no case is a type error."""
    match message:
        case EarlyViewLeft():
            return model, (RenderSheet(),)
        case SheetOpened():
            return _sheet_opened(model, message)
        case SheetClosed():
            return _sheet_closed(model, message)
        case AttackLastTapped():
            return _attack_last(model, message)
        case TargetPicked():
            return _target_picked(model, message)
        case AttackConfigured():
            return _attack_configured(model, message)
        case ThemeToggled():
            return _theme(model, message)
        case Exported():
            return _exported(model, message)
        case ShareLinkAsked():
            return _share_link(model, message)
        case LinkCopied():
            return _link_copied(model, message)
        case ReloadTapped():
            return _reload(model, message)
        case SidePicked():
            return _side_picked(model, message)
        case NameTyped():
            return _name_typed(model, message)
        case OddsTargetTyped():
            return _odds_target(model, message)
        case _:
            assert_never(message)
