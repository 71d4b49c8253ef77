"""End-to-end fixtures: the site built by build.py, served on 127.0.0.1, in Debian's Chromium."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

import build
from pyengine.storage import dumps, timeline_to_dict

playwright_api = pytest.importorskip("playwright.sync_api")

READY_TIMEOUT_MS = 90_000
# Several sites share one origin, as on GitHub Pages: the project's own folder under a few paths.
MOUNTS = ("/", "/sub/", "/a/", "/b/")


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/e2e" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="session")
def dist(tmp_path_factory) -> Path:
    given = os.environ.get("RK_DIST")
    if given and (Path(given) / "index.html").exists():
        return Path(given)
    return build.build(tmp_path_factory.mktemp("dist") / "site", relays=(build.TEST_RELAY, build.TEST_NOSTR))


@pytest.fixture(scope="session")
def site(dist, tmp_path_factory):
    """Base URL of a server with the site at every path of MOUNTS, plus a scratch copy at /u/."""
    scratch = tmp_path_factory.mktemp("update") / "site"
    shutil.copytree(dist, scratch)
    mounts = {m: dist for m in MOUNTS}
    mounts["/u/"] = scratch
    mounts["/__tools__/"] = Path(build.ROOT) / "node_modules" / "axe-core"  # test tools, same origin
    server, url = build.serve_in_thread(mounts)
    yield {"url": url, "dist": dist, "scratch": scratch}
    server.shutdown()


def settle(page) -> None:
    """Wait until the history entry of a closed sheet is gone: closing a sheet takes it back
    (history.back(), answered later by a popstate), and a reload or a goto the test makes before
    then is cancelled by it (net::ERR_ABORTED). The page marks that entry {rkSheet: 1}."""
    page.wait_for_function("!(history.state && history.state.rkSheet) || document.getElementById('sheet').open")


@pytest.fixture(scope="module")
def browser():
    """One Chromium per test module (a renderer crash does not spill over the whole suite)."""
    with playwright_api.sync_playwright() as p:
        b = launch(p)
        yield b
        b.close()


def launch(p):
    """Debian's Chromium; or, for tools/suite_in_firefox.py's one-off run of the whole suite
    (RK_E2E_BROWSER=firefox), Debian's Firefox ESR through Playwright's WebDriver BiDi channel."""
    if os.environ.get("RK_E2E_BROWSER") == "firefox":
        _fill_clears_first()
        return p.firefox.launch(channel="moz-firefox", executable_path=shutil.which("firefox-esr"), headless=True)
    executable = os.environ.get("CHROMIUM") or "/usr/bin/chromium"
    return p.chromium.launch(executable_path=executable, headless=True, args=list(build.CHROMIUM_FLAGS))


def _fill_clears_first() -> None:
    """The one-off Firefox run's harness: Playwright's fill over WebDriver BiDi does not select what a
    number field holds first, so fill("2") on a field holding 1 made 12 (a person deletes, then types).
    Here a field is emptied before it is filled, as Chromium's fill does by itself."""
    from playwright.sync_api import Locator, Page

    if getattr(Locator.fill, "clears_first", False):
        return
    locator_fill = Locator.fill

    def fill(self, value, **kw):  # type: ignore[no-untyped-def]
        self.evaluate("e => { if ('value' in e) e.value = '' }")
        return locator_fill(self, value, **kw)

    def filled(self, selector, value, **kw):  # type: ignore[no-untyped-def]
        return fill(self.locator(selector).first, value, **kw)

    fill.clears_first = True  # type: ignore[attr-defined]
    Locator.fill, Page.fill = fill, filled  # type: ignore[method-assign]


@pytest.fixture
def context(browser, request):
    """A fresh browser profile at phone size; any console error on any of its pages fails the test."""
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=1)
    ctx.add_init_script("window.__rkNextTurnGuardMs = 0")  # scripted taps come faster than a thumb
    # The start-up memory snapshot is made in a worker a few seconds after each first start: that
    # would load a second Pyodide during most tests. test_snapshot.py switches it on.
    ctx.add_init_script("window.__rkSnapshot = window.__rkSnapshot || 'off'")
    errors: list[str] = []
    ctx.on("console", lambda m: m.type == "error" and errors.append(m.text))
    ctx.on("weberror", lambda e: errors.append(str(e.error)))
    yield ctx
    ctx.close()
    if not request.node.get_closest_marker("allow_console_errors"):
        assert errors == [], errors


class Watched:
    """A page with its console errors and every request URL recorded."""

    def __init__(self, page):
        self.page = page
        self.errors: list[str] = []
        self.requests: list[str] = []
        page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("request", lambda r: self.requests.append(r.url))


def wait_ready(page, timeout: int = READY_TIMEOUT_MS) -> None:
    page.wait_for_function(
        "['ready', 'failed'].includes(document.documentElement.dataset.engine)", timeout=timeout
    )
    state = page.evaluate("document.documentElement.dataset.engine")
    assert state == "ready", page.evaluate("document.getElementById('boot-error-text').textContent")


def open_app(context, url: str) -> Watched:
    watched = Watched(context.new_page())
    watched.page.goto(url)
    wait_ready(watched.page)
    return watched


