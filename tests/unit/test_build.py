"""build.py: what goes into dist/ (runtimes trimmed to what the page needs, a content-hashed
service worker, a config that keeps PyScript on our own files)."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import shutil
import tomllib
import zipfile
from pathlib import Path

import pytest

import build
from sitebuild.runtimes import imports_in

DIST = Path(os.environ.get("RK_DIST", build.DIST))
needs_dist = pytest.mark.skipif(not (DIST / "index.html").exists(), reason="run `python3 build.py build` first")


def test_imports_are_found_with_relative_and_lazy_forms():
    source = "import os, sys as system\nfrom . import render\nfrom ..x.y import z as w\ndef f():\n    import json.decoder\n"
    assert imports_in(source, "web.sub") == {"os", "sys", "web.sub", "web.sub.render", "web.x.y", "web.x.y.z", "json.decoder"}


def test_our_code_imports_are_all_listed():
    names = build.our_imports()
    assert {"dataclasses", "json", "random", "base64", "zlib", "html", "asyncio"} <= names


@needs_dist
def test_trimmed_stdlib_keeps_what_we_import_as_bytecode_and_drops_the_rest():
    with zipfile.ZipFile(DIST / "pyodide" / "python_stdlib.zip") as z:
        names = set(z.namelist())
        header = z.read("json/decoder.pyc")[:16]
    for needed in ("json/decoder", "dataclasses", "random", "base64", "html/__init__", "encodings/utf_8",
                   "encodings/aliases", "asyncio/tasks", "pyodide/ffi/__init__"):
        assert f"{needed}.pyc" in names and f"{needed}.py" not in names, needed
    for dropped in ("unittest/__init__", "tkinter/__init__", "email/parser", "encodings/cp1250", "pydoc"):
        assert f"{dropped}.pyc" not in names and f"{dropped}.py" not in names, dropped
    # Unchecked hash-based bytecode (PEP 552 flags = 0b01): used without looking for a source.
    assert int.from_bytes(header[4:8], "little") == 0b01
    assert (DIST / "pyodide" / "python_stdlib.zip").stat().st_size < 1_800_000


@needs_dist
def test_the_qr_encoder_ships_pinned_beside_the_site_and_not_in_its_start():
    """segno and micropip: pinned wheels in the site's own folders, installed in the page on first use;
    the standard library they need beyond the page's own is a zip of its own, so start-up does not grow."""
    import hashlib

    from web.page.qr import SEGNO_WHEEL, STDLIB_EXTRA

    assert build.wheel_name("segno") == SEGNO_WHEEL
    segno = DIST / "wheels" / SEGNO_WHEEL
    assert hashlib.sha256(segno.read_bytes()).hexdigest() == build.SITE_WHEELS["segno"][1]
    lock = json.loads((DIST / "pyodide" / "pyodide-lock.json").read_text())
    micropip = DIST / "pyodide" / lock["packages"]["micropip"]["file_name"]
    assert list(lock["packages"]) == ["micropip"]
    assert lock["packages"]["micropip"]["sha256"] == hashlib.sha256(micropip.read_bytes()).hexdigest() == build.SITE_WHEELS["micropip"][1]
    with zipfile.ZipFile(DIST / "wheels" / STDLIB_EXTRA) as z:
        extra = set(z.namelist())
    with zipfile.ZipFile(DIST / "pyodide" / "python_stdlib.zip") as z:
        base = {n.rsplit(".", 1)[0] for n in z.namelist()}
    assert {"tarfile.py", "importlib/metadata/__init__.py", "email/parser.py"} <= extra
    assert not {n.rsplit(".", 1)[0] for n in extra} & base  # nothing twice
    sw = (DIST / "sw.js").read_text()
    assert f"./wheels/{SEGNO_WHEEL}" in sw and f"./wheels/{STDLIB_EXTRA}" in sw  # precached: works offline
    assert "segno" not in (DIST / "pyscript.json").read_text()


@needs_dist
def test_the_start_is_marked_phase_by_phase():
    """The bench's start-up phases: marks.js adds PyScript's onReady mark before PyScript starts."""
    html = (DIST / "index.html").read_text()
    assert "rk:python-start" in html and "rk:imports-done" in html
    assert '<script type="module" src="./marks.js"></script>' in html and (DIST / "marks.js").exists()
    assert html.index("./marks.js") < html.index("./pyscript/core.js")  # its hooks are added before PyScript starts


