"""The engine's error hierarchy: every error the engine raises is an `EngineError` with a message
fit to show a player."""

from __future__ import annotations

__all__ = [
    "EngineError",
    "DiceError",
    "DiceSyntaxError",
    "DiceLimitError",
    "DiceValueError",
    "DiceWorkError",
    "DiceDrawnError",
    "RuleError",
    "UnsetDefenceError",
    "SchemaError",
]


class EngineError(Exception):
    """Base of every error the engine raises on purpose."""


class DiceError(EngineError):
    """Something is wrong with a dice expression."""


class DiceSyntaxError(DiceError):
    """The text is not valid dice notation; says where and what was expected."""

    def __init__(self, text: str, pos: int, expected: str) -> None:
        self.text = text
        self.pos = pos
        self.expected = expected
        got = repr(text[pos]) if pos < len(text) else "the end"
        self.got = got
        super().__init__(f"At character {pos + 1}: expected {expected}, got {got}.")


class DiceLimitError(DiceError):
    """The expression is past one of the documented caps (dice, sides, rerolls, odds size)."""


class DiceDrawnError(DiceLimitError):
    """A roll drew more faces than its limit allows (rerolls and explosions included): the roller's
    own bound, said as such; every other cap says its own words."""


class DiceWorkError(DiceLimitError):
    """An exact computation needs more work than its budget allows; a simulation can estimate it."""


class DiceValueError(DiceError):
    """The expression is well formed but asks for something impossible (6d0, division by zero)."""


class RuleError(EngineError):
    """A game rule forbids what was asked."""


class UnsetDefenceError(RuleError):
    """The target's defence the attack is rolled against is not set (the game master has not set it
    up for attacks): a player's phone is told so, never the defence's name or number."""


class SchemaError(EngineError):
    """Saved data that cannot be read: not ours, corrupt, or from a newer version."""
