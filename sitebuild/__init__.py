"""build.py's pieces, standard library only: `config`, `runtimes`, `ours`, `site`, `serve`, `testing`.
"""

from __future__ import annotations

__all__ = []