@needs_dist
def test_our_code_ships_as_bytecode_only():
    """x.pyc where x.py was (Pyodide's Python 3.14 magic number), as the trimmed standard library."""
    for archive, package in ((DIST / "web.zip", "web"), (next(DIST.glob("roundkeeper_engine-*.whl")), "pyengine")):
        with zipfile.ZipFile(archive) as z:
            names = set(z.namelist())
            header = z.read(f"{package}/__init__.pyc")[:16]
        sources = {p.relative_to(build.ROOT).with_suffix(".pyc").as_posix() for p in (build.ROOT / package).rglob("*.py")}
        assert sources <= names
        assert not any(n.endswith(".py") for n in names), archive
        with zipfile.ZipFile(DIST / "pyodide" / "python_stdlib.zip") as z:
            assert header[:4] == z.read("json/decoder.pyc")[:4]


def test_pyscript_package_is_read_from_the_object_literal_its_core_chunk_writes_out():
    chunk = ('x=1;wo(".",{pyscript:{"__init__.py":"from pyscript.a import b\\n",'
             'sub:{"a.py":"b = \\"\\u00e9\\"\\n"},"c.py":"\\"}\\" ,{x:1}"}}),go.push("import pyscript")')
    assert build.pyscript_package(chunk) == {"pyscript/__init__.py": "from pyscript.a import b\n",
                                             "pyscript/sub/a.py": 'b = "\u00e9"\n', "pyscript/c.py": '"}" ,{x:1}'}
    # Another shape (a new PyScript): nothing is taken, the browser compiles PyScript's package as before.
    assert build.pyscript_package('wo(".",{pyscript:{"__init__.py":f(1)}})') == {}
    assert build.pyscript_package('wo(".",{pyscript:{"x.py":"a"}})') == {}  # no __init__.py
    assert build.pyscript_package('{pyscript:{"__init__.py":"a"}} {pyscript:{"__init__.py":"b"}}') == {}
    assert build.pyscript_package('{pyscript:{"../__init__.py":"a"}}') == {}
    assert build.pyscript_package("no package here") == {}


def test_pyscripts_writes_stay_when_web_zip_does_not_hold_its_package(tmp_path):
    """A build with no bytecode (no Node): web.zip holds no PyScript, and the chunk keeps writing it."""
    (tmp_path / "pyscript").mkdir()
    chunk = 'wo(".",{pyscript:{"__init__.py":"x = 1\\n"}}),ho.push("import pyscript as _pyscript");'
    (tmp_path / "pyscript" / "core-AbCdEf12.js").write_text(chunk)
    name = build.build_web_zip(tmp_path, bytecode=False)
    with zipfile.ZipFile(tmp_path / name) as z:
        assert not any(n.startswith("pyscript/") for n in z.namelist())
    assert build.drop_pyscript_writes(tmp_path, name) is False
    assert (tmp_path / "pyscript" / "core-AbCdEf12.js").read_text() == chunk


def test_the_call_that_writes_pyscripts_package_is_taken_out_of_the_chunk():
    chunk = 'a=1;wo(".",{pyscript:{"__init__.py":"x = 1\\n"}}),ho.push("import pyscript as _pyscript");'
    assert build.without_pyscript_writes(chunk) == 'a=1;void 0,ho.push("import pyscript as _pyscript");'
    unknown = 'wo(".",{pyscript:{"__init__.py":f()}}),ho.push("import pyscript")'
    assert build.without_pyscript_writes(unknown) == unknown  # a shape not known: left as it is


@needs_dist
def test_pyscripts_own_package_ships_compiled_in_web_zip_and_is_not_written_at_start():
    """PyScript writes its package as source at every start; web.zip holds the same files compiled,
    first on sys.path, and the shipped chunk no longer writes them (the browser's import of them is
    checked by test_snapshot)."""
    source = build.ROOT / "node_modules" / "@pyscript" / "core" / "dist"
    original = next(source.glob("core-*.js"))
    package = build.pyscript_package(original.read_text())
    assert {"pyscript/__init__.py", "pyscript/web.py", "pyscript/context.py"} <= set(package)
    with zipfile.ZipFile(DIST / "web.zip") as z:
        names = set(z.namelist())
        header = z.read("pyscript/__init__.pyc")[:16]
    assert {name[:-3] + ".pyc" for name in package} <= names
    assert header[4:8] == b"\x01\x00\x00\x00"  # unchecked hash: used without a source beside it
    shipped = (DIST / "pyscript" / original.name).read_text()
    assert build.pyscript_package(shipped) == {}
    stripped = re.sub(r"\n?//# sourceMappingURL=\S+\s*$", "\n", original.read_text())
    assert shipped == build.without_pyscript_writes(stripped)
    assert "import pyscript as _pyscript" in shipped  # the bootstrap still imports it, from web.zip


