"""HTML helpers shared by every screen: escaping, form fields, the attack panels' inputs and the
odds chart. Imports nothing of ours: values come in duck-typed (a stat field, a distribution)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from decimal import ROUND_HALF_UP, Decimal
from html import escape
from typing import Any, Protocol

__all__ = [
    "esc", "roll_text", "clock", "pct", "field", "at_least", "stat_fields_html", "attack_select", "attack_check", "attack_input", "odds_html", "MAX_BARS", "view_body_html", "view_round",
]


def esc(text: object) -> str:
    return escape(str(text), quote=True)


SHOWN_ROLL_TEXT = 1_200   # characters of a roll's text drawn (a 1,000-die roll's is 50,000: 600 KB of HTML)


def roll_text(text: object, limit: int = SHOWN_ROLL_TEXT) -> str:
    """A roll as the engine writes it, escaped, its dropped and rerolled dice (~~6~~) struck through;
    past `limit` characters cut (at a die's end) and said, so that no roll draws for long."""
    whole = str(text)
    cut = ""
    if len(whole) > limit:
        end = max(whole.rfind(",", 0, limit), whole.rfind(")", 0, limit), limit // 2)
        if whole.count("~~", 0, end) % 2:  # never inside a struck-through die
            end = whole.rfind("~~", 0, end)
        cut = f" … ({len(whole):,} characters in all)"
        whole = whole[:end]
    return re.sub(r"~~(.+?)~~", r'<s class="dropped">\1</s>', esc(whole)) + esc(cut)


def clock(seconds: int) -> str:
    minutes, secs = divmod(seconds, 60)
    return f"{minutes}:{secs:02d}"


def round_label(started: bool, round_number: int, seconds: int) -> str:
    """"Round 3 · 0:18 in game" (the round, and the time the fight has taken in the game: 6 seconds a
    round in d20, not a stopwatch, so it says so; issue 50, item 5), or "Not started".

    >>> round_label(True, 1, 0), round_label(True, 2, 6), round_label(False, 1, 0)
    ('Round 1 · 0:00 in game', 'Round 2 · 0:06 in game', 'Not started')
    """
    if not started:
        return "Not started"
    return f"Round {round_number} · {clock(seconds)} in game"


def percent(p: float, places: int = 1) -> str:
    """A probability as percent digits, the one rounding rule of every percentage the app shows: half
    away from zero on the decimal value (1 − 0.95² = 9.75 % → "9.8", 79.75 % → "79.8"; the float's
    own formatting gave "9.7" for one and "79.8" for the other)."""
    value = Decimal(format(p * 100, ".10f")).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    return f"{value:.{places}f}"


def pct(p: float, places: int = 1) -> str:
    return f"{percent(p, places)}%"


# A number field's keypad: inputmode="numeric" is the iPhone's digits-only pad, with no minus key; a
# field that may be negative keeps type="number" alone (digits and signs, on iPhone and Android).
UNSIGNED = ' inputmode="numeric"'
SIGNED = ""


def field(label: str, name: str, value: object = "", kind: str = "text", extra: str = "", prefix: str = "f") -> str:
    """A labelled input of a form: id <prefix>-<name> (f-: the add / edit form), test id field-<name>
    (or <prefix>-<name> for another form)."""
    testid = f"field-{name}" if prefix == "f" else f"{prefix}-{name}"
    return (
        f'<label class="field">{esc(label)}<input id="{prefix}-{name}" name="{name}" type="{kind}" '
        f'value="{esc(value)}" data-testid="{testid}"{extra}></label>'
    )


class Stat(Protocol):  # a StatField, read-only
    @property
    def key(self) -> str: ...
    @property
    def label(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def default(self) -> Any: ...
    @property
    def low(self) -> int: ...
    @property
    def high(self) -> int: ...
    @property
    def placeholder(self) -> str: ...


class HasStats(Protocol):
    def stat(self, key: str, default: Any = None) -> Any: ...


def stat_fields_html(fields: Iterable[Stat], c: HasStats | None, note: str = "", prefix: str = "f", extra: str = "") -> str:
    """A system's own stats on the add / edit sheet: numbers and text in a grid, flags as
    checkboxes; `c` is the combatant being edited (None when adding). Inputs are <prefix>-stat-<key>;
    `extra` goes into each input (a change handler)."""
    boxes, checks = [], []
    testid = "field" if prefix == "f" else prefix
    for f in fields:
        if f.kind == "flag":
            checks.append(f'<label class="check"><input type="checkbox" id="{prefix}-stat-{f.key}" data-testid="{testid}-stat-{f.key}"'
                          f'{" checked" if c is not None and c.stat(f.key) else ""}{extra}> {esc(f.label)}</label>')
        elif f.kind == "text":
            value = (c.stat(f.key, f.default) or "") if c else f.default
            hint = f' placeholder="{esc(f.placeholder)}"' if f.placeholder else ""
            boxes.append(field(f.label, f"stat-{f.key}", value, "text", f' maxlength="100" autocomplete="off"{hint}{extra}', prefix))
        else:
            value = c.stat(f.key, f.default) if c else f.default
            boxes.append(field(f.label, f"stat-{f.key}", "" if value is None else value, "number",
                               f'{SIGNED if f.low < 0 else UNSIGNED} min="{f.low}" max="{f.high}"{extra}', prefix))
    if not boxes and not checks:
        return ""
    return (f'<div class="grid2" data-testid="system-fields">{"".join(boxes)}</div><div class="checks">{"".join(checks)}</div>'
            + (f'<p class="muted">{esc(note)}</p>' if note else ""))


def _attack_id(key: str, testid: str | None = None) -> str:
    testid = testid or f'attack-{key.replace("_", "-")}'
    return f'id="atk-{key}" data-attack-key="{key}" data-action-change="attack-config" data-testid="{testid}"'


def attack_select(key: str, value: object, options: dict[str, str], testid: str | None = None) -> str:
    """A choice of an attack panel: its value joins the panel's configuration as it changes."""
    opts = "".join(f'<option value="{esc(k)}"{" selected" if k == value else ""}>{esc(v)}</option>' for k, v in options.items())
    return f"<select {_attack_id(key, testid)}>{opts}</select>"


def attack_check(key: str, label: str, value: bool) -> str:
    return f'<label class="check"><input type="checkbox" {_attack_id(key)}{" checked" if value else ""}> {esc(label)}</label>'


def attack_input(key: str, label: str, value: object, kind: str = "text") -> str:
    mode = SIGNED if kind == "number" else ' maxlength="60" autocomplete="off"'
    return (f'<label class="field">{esc(label)}<input type="{kind}"{mode} {_attack_id(key)}'
            f' value="{esc(value if value is not None else "")}"></label>')


class Chart(Protocol):  # a Distribution
    @property
    def residual(self) -> float: ...

    def items(self) -> list[tuple[int, float]]: ...


class Sampled(Protocol):  # an Estimate
    @property
    def rolls(self) -> int: ...
    @property
    def refused(self) -> int: ...

    def margin(self, p: float) -> float: ...


MAX_BARS = 120


def at_least(cfg: dict[str, Any]) -> int | None:
    """The damage a player asked the chance of ("at least N"), from an attack panel's choices."""
    value = cfg.get("at_least")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def odds_refused_html(why: str) -> str:
    """The odds panel for an expression that has none here: why, in place of any chart.

    >>> odds_refused_html("6 <b>")
    '<p class="muted" data-testid="odds-refused">No odds for this expression: 6 &lt;b&gt;</p>'
    """
    return f'<p class="muted" data-testid="odds-refused">No odds for this expression: {esc(why)}</p>'


def odds_html(dist: Chart, target: int | None, estimate: Sampled | None = None,
              possible: tuple[int | None, int | None] | None = None) -> str:
    """The chart, mean and P(total >= target) of an exact distribution, or of an estimate from
    simulated rolls (labelled, with its margin). One pass over the outcomes: there may be 200,000."""
    items = dist.items()
    # Long tails (explosions) are cut where the bars would be invisible.
    visible = [v for v, p in items if p >= 1e-4]
    low, high = (visible[0], visible[-1]) if visible else (items[0][0], items[-1][0])
    width = -(-(high - low + 1) // MAX_BARS)  # values per bar, so at most MAX_BARS bars
    bins = [0.0] * ((high - low) // width + 1)
    mass = total = square = above = 0.0
    for v, p in items:
        mass += p
        total += v * p
        square += v * v * p
        if target is not None and v >= target:
            above += p
        if low <= v <= high:
            bins[(v - low) // width] += p
    mean = total / mass
    stdev = max(0.0, square / mass - mean * mean) ** 0.5
    top = max(bins)
    bars = "".join(
        f'<i style="height:{max(1, round(q / top * 100))}%"'
        f'{" class=hit" if target is not None and low + b * width >= target else ""} '
        f'title="{_bar_label(low + b * width, width)}: {pct(q, 2)}"></i>'
        for b, q in enumerate(bins)
    )
    at_least = ""
    if target is not None:
        margin = f" ± {percent(estimate.margin(above))} points" if estimate is not None else ""
        at_least = f'<p data-testid="odds-at-least">P(total ≥ {esc(target)}) = <b>{pct(above, 2)}</b>{margin}</p>'
    if estimate is not None:
        refused = f"; {estimate.refused:,} went past the caps" if estimate.refused else ""
        note = (f'<p class="muted" data-testid="odds-estimated">Estimated from {estimate.rolls:,} rolls{refused}: '
                f'the exact odds take too long to compute here.</p>')
    else:
        note = (f'<p class="muted">Chains of exploding dice or crits past a chance of 1 in 10¹² are left out '
                f'({dist.residual:.1e} in all).</p>') if dist.residual else ""
    return (
        f'<div class="chart" data-testid="odds-chart" aria-hidden="true">{bars}</div>'
        f'<p class="muted axis"><span>{low}</span><span>{high}</span></p>'
        f'<p data-testid="odds-mean">Mean <b>{mean:.2f}</b> · σ {stdev:.2f} · '
        f'<span data-testid="odds-range">{_range(items, low, high, dist.residual > 0, estimate, possible)}</span></p>'
        f'{at_least}{note}'
    )


def _range(items: list[tuple[int, float]], low: int, high: int, chains: bool, estimate: Sampled | None,
           possible: tuple[int | None, int | None] | None) -> str:
    """The outcomes' range. Exact: the whole range, or with a long tail the likely part and the
    rest ("rare chains" only where explosions chain). Estimated: what the rolls saw is only the
    likely part; the possible range is said apart (when it is known)."""
    first, last = items[0][0], items[-1][0]
    if estimate is not None:
        if possible is None:
            return f"likely {low}–{high}"
        a, b = ("?" if possible[0] is None else possible[0]), ("no limit" if possible[1] is None else possible[1])
        return f"likely {low}–{high} · possible {a}–{b}"
    if (low, high) == (first, last):
        return f"range {first}–{last}"
    if chains and low == first:
        return f"mostly {low}–{high} (up to {last} in rare chains)"
    return f"mostly {low}–{high} (all: {first}–{last})"


def _bar_label(start: int, width: int) -> str:
    return str(start) if width == 1 else f"{start}–{start + width - 1}"


def initiative_option(initiative: str) -> str:
    """The initiative option of a system that has it (the fight's option `initiative`): rolled once per
    combat, or every round (words that fit the half-width box at 360 px: issue 50, item 1)."""
    return ('<label class="field">Initiative<select data-action-change="set-option" data-key="initiative" data-testid="option-initiative">'
            f'<option value="once"{" selected" if initiative == "once" else ""}>Once per fight</option>'
            f'<option value="every_round"{" selected" if initiative == "every_round" else ""}>Every round</option></select></label>')


def view_body_html(view: dict[str, Any]) -> str:
    """The players' view of a fight (pyengine.handoff.table_view, checked): its title, round, whose turn
    and who is next, and the order. Drawn by a player's phone and the table display, and by the game
    master's phone into every state it sends (a phone whose engine is not ready yet shows it at once,
    through static/boot.js's allow-list: static/early.mjs). Every text escaped. The order's box says how
    many rows it has (`--rows`, and `--half` for two columns): the table display sizes its rows to fill
    the screen from them (static/index.html, `.live-view.display`); a phone ignores them.

    >>> html = view_body_html({"name": "Bridge", "round": 2, "now": "Cyra", "next": "Goblin", "rows": [
    ...     ["Cyra", "p", 0, 20, "", ["dying (1 ✓, 2 ✗)"], "now"], ["Goblin", "o", None, None, "hurt", [], "next"]]})
    >>> '--rows:2;--half:1' in html, '<span class="chip down">dying (1 ✓, 2 ✗)</span>' in html
    (True, True)
    """
    rows = "".join(
        f'<li class="{"active" if mark == "now" else ""}" data-testid="view-row" data-mark="{esc(mark)}">'
        f'<span class="grow"><b>{esc(name)}</b>{" · now" if mark == "now" else " · next" if mark == "next" else ""}'
        + "".join(f' <span class="{_chip_class(k)}">{esc(k)}</span>' for k in conditions)
        + '</span>'
        + (f'<span data-testid="view-hp">{esc(hp)}{"/" + esc(top) if top is not None else ""}</span>' if hp is not None
           else f'<span class="muted" data-testid="view-state">{esc(word)}</span>')
        + "</li>"
        for name, side, hp, top, word, conditions, mark in view["rows"]
    )
    n = len(view["rows"])
    return (
        f'<h3 data-testid="view-title">{esc(view["name"])}</h3>'
        f'<p data-testid="view-round"><b>{esc(view_round(view))}</b>'
        + (f'<span class="view-now"> · now <b data-testid="view-now">{esc(view["now"])}</b></span>' if view["now"] else "")
        + (f'<span class="view-next"><span class="sep"> · </span>next <b data-testid="view-next">{esc(view["next"])}</b></span>' if view["next"] else "")
        + '</p>'
        f'<div class="view-box"><ol class="order view" data-testid="view-order" style="--rows:{n};--half:{(n + 1) // 2}">{rows}</ol></div>'
    )


def view_round(view: dict[str, Any]) -> str:
    """The players' view's round in words: "Round 2", or "Not started"."""
    return f"Round {view['round']}" if view.get("round") else "Not started"


def _chip_class(text: str) -> str:
    """A condition's chip in the players' view; a character down (its system's players_chip: dying,
    stable, dead) stands out."""
    return "chip down" if text.startswith("dying (") or text in ("stable", "dead") else "chip"