def open_seeded(context, url: str, items: dict[str, str]) -> Watched:
    """`open_app` with stored keys already there: written by a script that runs before the page's
    own on its first load in this tab (not on a reload), so the engine starts once, not once and
    again after `seed`'s reload."""
    watched = Watched(context.new_page())
    stored = json.dumps({SITE_PREFIX + k: v for k, v in items.items()})
    watched.page.add_init_script(
        "(() => { if (!location.protocol.startsWith('http') || sessionStorage.getItem('rk-test-seeded')) return; sessionStorage.setItem('rk-test-seeded', '1');"
        f" for (const [k, v] of Object.entries({stored})) localStorage.setItem(k, v); }})()")
    watched.page.goto(url)
    wait_ready(watched.page)
    return watched


def wait_controlled(page) -> None:
    page.wait_for_function("navigator.serviceWorker && navigator.serviceWorker.controller !== null", timeout=60_000)
    # And the precache finished (the worker is activated only after install completed).
    page.wait_for_function("navigator.serviceWorker.controller.state === 'activated'", timeout=60_000)


def release(root: Path) -> str:
    """A new release of the site copied at `root`, as a deploy makes it: a file changes and build.py
    writes the new version into the page and the service worker. Returns the new version."""
    manifest = root / "manifest.webmanifest"
    data = json.loads(manifest.read_text())
    data["description"] += " (updated)"
    manifest.write_text(json.dumps(data))
    version = build.write_service_worker(root)
    # Revalidation goes by Last-Modified, which has a one-second grain: date the release ahead.
    later = time.time() + 10
    for changed in ("manifest.webmanifest", "index.html", "sw.js"):
        os.utime(root / changed, (later, later))
    return version


def add_combatant(page, name: str, hp: int | None = None, count: int | None = None, side: str | None = None,
                  init_mod: int | None = None, initiative: int | None = None, pc: bool = False) -> None:
    page.get_by_test_id("add-combatant").click()
    page.get_by_test_id("field-name").fill(name)
    if hp is not None:
        page.get_by_test_id("field-max_hp").fill(str(hp))
    if count is not None:
        page.get_by_test_id("field-count").fill(str(count))
    # Side and PC always set: the form starts as the last one added, and Party ticks PC by itself.
    page.get_by_test_id("field-side").select_option(side or "opponents")
    page.get_by_test_id("field-pc").select_option("1" if pc else "0")
    if init_mod is not None:
        page.get_by_test_id("field-init_mod").fill(str(init_mod))
    if initiative is not None:
        page.get_by_test_id("field-initiative").fill(str(initiative))
    page.get_by_test_id("save-combatant").click()
    page.wait_for_function("!document.getElementById('sheet').open")


def names(page) -> list[str]:
    return page.eval_on_selector_all(
        "#tracker [data-testid=combatant-row] .name", "els => els.map(e => e.firstChild.textContent)"
    )


SITE_PREFIX = "roundkeeper:/:"  # storage keys of the site served at /


def stored_fight(t) -> dict[str, str]:
    """The stored keys that make `t` the saved, current fight (as the app itself writes them)."""
    doc = timeline_to_dict(t)
    doc["rev"], doc["name"] = 1, t.present.name
    return {f"enc:{t.present.id}": dumps(doc),
            "index": json.dumps({"app": "roundkeeper", "schema": 1, "kind": "index", "current": t.present.id,
                                 "encounters": [{"id": t.present.id, "name": t.present.name}]})}


def seed(page, items: dict[str, str]) -> None:
    """Write stored keys (under the site at /) and reload."""
    page.evaluate("items => { for (const [k, v] of Object.entries(items)) localStorage.setItem(k, v); }",
                  {SITE_PREFIX + k: v for k, v in items.items()})
    settle(page)
    page.reload()
    wait_ready(page)


class NostrRelay:
    """A real Nostr relay (nostr-relay from PyPI, pinned in build.py's TEST_REQUIREMENTS) on the port the
    tests' build allows in its CSP (build.TEST_NOSTR), its events in a scratch SQLite file. Stopped and
    started again by the tests that take a relay down mid-fight."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = int(build.TEST_NOSTR.rsplit(":", 1)[1])
        self.proc: subprocess.Popen | None = None
        (folder / "relay.yaml").write_text(
            "DEBUG: false\nrelay_name: roundkeeper tests\nstorage:\n"
            f"  sqlalchemy.url: sqlite+aiosqlite:///{folder / 'events.sqlite3'}\n"
            "  validators:\n    - nostr_relay.validators.is_not_too_large\n    - nostr_relay.validators.is_signed\n"
            f"gunicorn:\n  bind: 127.0.0.1:{self.port}\n  workers: 1\n  loglevel: warning\n  reload: false\n"
            "authentication:\n  enabled: false\nmessage_timeout: 1800\nsubscription_limit: 32\n"
            "logging:\n  version: 1\n  disable_existing_loggers: true\n")

    def start(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            return
        binary = Path(sys.executable).parent / "nostr-relay"
        self.proc = subprocess.Popen([str(binary), "-c", str(self.folder / "relay.yaml"), "serve", "--use-uvicorn"],
                                     cwd=self.folder, stdout=subprocess.DEVNULL, stderr=(self.folder / "relay.log").open("ab"))
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("nostr-relay stopped: " + (self.folder / "relay.log").read_text()[-2000:])
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError("nostr-relay did not listen within 30 s")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self.proc = None


@pytest.fixture(scope="session")
def nostr_server(tmp_path_factory):
    relay = NostrRelay(tmp_path_factory.mktemp("nostr"))
    yield relay
    relay.stop()


@pytest.fixture
def nostr_relay(nostr_server):
    """The tests' Nostr relay, running at the test's start (a test may stop it and start it again), stopped after."""
    nostr_server.start()
    yield nostr_server
    nostr_server.stop()