@needs_dist
@pytest.mark.skipif(shutil.which("node") is None, reason="node checks the chunk's syntax")
def test_the_shipped_pyscript_chunk_is_still_valid_javascript(tmp_path):
    import subprocess

    chunk = next((DIST / "pyscript").glob("core-*.js"))
    module = tmp_path / "chunk.mjs"
    module.write_text(chunk.read_text())
    done = subprocess.run(["node", "--check", str(module)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-500:]


def test_the_head_preloads_the_loader_and_what_it_imports_before_boot_runs():
    preload = (build.STATIC / "preload.js").read_text()
    loader = (build.STATIC / "interpreter.mjs").read_text()
    imported = re.findall(r'^import [^;]* from "(\./[^"]+)";', loader, re.M)
    assert sorted(re.findall(r'"(\./[^"]+\.mjs)"', preload)) == sorted(["./interpreter.mjs", *imported])
    html = (build.STATIC / "index.html").read_text()
    head = html[: html.index("</head>")]
    assert '<script src="./preload.js" async></script>' in head and "./boot.js" not in head


@needs_dist
def test_dist_has_only_what_the_page_needs():
    files = {p.relative_to(DIST).as_posix() for p in DIST.rglob("*") if p.is_file()}
    assert not any(f.endswith(".map") or f.endswith(".d.ts") for f in files)
    assert {f for f in files if f.startswith("pyodide/")} == {f"pyodide/{n}" for n in build.PYODIDE_FILES} | {
        f"pyodide/{build.wheel_name('micropip')}"}
    chunks = {f for f in files if f.startswith("pyscript/")}
    assert "pyscript/core.js" in chunks and len(chunks) == 1 + len(build.PYSCRIPT_CHUNKS)
    assert not any(word in f for f in chunks for word in ("codemirror", "xterm", "editor", "terminal", "toml"))
    config = json.loads((DIST / "pyscript.json").read_text())
    # Our loader in front of the self-hosted Pyodide (without it PyScript would take Pyodide from a CDN).
    assert config["interpreter"] == "./interpreter.mjs"
    loader, worker = (DIST / "interpreter.mjs").read_text(), (DIST / "snapshot-worker.js").read_text()
    assert 'from "./pyodide/pyodide.mjs"' in loader and 'from "./pyodide/pyodide.mjs"' in worker
    assert "packages" not in config
    assert "files" not in config  # our code is interpreter.mjs's to fetch at once (the page's rk-files), not PyScript's to fetch late
    html = (DIST / "index.html").read_text()
    ours = re.search(r'<meta name="rk-files" content="([^"]*)">', html)
    assert ours is not None
    named = dict(zip(ours.group(1).split()[::2], ours.group(1).split()[1::2]))
    assert sorted(named) == sorted(f"./{p.name}" for p in (*DIST.glob("*.whl"), DIST / "web.zip"))
    for name, integrity in named.items():  # each with its hash: fetch() refuses a damaged download
        assert integrity == "sha384-" + base64.b64encode(hashlib.sha384((DIST / name).read_bytes()).digest()).decode()
    assert "!py-editor" in html and "__PLUGINS_OFF__" not in html
    assert '<script type="module" src="./interpreter.mjs" async></script>' in html  # Pyodide starts at once
    for text in (html, (DIST / "sw.js").read_text(), json.dumps(config), loader, worker):
        assert "http://" not in text.replace("http://127.0.0.1", "") and "https://" not in text


@needs_dist
def test_service_worker_version_follows_content(tmp_path):
    copy = tmp_path / "site"
    shutil.copytree(DIST, copy)
    first = build.write_service_worker(copy)
    assert build.write_service_worker(copy) == first  # same files, same version
    sw = (copy / "sw.js").read_text()
    precache = json.loads(sw.split("const PRECACHE = ", 1)[1].split(";\n", 1)[0])
    assert "./" in precache and "./pyodide/pyodide.asm.wasm" in precache and "./sw.js" not in precache
    (copy / "manifest.webmanifest").write_text("{}")
    assert build.write_service_worker(copy) != first
    assert f'content="{build.write_service_worker(copy)}"' in (copy / "index.html").read_text()


def test_wheel_is_built_from_pyproject(tmp_path):
    name = build.build_wheel(tmp_path, bytecode=False)
    meta = build.project_meta()
    assert name == f"{meta['name'].replace('-', '_')}-{meta['version']}-py3-none-any.whl"
    with zipfile.ZipFile(tmp_path / name) as z:
        listed = z.namelist()
        assert "pyengine/dice.py" in listed and not any(n.startswith("web/") for n in listed)
        record = z.read(f"{name.rsplit('-py3', 1)[0]}.dist-info/RECORD").decode()
        assert "pyengine/dice.py,sha256=" in record


def test_rules_reference_becomes_a_page_with_escaped_text_lists_and_tables():
    page = build.markdown_html("# Title\n\nA *Reading* with `code` and <b>.\n\n- one\n  more\n- two\n\n| a | b |\n|---|---|\n| 1 | **2** |\n")
    assert "<h1>Title</h1>" in page
    assert "<p>A <em>Reading</em> with <code>code</code> and &lt;b&gt;.</p>" in page
    assert "<ul><li>one more</li><li>two</li></ul>" in page
    assert "<thead><tr><th>a</th><th>b</th></tr></thead><tbody><tr><td>1</td><td><b>2</b></td></tr></tbody>" in page
    whole = build.rules_page((build.ROOT / "docs" / "rules.md").read_text())
    for system in ("Enchanted Realms", "Realm of Strife", "Laurels and Loot"):
        assert f"<h2>{system}" in whole
    assert "<script" not in whole and "Content-Security-Policy" in whole


@needs_dist
def test_the_rules_page_ships_and_is_precached():
    assert (DIST / "rules.html").exists()
    assert '"./rules.html"' in (DIST / "sw.js").read_text()


def test_the_web_modules_the_snapshot_keeps_import_without_the_browser():
    """static/interpreter.mjs leaves out of the start-up snapshot only the web modules that bind the
    page at import; every other module of web/ must import in a plain Python with no pyscript, js
    or pyodide (a snapshot cannot carry JavaScript objects), or the snapshot would fail to build."""
    import re
    import subprocess
    import sys

    source = (build.ROOT / "static" / "interpreter.mjs").read_text()
    pattern = re.compile(re.search(r"const NOT_IN_SNAPSHOT = /(.+)/;", source).group(1).replace("\\/", "/"))
    modules = sorted("web." + ".".join(p.relative_to(build.ROOT / "web").with_suffix("").parts)
                     for p in (build.ROOT / "web").rglob("*.py") if p.name != "__init__.py")
    kept = [m for m in modules if not pattern.match(m)]
    left_out = sorted(set(modules) - set(kept))
    assert left_out == ["web.page.bench"]
    assert {"web.app.update.fight", "web.app.model", "web.app.render", "web.app.views.realms", "web.app.screens.combatant", "web.page.runtime", "web.page.dom",
            "web.page.browser", "web.page.listeners", "web.page.paint", "web.page.live", "web.app.storage.keeper"} <= set(kept)
    code = (f"import importlib, sys\nfor m in {kept!r}: importlib.import_module(m)\n"
            "print(sorted(n for n in ('pyscript', 'js', 'pyodide', 'pyodide_js') if n in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=build.ROOT, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_csp_lets_the_page_reach_its_own_origin_and_the_live_tables_relays_only():
    from pyengine.live import DEFAULT_NOSTR, DEFAULT_RELAYS

    policy = build.connect_src()
    assert policy.split() == ["'self'", "wss://tracker.openwebtorrent.com", "wss://tracker.webtorrent.dev",
                              "wss://tracker.files.fm:7073", "wss://nos.lol", "wss://relay.mostr.pub", "wss://purplerelay.com",
                              "wss://strfry.shock.network"]
    assert len(DEFAULT_RELAYS) == 3 and len(DEFAULT_NOSTR) == 4
    assert build.connect_src((build.TEST_RELAY, build.TEST_NOSTR)).endswith(" ws://127.0.0.1:47913 ws://127.0.0.1:47914")
    assert build.connect_src((build.TEST_RELAY,)).endswith(" ws://127.0.0.1:47913")
    with pytest.raises(SystemExit):
        build.connect_src(("https://elsewhere.example",))
    # Only a relay's origin is written: nothing after it reaches the policy.
    assert build.connect_src(("wss://a.example; script-src *",)).endswith(" wss://a.example")


def test_trystero_is_served_from_our_files_with_its_one_bare_import_rewritten(tmp_path):
    modules = build.ensure_runtimes()
    build.copy_trystero(modules, tmp_path)
    torrent = (tmp_path / "trystero" / "torrent.mjs").read_text()
    assert 'from "./core/index.mjs"' in torrent and "@trystero-p2p" not in torrent
    for path in (tmp_path / "trystero").rglob("*.mjs"):
        imports = [line for line in path.read_text().splitlines() if line.startswith("import ")]
        assert all('from "./' in line for line in imports), (path, imports)


def test_trysteros_offers_are_never_restarted_for_their_age_and_another_trystero_stops_the_build(tmp_path):
    """Session 24: Trystero 0.25.4 renews an offer that waited (a pooled peer over its 57 s, a torrent
    offer kept 120 s) by rollback and ICE restart, which in Chromium gives an offer with no media
    section; the build patches that out (tests/e2e/test_live.py checks the offers a game master
    makes minutes on). Each patched text is there once after the build, the old ones gone; a core whose
    text differs (another version) stops the build instead of shipping it unpatched."""
    import shutil

    modules = build.ensure_runtimes()
    build.copy_trystero(modules, tmp_path)
    core = tmp_path / "trystero" / "core"
    for name, patches in build.TRYSTERO_PATCHES.items():
        text = (core / name).read_text()
        for _old, new in patches:
            assert text.count(new) == 1, (name, new)
    assert "getOffer(Date.now()" not in (core / "strategy.mjs").read_text()
    other = tmp_path / "other"
    shutil.copytree(modules / "@trystero-p2p" / "core" / "dist", other)
    (other / "strategy.mjs").write_text((other / "strategy.mjs").read_text().replace("peer.created > offerTtl", "peer.created >= offerTtl"))
    with pytest.raises(SystemExit, match="strategy.mjs"):
        build.patch_trystero(other)


def test_the_facts_both_languages_use_come_from_the_python_into_every_javascript_file(tmp_path):
    """Issue 49, item 4: the wire's version, the largest message, the silence before "reconnecting…"
    (pyengine/live.py), the Next-turn guard, the storage keys and the seal's mark, written by the build
    from the Python that owns them into every JavaScript file that uses them; none spells them out
    (and the JavaScript reads a message with JSON.parse and its shape, never by a prefix)."""
    import json
    import shutil

    from pyengine.live import LIVE_VERSION, MAX_MESSAGE, SILENT_MS, WIRE, beat_text, state_text
    from web.app.model import NEXT_TURN_GUARD
    from web.app.storage.keeper import DEVICE_KEY, SERVERS_KEY

    assert WIRE == {"version": LIVE_VERSION, "max": MAX_MESSAGE, "silentMs": SILENT_MS}
    assert json.loads(state_text({"v": 1}, 3))["v"] == WIRE["version"] == json.loads(beat_text(3, "s"))["v"]
    facts = build.facts()
    assert facts["wire"] == WIRE and facts["nextTurnGuardMs"] == round(NEXT_TURN_GUARD * 1000) == 400
    assert facts["keys"] == {"servers": SERVERS_KEY, "device": DEVICE_KEY, "backup": "backup:"} and facts["sealed"] == "M"
    names = ("boot.js", "journal.js", "live.mjs", "early.mjs")
    for name in names:
        source = (build.ROOT / "static" / name).read_text()
        # nothing the Python owns is spelled out here: no message prefix, no limit, no key, no guard
        for spelled in ('"t":"state"', "live-device", "live-servers", '"backup:"', ": 400}", "'M'"):
            assert spelled not in source, (name, spelled)
        assert not re.search(r"(?<![\d.])(64000|64_000|11000|11_000)(?!\d)", source), name
        shutil.copy(build.ROOT / "static" / name, tmp_path / name)
    build.write_facts(tmp_path)
    for name in names:
        assert f"FACTS = {json.dumps(facts, sort_keys=True)}" in (tmp_path / name).read_text()
    if (DIST / "live.mjs").exists():
        for name in names:
            assert json.dumps(facts, sort_keys=True) in (DIST / name).read_text()


def test_the_two_test_processes_cover_the_whole_suite_once():
    """build.py test runs the suite in two processes: every test file is in exactly one of them, and every
    file that uses the tests' fixed relay ports is in the first (which alone starts those relays)."""
    root = Path(build.ROOT)
    files = {p.relative_to(root).as_posix() for p in root.joinpath("tests").rglob("test_*.py")}
    first = {f for f in files if any(f.startswith(path + "/") for path in build.NOT_IN_A_BROWSER)} | set(build.ON_RELAY_PORTS)
    second = {f for f in files if f.startswith("tests/e2e/") and f not in build.ON_RELAY_PORTS and f not in build.ALONE}
    assert first | second | set(build.ALONE) == files and not first & second and not (first | second) & set(build.ALONE)
    assert set(build.ON_RELAY_PORTS) <= files and set(build.ALONE) <= files
    timed = {f for f in second if "longTasks" in root.joinpath(f).read_text() or "__long" in root.joinpath(f).read_text()}
    assert timed == set(), timed   # a file that bounds a task's milliseconds runs alone
    ports = (build.TEST_RELAY.rsplit(":", 1)[1], build.TEST_NOSTR.rsplit(":", 1)[1], "TEST_RELAY", "TEST_NOSTR", "nostr_relay")
    on_ports = {f for f in second if any(word in root.joinpath(f).read_text() for word in ports)}
    assert on_ports == set(), on_ports
    testpaths = tomllib.loads(root.joinpath("pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["testpaths"]
    assert {path for path in testpaths if path != "tests"} <= set(build.NOT_IN_A_BROWSER)
    assert {p.parent.relative_to(root).as_posix() for p in root.joinpath("tests").glob("*/test_*.py")} <= {*build.NOT_IN_A_BROWSER, "tests/e2e"}


def test_only_arguments_that_name_tests_make_one_pytest_of_them():
    """`python3 build.py test -q -p no:cacheprovider` (CI's command) runs the two processes: an
    option's value is no test path; `tests/unit -k dice` or a node id runs one pytest as given."""
    assert not any(build.names_tests(a) for a in ["-q", "-p", "no:cacheprovider", "-rfE", "-x"])
    assert build.names_tests("tests/unit") and build.names_tests("tests/unit/test_build.py::test_the_start_is_marked_phase_by_phase")


needs_node_modules = pytest.mark.skipif(not (build.ROOT / "node_modules" / "typescript").exists(), reason="npm ci first (python3 build.py build)")


@needs_node_modules
def test_the_javascript_passes_its_linter_and_type_check():
    """Issue 49, item 4: ESLint (one dialect: const/let, strict equality, the recommended rules) and
    tsc --checkJs over the page's files and the workers', as `python3 build.py test` runs them."""
    import subprocess

    from sitebuild.testing import js_checks
    for name, command in js_checks(build.ROOT / "node_modules").items():
        done = subprocess.run(command, cwd=build.ROOT, capture_output=True, text=True)
        assert done.returncode == 0, (name, done.stdout[-2000:], done.stderr[-2000:])


@needs_node_modules
def test_the_javascript_checks_refuse_the_other_dialect_and_a_wrong_call(tmp_path):
    import shutil
    import subprocess
    node = shutil.which("node") or "node"
    modules = build.ROOT / "node_modules"
    lint = subprocess.run([node, str(modules / "eslint" / "bin" / "eslint.js"), "--stdin", "--stdin-filename", "static/x.js"],
                          input="(function () {\n  var a = 1;\n  if (a == 2) a = 3;\n})();\n", cwd=build.ROOT, capture_output=True, text=True)
    assert lint.returncode == 1 and "no-var" in lint.stdout and "eqeqeq" in lint.stdout
    bad = tmp_path / "bad.js"  # the journal's conflict callback takes the key and the refused version
    bad.write_text('"use strict";\nwindow.RK.journal.onConflict("roundkeeper:/:encounters");\n')
    (tmp_path / "tsconfig.json").write_text(json.dumps({"extends": str(build.ROOT / "tsconfig.json"),
                                                        "include": [str(build.ROOT / "types" / "globals.d.ts"), str(bad)], "exclude": []}))
    typed = subprocess.run([node, str(modules / "typescript" / "bin" / "tsc"), "-p", str(tmp_path / "tsconfig.json")],
                           cwd=build.ROOT, capture_output=True, text=True)
    assert typed.returncode != 0 and "TS2554" in typed.stdout  # expected 2 arguments
