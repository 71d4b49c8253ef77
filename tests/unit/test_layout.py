"""The code's shape: imports go one way (no cycles, function-level imports included), no module
imports another's private names, the core names no game system, and the layers stay apart."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from pyengine.rules import systems

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("pyengine", "web")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))}


def _absolute(module: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    package = module.split(".") if MODULES[module].name == "__init__.py" else module.split(".")[:-1]
    base = package[: len(package) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def imports(module: str) -> list[tuple[str, str]]:
    """(imported module, imported name or "") for every import in the module, at any depth."""
    tree = ast.parse(MODULES[module].read_text())
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.extend((alias.name, "") for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            target = _absolute(module, node)
            for alias in node.names:
                # `from pkg import mod` imports a module; `from mod import name` a name of it.
                sub = f"{target}.{alias.name}"
                out.append((sub, "") if sub in MODULES else (target, alias.name))
    return out


def ours(name: str) -> bool:
    return name.split(".")[0] in PACKAGES


GRAPH = {m: sorted({target for target, _ in imports(m) if ours(target) and target != m}) for m in MODULES}


def test_every_import_of_ours_names_a_module_that_exists():
    missing = {(m, t) for m, targets in GRAPH.items() for t in targets if t not in MODULES}
    assert not missing


def test_no_import_cycles():
    """Depth-first search for a back edge; a cycle is reported with its path."""
    state: dict[str, int] = {}
    path: list[str] = []
    cycles: list[list[str]] = []

    def visit(m: str) -> None:
        state[m] = 1
        path.append(m)
        for t in GRAPH.get(m, []):
            # A module importing its own package's __init__ is not a cycle unless the package imports it back.
            if state.get(t) == 1:
                cycles.append(path[path.index(t):] + [t])
            elif t not in state:
                visit(t)
        path.pop()
        state[m] = 2

    for m in GRAPH:
        if m not in state:
            visit(m)
    assert not cycles, cycles


def test_no_module_imports_a_private_name_of_ours():
    private = [(m, target, name) for m in MODULES for target, name in imports(m) if ours(target) and name.startswith("_")]
    assert not private


@pytest.mark.parametrize("module, forbidden", [
    ("pyengine", ("web",)),                      # the engine knows no page
    ("pyengine.model", ("pyengine.rules", "pyengine.turns", "pyengine.systems", "pyengine.tracker", "pyengine.storage")),
    ("pyengine.turns", ("pyengine.rules", "pyengine.systems", "pyengine.tracker", "pyengine.storage")),
    ("pyengine.rules", ("pyengine.systems", "pyengine.tracker", "pyengine.storage")),
    ("pyengine.systems", ("pyengine.tracker", "pyengine.storage")),
    ("web.app.html", ("pyengine", "web")),           # escaping and fields import nothing of ours
    ("web.app.views", ("web.page.runtime", "web.page.browser", "web.page.dom", "web.app.render", "web.app.storage.records", "web.app.storage.workspace", "web.app.exchange")),  # views are pure: state -> HTML
    ("web.app.render", ("web.page.runtime", "web.page.browser", "web.page.dom")),
    # the Elm core and the screens are pure: only the runtime (app, main, dom) touches the page
    # issue 35: the update builds no HTML and knows no screen (a screen's redraw is asked as data)
    ("web.app.update", ("web.page.runtime", "web.page.browser", "web.page.dom", "web.app.render", "web.app.screens")),
    ("web.app.model", ("web.page.runtime", "web.page.browser", "web.page.dom", "web.app.update")),
    ("web.app.messages", ("web", "pyengine.tracker")),
    ("web.app.effects", ("web",)),                    # effects are data: they name nothing of the page
    ("web.app.screens", ("web.page.runtime", "web.page.browser", "web.page.dom", "web.app.update")),
    # issue 35: storage and the loop know no page (they run in CPython with a MemoryStore: test_keeping);
    # the performers take the model they are given and make none (no update); the update knows no performer
    ("web.app.storage.keeper", ("web.page.runtime", "web.page.browser", "web.page.dom", "web.page.paint", "web.page.live", "web.page.listeners", "web.page.main")),
    ("web.app.loop", ("web.page.runtime", "web.page.browser", "web.page.dom", "web.app.storage.keeper", "web.page.paint", "web.page.live", "web.app.render")),
    ("web.page.paint", ("web.app.update", "web.page.runtime", "web.app.storage.keeper", "web.page.live")),
    ("web.page.live", ("web.app.update", "web.page.runtime", "web.page.paint", "web.app.render")),
    ("web.app.update", ("web.app.storage.keeper", "web.app.loop", "web.page.paint", "web.page.live", "web.page.listeners", "web.page.main")),
])
def test_layers(module, forbidden):
    """(A package's own modules are its own: web.app.messages imports web.app.messages.live.)"""
    scope = [m for m in MODULES if m == module or m.startswith(module + ".")]
    leaks = {(m, t) for m in scope for t in GRAPH[m] if any(t == f or t.startswith(f + ".") for f in forbidden)
             and not (t == module or t.startswith(module + "."))}
    assert not leaks


CORE = ["pyengine.model", "pyengine.turns", "pyengine.rules", "pyengine.tracker", "pyengine.storage",
        "web.app.render", "web.page.runtime", "web.page.browser", "web.app.update", "web.app.storage.records", "web.app.html"]


@pytest.mark.parametrize("module", CORE)
def test_the_core_names_no_game_system(module):
    """Only a system's own modules and the two registries name it (`generic` is the default)."""
    names = {s.name for s in systems()} - {"generic"}
    tree = ast.parse(MODULES[module].read_text())
    named = {node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and node.value in names}
    assert not named


# Issue 49, item 1: two rooms. web/app is pure (runs and is tested in CPython); web/page is the only
# code that touches the browser.
BROWSER = ("js", "pyodide", "pyodide_js", "pyscript", "_pyscript", "polyscript")


def _browser_import(target: str) -> bool:
    return target.split(".")[0] in BROWSER


def test_the_web_layer_is_two_rooms():
    loose = sorted(m for m in MODULES if m.startswith("web.") and not m.startswith(("web.app", "web.page")))
    assert not loose
    assert "web.app" in MODULES and "web.page" in MODULES


def test_the_app_knows_no_page():
    leaks = {(m, t) for m in MODULES if m.startswith("web.app") for t, _ in imports(m)
             if t == "web.page" or t.startswith("web.page.") or _browser_import(t)}
    assert not leaks


def test_only_the_page_imports_the_browser():
    touching = {m for m in MODULES for t, _ in imports(m) if _browser_import(t)}
    assert touching  # (dom and qr do)
    assert all(m.startswith("web.page.") for m in touching), touching


def test_no_app_function_takes_or_returns_a_javascript_object():
    """A JavaScript object crosses into Python only in the page: no annotation in web/app names one."""
    found = []
    for m, path in MODULES.items():
        if not m.startswith("web.app"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                args = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
                annotations = [a.annotation for a in args if a.annotation] + ([node.returns] if node.returns else [])
                found += [(m, node.name) for a in annotations if "JsObject" in ast.unparse(a) or "JsProxy" in ast.unparse(a)]
    assert not found


# Issue 49, item 5: the modules split along their seams stay readable (a module a subject).
SPLIT = [*sorted((ROOT / "pyengine" / "odds").glob("*.py")), *sorted((ROOT / "pyengine" / "notation").glob("*.py")),
         *sorted((ROOT / "pyengine" / "systems" / "strife").glob("*.py")), *sorted((ROOT / "sitebuild").glob("*.py")), ROOT / "build.py"]


@pytest.mark.parametrize("path", SPLIT, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_split_module_is_at_most_600_lines_and_its_functions_60(path):
    text = path.read_text()
    assert len(text.splitlines()) <= 600
    long = [(node.name, node.end_lineno - node.lineno + 1) for node in ast.walk(ast.parse(text))
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.end_lineno - node.lineno + 1 > 60]
    assert not long
