"""What the game master's window posts to its table display is sealed (issue 51, item 6): any page of
this origin can post on the display's BroadcastChannel (another project's site on the same github.io
origin), so the display takes only messages sealed with the key its own address carries (`?dkey=`,
put there by the game master's window as it opens the display; the game master's tab keeps it in
its sessionStorage, which no other tab can read). An HMAC-SHA256 of the text: "M" + the MAC
(base64url) + "|" + the text. static/early.mjs checks the same seal before the display's engine runs.

>>> key = "k" * 22
>>> sealed = seal(key, '{"v":1}')
>>> opened(key, sealed), opened("x" * 22, sealed), opened(key, '{"v":1}'), opened(key, sealed[:-1] + "2}")
('{"v":1}', None, None, None)
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re

__all__ = ["seal", "opened", "is_key", "SEALED"]

SEALED = "M"
_KEY = re.compile(r"[A-Za-z0-9_-]{22,64}")


def is_key(text: object) -> bool:
    """A display key as the address carries it (secrets.token_urlsafe(16) or longer)."""
    return isinstance(text, str) and bool(_KEY.fullmatch(text))


def _mac(key: str, text: str) -> str:
    digest = hmac.new(key.encode(), text.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


def seal(key: str, text: str) -> str:
    return f"{SEALED}{_mac(key, text)}|{text}"


def opened(key: str, data: str | None) -> str | None:
    """The text of a message sealed with `key`; None for anything else (unsealed, another key, altered)."""
    if not isinstance(data, str) or not data.startswith(SEALED) or "|" not in data:
        return None
    mac, text = data[1:].split("|", 1)
    return text if hmac.compare_digest(mac, _mac(key, text)) else None
