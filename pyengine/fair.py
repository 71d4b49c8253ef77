"""Dice that neither phone chooses alone (the live table's verified rolls).

A player's phone that rolls for the game master's engine (an attack, a death save, a roll at a
target) does it in three messages:

1. the phone draws a secret (`new_secret`) and sends its request with the secret's `commitment`
   (SHA-256), not the secret;
2. the game master's phone answers at once, with no tap, with its own value for that commitment
   (`drawn`: made from a key only the game master's page knows, so the phone cannot foresee it);
3. the phone reveals its secret. Both phones now make the dice's seed from the two values
   (`joint_seed`); the game master's phone first checks the secret against the commitment.

A phone that picked its secret to get a natural 20 does not know the game master's value when it
commits; the game master's phone does not know the secret when it answers. A phone that drops a
roll it does not like (no reveal) is seen: the game master's phone shows a commitment that was never
revealed. A commitment is used once (`Draws.seen`): a replayed one is refused.

>>> import random
>>> secret = new_secret(random.Random(1))
>>> commit = commitment(secret)
>>> value = drawn("k" * 32, commit)
>>> reveals(commit, secret), reveals(commit, new_secret(random.Random(2)))
(True, False)
>>> joint_seed(secret, value) == joint_seed(secret, value) < 2**53
True
"""

from __future__ import annotations

import hashlib
import hmac
import re

from .dice import Rng

__all__ = ["new_secret", "commitment", "drawn", "reveals", "joint_seed", "is_secret", "is_commitment", "SECRET_HEX"]

SECRET_HEX = 32                       # 128 bits, as hex
_SECRET = re.compile(r"[0-9a-f]{32}")
_COMMIT = re.compile(r"[0-9a-f]{64}")


def new_secret(rng: Rng) -> str:
    """A phone's secret for one roll: 128 random bits (the page's generator is the system's own,
    unless `?seed=` fixes the dice for a test)."""
    return "".join(f"{rng.randint(0, 0xFFFFFFFF):08x}" for _ in range(4))


def commitment(secret: str) -> str:
    """What the phone sends first: the SHA-256 of its secret (hex)."""
    return hashlib.sha256(f"roundkeeper-roll:{secret}".encode()).hexdigest()


def drawn(key: str, commit: str) -> str:
    """The game master's value for a commitment: an HMAC of it under the game master's page's key
    (kept with the live table, never sent), so the same commitment is answered the same way after a
    reload, and no phone can foresee it."""
    return hmac.new(key.encode(), commit.encode(), hashlib.sha256).hexdigest()[:SECRET_HEX]


def reveals(commit: str, secret: str) -> bool:
    """Whether `secret` is the one the commitment promised."""
    return is_secret(secret) and hmac.compare_digest(commitment(secret), commit)


def joint_seed(secret: str, value: str) -> int:
    """The dice's seed, from both phones' values (a whole number under 2**53: JSON's safe integers)."""
    return int(hashlib.sha256(f"{secret}:{value}".encode()).hexdigest()[:13], 16)


def is_secret(text: object) -> bool:
    return isinstance(text, str) and bool(_SECRET.fullmatch(text))


def is_commitment(text: object) -> bool:
    return isinstance(text, str) and bool(_COMMIT.fullmatch(text))
