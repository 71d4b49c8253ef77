"""Damage types (generic d20 system, SRD 5.1 "Damage Types" and "Damage Resistance and
Vulnerability"): damage typed as dice with their type (`2d10+8 piercing + 2d6 fire`), a creature's
resistances, immunities and vulnerabilities, and what they do to a hit.

Readings (docs/rules.md, "Damage types"):
- Each typed part of a hit is changed on its own, after every other modifier (a save's half
  included): an immunity makes it 0, a resistance halves it (rounded down), a vulnerability doubles
  it; several resistances to one type count once (SRD).
- An entry such as "bludgeoning, piercing, and slashing from nonmagical weapons" applies to those
  types unless the damage is marked `magical` (`1d8+3 magical slashing`); one "that aren't silvered"
  (or "adamantine") is also passed by damage marked `silvered` (`adamantine`).
- An entry the app cannot decide ("damage from spells", "piercing from magic weapons wielded by
  good creatures") is shown on the sheet and left to the table: it changes nothing by itself.
Pure: nothing here rolls.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .dice import parse
from .errors import EngineError, RuleError
from .text import clean_text

__all__ = ["DAMAGE_TYPES", "MARKS", "Portion", "Defenses", "Adjusted", "split_typed", "read_entry",
           "adjust", "adjust_all", "parts_to_args", "parts_from_args", "MAX_ENTRIES", "MAX_PORTIONS", "DEFENSE_KEYS"]

DAMAGE_TYPES = ("acid", "bludgeoning", "cold", "fire", "force", "lightning", "necrotic", "piercing", "poison",
                "psychic", "radiant", "slashing", "thunder")
MARKS = ("magical", "silvered", "adamantine")  # what passes a resistance "from nonmagical weapons (that aren't …)"
MAX_ENTRIES = 20      # entries in one list of a creature's defenses
MAX_ENTRY = 100       # characters in one entry
MAX_PORTIONS = 6      # typed parts in one damage expression
DEFENSE_KEYS = ("resistances", "immunities", "vulnerabilities", "condition_immunities")

_TYPED = re.compile(rf"((?:\b(?:{'|'.join(MARKS)})\s+)*)\b({'|'.join(DAMAGE_TYPES)})\b", re.IGNORECASE)
_NONMAGICAL = re.compile(r"\bfrom nonmagical (?:weapons|attacks)\b(?: that aren't (silvered|adamantine))?", re.IGNORECASE)


@dataclass(frozen=True)
class Portion:
    """One typed part of a hit: its dice (or number), its type (None: untyped) and its marks."""

    dice: str
    kind: str | None = None
    marks: tuple[str, ...] = ()

    @property
    def suffix(self) -> str:
        """What follows its dice: " magical slashing", " fire" ("" untyped)."""
        return "".join(f" {w}" for w in (*self.marks, *((self.kind,) if self.kind else ())))

    def words(self) -> str:
        return self.dice + self.suffix


def split_typed(text: str) -> tuple[Portion, ...]:
    """`2d10+8 piercing + 2d6 fire` -> two portions. Text with no damage type is one untyped portion
    (the dice engine reads it, comments included). RuleError with a plain message otherwise."""
    text = " ".join(str(text or "").split())
    portions: list[Portion] = []
    at = 0
    for match in _TYPED.finditer(text):
        dice = text[at:match.start()].strip()
        if portions or dice.startswith("+"):
            dice = dice[1:].strip() if dice.startswith("+") else dice
        if not dice:
            raise RuleError(f"“{match.group(0).strip()}” needs dice or a number before it (2d6 {match.group(2).lower()}).")
        marks = tuple(m.lower() for m in match.group(1).split())
        portions.append(Portion(dice, match.group(2).lower(), marks))
        at = match.end()
    rest = text[at:].strip()
    if portions and rest:
        if not rest.startswith("+"):
            raise RuleError(f"After “{portions[-1].words()}”, “{rest[:20]}” is not read: join parts with + (2d6 fire + 1d4 cold).")
        rest = rest[1:].strip()
        if not rest:
            raise RuleError("A damage part is missing after the last +.")
    if rest or not portions:
        portions.append(Portion(rest))
    if len(portions) > MAX_PORTIONS:
        raise RuleError(f"Damage has at most {MAX_PORTIONS} typed parts.")
    for p in portions:
        if p.kind is not None:  # an untyped whole is the dice engine's to read (and refuse) as it rolls
            try:
                parse(p.dice)
            except EngineError as error:
                raise RuleError(f"“{p.dice}” ({p.kind}): {error}") from None
    return tuple(portions)


@dataclass(frozen=True)
class Entry:
    """One line of a creature's defenses as read: the types it covers, and what passes it (None:
    nothing; "magical", or "magical" and a material); `table` when the app cannot decide it."""

    text: str
    kinds: frozenset[str]
    passed_by: tuple[str, ...] = ()
    table: bool = False


@lru_cache(maxsize=512)
def read_entry(text: str) -> Entry:
    """"fire" -> fire always; "bludgeoning, piercing, and slashing from nonmagical weapons that
    aren't silvered" -> those three unless magical or silvered; anything else -> the table's call."""
    clean = " ".join(str(text).split())
    low = clean.lower()
    if low in DAMAGE_TYPES:
        return Entry(clean, frozenset({low}))
    nonmagical = _NONMAGICAL.search(low)
    head = low[:nonmagical.start()] if nonmagical else low
    kinds = frozenset(w for w in re.findall(r"[a-z]+", head) if w in DAMAGE_TYPES)
    rest = {w for w in re.findall(r"[a-z]+", head) if w not in DAMAGE_TYPES and w != "and"}
    if nonmagical and kinds and not rest and nonmagical.end() == len(low.split(" (")[0]):
        return Entry(clean, kinds, ("magical",) + ((nonmagical.group(1),) if nonmagical.group(1) else ()))
    if kinds and not rest and not nonmagical and "from" not in low:
        return Entry(clean, kinds)
    return Entry(clean, kinds, table=True)


@dataclass(frozen=True)
class Defenses:
    """A creature's damage resistances, immunities and vulnerabilities (each an SRD entry as text)
    and the conditions it is immune to."""

    resistances: tuple[str, ...] = ()
    immunities: tuple[str, ...] = ()
    vulnerabilities: tuple[str, ...] = ()
    condition_immunities: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return any(getattr(self, k) for k in DEFENSE_KEYS)

    def to_dict(self) -> dict[str, list[str]]:
        return {k: list(getattr(self, k)) for k in DEFENSE_KEYS if getattr(self, k)}

    @staticmethod
    def read(d: object) -> Defenses:
        """Saved or typed defenses, checked (RuleError with a plain message)."""
        if d is None:
            return Defenses()
        if not isinstance(d, dict) or not set(d) <= set(DEFENSE_KEYS):
            raise RuleError("A combatant's defenses are unreadable.")
        out: dict[str, tuple[str, ...]] = {}
        for key, value in d.items():
            if not isinstance(value, list) or len(value) > MAX_ENTRIES or not all(
                    isinstance(v, str) and 0 < len(v) <= MAX_ENTRY for v in value):
                raise RuleError(f"A combatant's {key} list is unreadable (at most {MAX_ENTRIES} entries of {MAX_ENTRY} characters).")
            out[key] = tuple(clean_text(" ".join(v.split())) for v in value)  # cleaned as typed text is
        return Defenses(**out)

    def table_calls(self) -> list[str]:
        """The entries left to the table (shown on the sheet as they are written)."""
        return [e for group in (self.resistances, self.immunities, self.vulnerabilities) for e in group if read_entry(e).table]

    def covers(self, entries: tuple[str, ...], p: Portion) -> bool:
        if p.kind is None:
            return False
        for text in entries:
            e = read_entry(text)
            if not e.table and p.kind in e.kinds and not any(m in e.passed_by for m in p.marks):
                return True
        return False


@dataclass(frozen=True)
class Adjusted:
    """One typed part after the target's defenses: what it was, what it is, and the words why."""

    kind: str | None
    before: int
    after: int
    note: str = ""


