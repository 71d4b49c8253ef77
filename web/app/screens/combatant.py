"""A combatant's sheet: hit points, conditions, the system's sections (the attack panel first)."""

from __future__ import annotations

from typing import Any

from pyengine.core_args import Delay, GoneCondition, NewCondition, Target, ToolSet, ToolTarget, ToolUsed
from web.app import render
from web.app.characters import open_character
from web.app.library import condition_rules_html
from web.app.messages import (
    Act,
    AttackApplied,
    AttackConfigured,
    AttackRolled,
    CombatantRemembered,
    ConditionRulesAsked,
    HitPointsTyped,
    SectionPicked,
    SheetOpened,
    TargetPicked,
    ToolAdded,
    ToolKindPicked,
)
from web.app.screens.base import Context, Elsewhere, Screen
from web.app.views import Events, Handler, Page, datum, view_for


def draw(ctx: Context, ident: str | None) -> str | Elsewhere:
    t = ctx.model.timeline
    enc = t.present
    if ident is None or ident not in enc.names():
        return Elsewhere()
    ui = ctx.model.ui
    rules = condition_rules_html(ctx.model) if view_for(enc.system).creature_library else ""
    return render.combatant_sheet_html(enc, enc.get(ident), ui.attack, t.log()[-30:], ui.section, ui.tool_kind, rules)


SCREENS = (Screen("combatant", draw, "sheet-error"),)


def panel_system(page: Page) -> str:
    """The system of the attack panel on screen: the character's on its attack screen, else the fight's."""
    c = open_character(page.model) if page.model.ui.practising else None
    return c.system if c is not None else page.model.timeline.present.system


def attack_configured(page: Page) -> Events:
    """The attack panel's inputs, read whole (a box's tick, else its text; empty: None)."""
    config: dict[str, Any] = {key: ticked if kind == "checkbox" else (text or None)
                              for key, text, ticked, kind in page.fields("#sheet-body [data-attack-key]", "data-attack-key")}
    return AttackConfigured(view_for(panel_system(page)).read_attack_config(page, config), page.typing)


def _hit_points(page: Page) -> Events:
    kind = {"damage": "damage", "heal": "heal", "temp": "temp_hp"}[str(page.data("action"))]
    return HitPointsTyped(kind, str(page.data("id")), page.value("hp-amount"), page.rng)


def _condition(page: Page) -> Events:
    return Act("add_condition", NewCondition(
        datum(page, "id"), page.value("cond-name"), page.value("cond-until", "never"), page.number(page.value("cond-rounds"), 1),
        page.value("cond-anchor") or None, page.model.timeline.present.active_id), page.rng)


def _tool(kind: str) -> Handler:
    """A turn tool's button (on the sheet or under "Now: …"): the action on that combatant's tool."""
    return lambda page: Act(kind, ToolTarget(datum(page, "id"), datum(page, "tool")), page.rng)


def _tool_used(page: Page) -> Events:
    """An ability used, or `count` legendary actions spent (a named one: what it costs)."""
    count = page.number(page.data("count"), 1)
    return Act("use_tool", ToolUsed(datum(page, "id"), datum(page, "tool"), 1 if count is None else count, str(page.data("name") or "")), page.rng)


def _tool_set(page: Page) -> Events:
    """What a tool has left set by hand (uses back after a rest, an ability ready), regeneration paused or not."""
    paused = page.data("paused")
    return Act("set_tool", ToolSet(datum(page, "id"), datum(page, "tool"), page.number(page.data("left")), None if paused is None else paused == "1"),
               page.rng)


def _tool_added(page: Page) -> Events:
    fields = {key: page.value(f"tool-{key}") for key in ("kind", "name", "amount", "low", "when", "most")}
    return ToolAdded(str(page.data("id")), {k: v for k, v in fields.items() if v}, page.rng, page.ticked("tool-group"))


EVENTS: dict[str, Handler] = {
    "act-now": lambda page: Act("act_now", Target(datum(page, "id")), page.rng),
    "attack-roll": lambda page: AttackRolled(datum(page, "id"), page.value("atk-attacker") or None, page.rng, page.now_ms()),
    "attack-apply": lambda page: AttackApplied(),
    "remove": lambda page: Act("remove_combatant", Target(datum(page, "id")), page.rng, close_sheet=True),
    "damage": _hit_points, "heal": _hit_points, "temp": _hit_points,
    "add-condition": _condition,
    "condition-rules": lambda page: ConditionRulesAsked(),
    "remove-condition": lambda page: Act("remove_condition", GoneCondition(datum(page, "id"), datum(page, "condition")), page.rng),
    "delay": lambda page: Act("delay", Delay(datum(page, "id"), page.value("delay-after")), page.rng, close_sheet=True),
    "edit": lambda page: SheetOpened("edit", page.data("id")),
    "pick-section": lambda page: SectionPicked(str(page.data("section"))),
    "tool-use": _tool_used,
    "tool-recharge": _tool("recharge_tool"),
    "tool-acts": _tool("tool_acts"),
    "tool-set": _tool_set,
    "tool-remove": _tool("remove_tool"),
    "tool-add": _tool_added,
    "tool-remember": lambda page: CombatantRemembered(str(page.data("id"))),
}
CHANGES: dict[str, Handler] = {
    "tool-kind": lambda page: ToolKindPicked(page.chosen),
    "attack-target": lambda page: TargetPicked(page.chosen),
    "attack-config": attack_configured,
}