def adjust(defenses: Defenses, p: Portion, amount: int) -> Adjusted:
    """SRD order, after every other modifier: immunity -> 0; else resistance halves (down), then
    vulnerability doubles."""
    amount = max(0, amount)
    if defenses.covers(defenses.immunities, p):
        return Adjusted(p.kind, amount, 0, f"immune: {amount} → 0" if amount else "immune: 0")
    after, notes = amount, []
    if defenses.covers(defenses.resistances, p):
        after //= 2
        notes.append(f"resisted: {amount} halved")
    if defenses.covers(defenses.vulnerabilities, p):
        notes.append(f"vulnerable: {after} doubled")
        after *= 2
    return Adjusted(p.kind, amount, after, "; ".join(notes))


def adjust_all(defenses: Defenses, parts: list[tuple[Portion, int]]) -> tuple[Adjusted, ...]:
    return tuple(adjust(defenses, p, amount) for p, amount in parts)


def parts_to_args(parts: list[tuple[Portion, int]]) -> list[list[object]]:
    """Typed parts as an action's saved arguments: [type or null, amount, marks]."""
    return [[p.kind, amount, list(p.marks)] for p, amount in parts]


def parts_from_args(raw: object) -> list[tuple[Portion, int]]:
    """An action's saved typed parts, checked (RuleError: a file or link that is not ours)."""
    if raw is None:
        return []
    if not isinstance(raw, list) or len(raw) > MAX_PORTIONS:
        raise RuleError("A hit's typed damage is unreadable.")
    out = []
    for item in raw:
        if not (isinstance(item, list) and len(item) == 3 and (item[0] is None or item[0] in DAMAGE_TYPES)
                and isinstance(item[1], int) and not isinstance(item[1], bool) and 0 <= item[1] <= 1_000_000
                and isinstance(item[2], list) and all(m in MARKS for m in item[2])):
            raise RuleError("A hit's typed damage is unreadable.")
        out.append((Portion("", item[0], tuple(item[2])), item[1]))
    return out
