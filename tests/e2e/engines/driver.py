"""One driver layer for the cross-engine tests (issue 48): the same test drives Safari's engine and
Firefox, each from Debian's own packages, through this small page interface.

- **WebKit**: Debian's `webkit2gtk-driver` (`WebKitWebDriver` and its `MiniBrowser --automation`),
  driven by Selenium's WebKitGTK driver (PyPI, pinned) under a virtual X screen (Xvfb, started here).
  Clicks and typing are WebDriver's own (real input events).
- **Firefox**: Debian's `firefox-esr`, driven over **WebDriver BiDi** by the small client below (its
  Remote Agent is built into Firefox: no geckodriver, which Debian does not package and which
  Selenium would otherwise download). Clicks and typing are BiDi `input.performActions` (real input
  events), init scripts are BiDi preload scripts. Python rather than puppeteer-core over Node: the
  tests, the site's server, the relay fixtures and Chromium's Playwright are all in pytest already,
  and a mixed table (a game master in Chromium, a player in Firefox) runs in one test that way.

A page's JavaScript is given as a function body (`return …`), its arguments JSON, its result JSON."""

from __future__ import annotations

import base64
import copy
import itertools
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

__all__ = ["EnginePage", "FirefoxPage", "PlaywrightPage", "WebKitPage", "Unavailable", "WEBKIT_BINARY", "FIREFOX_BINARY", "open_engine", "tid", "xvfb_display"]

WEBKIT_BINARY = "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser"
WEBKIT_DRIVER = "/usr/bin/WebKitWebDriver"
FIREFOX_BINARY = os.environ.get("FIREFOX") or "/usr/bin/firefox-esr"
VIEWPORT = (390, 844)  # a phone, as the Chromium suite


class Unavailable(RuntimeError):
    """The engine is not on this machine (the test says so and is skipped)."""


def tid(test_id: str) -> str:
    return f'[data-testid="{test_id}"]'


def _wrapped(body: str) -> str:
    """A page function from a body: its arguments given as one JSON text, its result JSON text."""
    return ("async function (argsJson) { const args = JSON.parse(argsJson); "
            f"const value = await (async function () {{ {body} }}).apply(null, args); "
            "return JSON.stringify(value === undefined ? null : value); }")


class EnginePage:
    """A browser page of one engine, at phone size. Subclasses talk to the engine."""

    engine = ""

    def goto(self, url: str) -> None:
        raise NotImplementedError

    def reload(self) -> None:
        raise NotImplementedError

    def js(self, body: str, *args: Any) -> Any:
        """Run a function body in the page (awaited when it returns a promise); its JSON result."""
        raise NotImplementedError

    def click(self, selector: str) -> None:
        raise NotImplementedError

    def type_into(self, selector: str, text: str) -> None:
        raise NotImplementedError

    def screenshot(self, path: Path) -> None:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    # -- the same for every engine ------------------------------------------------------------

    def wait(self, expression: str, timeout: float = 30.0, *args: Any, what: str = "") -> Any:
        """Until the expression (over `args`) is truthy; its value. Times out with what the page says."""
        end = time.monotonic() + timeout
        last: Any = None
        while True:
            try:
                last = self.js(f"const v = ({expression}); return v && typeof v === 'object' ? true : v;", *args)
            except Exception as error:  # noqa: BLE001 - a navigation in progress: asked again
                last = error
            if last and not isinstance(last, Exception):
                return last
            if time.monotonic() > end:
                raise AssertionError(f"{self.engine}: timed out waiting for {what or expression} (last: {last!r})")
            time.sleep(0.1)

    def wait_ready(self, timeout: float = 90.0) -> None:
        state = self.wait("['ready', 'failed'].includes(document.documentElement.dataset.engine) && "
                          "document.documentElement.dataset.engine", timeout, what="the engine to start")
        assert state == "ready", self.js("return document.getElementById('boot-error-text').textContent")

    def fill(self, selector: str, text: str) -> None:
        """Empty a field, then type into it as a person would."""
        self.js("const e = document.querySelector(args[0]); e.focus(); e.value = ''; "
                "e.dispatchEvent(new Event('input', {bubbles: true}));", selector)
        self.type_into(selector, text)

    def select(self, selector: str, value: str) -> None:
        """A <select>'s choice (as its picker sets it: the value, then input and change)."""
        self.js("const e = document.querySelector(args[0]); e.value = args[1]; "
                "e.dispatchEvent(new Event('input', {bubbles: true})); e.dispatchEvent(new Event('change', {bubbles: true}));",
                selector, value)

    def text(self, selector: str) -> str:
        return str(self.js("const e = document.querySelector(args[0]); return e ? e.innerText : null;", selector) or "")

    def count(self, selector: str) -> int:
        return int(self.js("return document.querySelectorAll(args[0]).length;", selector))

    def visible(self, selector: str) -> bool:
        return bool(self.js("const e = document.querySelector(args[0]); if (!e) return false; "
                            "const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0 && "
                            "getComputedStyle(e).visibility !== 'hidden';", selector))

    def wait_hittable(self, selector: str, timeout: float = 15.0) -> None:
        """As Playwright does before a click: the element scrolled into view, and the point at its
        centre is its own (not under a toast or a sheet that is closing)."""
        self.wait("(e => { if (!e) return false; e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
                  " const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);"
                  " return r.width > 0 && r.height > 0 && !!hit && e.contains(hit); })(document.querySelector(args[0]))",
                  timeout, selector, what=f"{selector} to be clickable")

    def click_text(self, selector: str, text: str) -> None:
        """Click the first element of `selector` whose text is `text` (a claim button, a request card's)."""
        self.js("document.querySelectorAll('[data-rk-pick]').forEach(e => e.removeAttribute('data-rk-pick'));"
                "const e = [...document.querySelectorAll(args[0])].find(x => x.textContent.trim() === args[1]);"
                "if (e) e.setAttribute('data-rk-pick', '1');", selector, text)
        self.click("[data-rk-pick]")

    def wait_closed_sheet(self) -> None:
        self.wait("!document.getElementById('sheet').open", what="the sheet to close")


# -- Chromium: Playwright (the main suite's), for a mixed table ------------------------------------

class PlaywrightPage(EnginePage):
    """A Chromium page of the main suite's Playwright, as the same interface: a game master in
    Chromium with a player in Firefox, and the reverse, run as one test."""

    engine = "chromium"

    def __init__(self, context: Any) -> None:
        self.page = context.new_page()
        self.version = str(context.browser.version) if context.browser else ""

    def goto(self, url: str) -> None:
        self.page.goto(url)

    def reload(self) -> None:
        self.page.reload()

    def js(self, body: str, *args: Any) -> Any:
        return json.loads(self.page.evaluate(f"({_wrapped(body)})", json.dumps(list(args))))

    def click(self, selector: str) -> None:
        self.page.click(selector)

    def type_into(self, selector: str, text: str) -> None:
        self.page.type(selector, text)

    def screenshot(self, path: Path) -> None:
        self.page.screenshot(path=str(path))

    def close(self) -> None:
        self.page.close()


# -- WebKit: Selenium's WebKitGTK driver ---------------------------------------------------------

class WebKitPage(EnginePage):
    engine = "webkit"

    def __init__(self, display: str) -> None:
        from selenium import webdriver
        from selenium.webdriver.webkitgtk.options import Options
        from selenium.webdriver.webkitgtk.service import Service

        if not (Path(WEBKIT_BINARY).exists() and Path(WEBKIT_DRIVER).exists()):
            raise Unavailable("WebKitGTK's WebDriver is not installed (apt-get install webkit2gtk-driver)")
        options = Options()
        options.binary_location = WEBKIT_BINARY
        options.add_argument("--automation")
        options.add_argument(f"--geometry={VIEWPORT[0]}x{VIEWPORT[1]}")
        env = {**os.environ, "DISPLAY": display}
        service = Service(executable_path=WEBKIT_DRIVER, env=env)
        self.driver = webdriver.WebKitGTK(options=options, service=service)
        self.driver.set_window_size(*VIEWPORT)
        self.driver.set_script_timeout(60)
        self.version = str(self.driver.capabilities.get("browserVersion", ""))

    def goto(self, url: str) -> None:
        self.driver.get(url)

    def reload(self) -> None:
        self.driver.refresh()

    def js(self, body: str, *args: Any) -> Any:
        script = ("const done = arguments[arguments.length - 1]; "
                  f"({_wrapped(body)})(arguments[0]).then(done, e => done(JSON.stringify({{__error: String(e && e.stack || e)}})));")
        out = json.loads(self.driver.execute_async_script(script, json.dumps(list(args))))
        if isinstance(out, dict) and "__error" in out:
            raise RuntimeError(out["__error"])
        return out

    def _element(self, selector: str) -> Any:
        from selenium.webdriver.common.by import By
        element = self.driver.find_element(By.CSS_SELECTOR, selector)
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
        return element

    def click(self, selector: str) -> None:
        self.wait_hittable(selector)
        self._element(selector).click()

    def type_into(self, selector: str, text: str) -> None:
        self._element(selector).send_keys(text)

    def screenshot(self, path: Path) -> None:
        self.driver.save_screenshot(str(path))

    def close(self) -> None:
        self.driver.quit()


# -- Firefox: WebDriver BiDi over a WebSocket ---------------------------------------------------

class FirefoxPage(EnginePage):
    engine = "firefox"

    def __init__(self, init_scripts: tuple[str, ...] = ()) -> None:
        from websockets.sync.client import connect

        if not shutil.which(FIREFOX_BINARY) and not Path(FIREFOX_BINARY).exists():
            raise Unavailable("Firefox is not installed (apt-get install firefox-esr)")
        self.profile = Path(tempfile.mkdtemp(prefix="rk-firefox-"))
        prefs = {
            "browser.shell.checkDefaultBrowser": False, "browser.startup.homepage_override.mstone": "ignore",
            "datareporting.policy.dataSubmissionEnabled": False, "toolkit.telemetry.reportingpolicy.firstRun": False,
            "app.update.disabledForTesting": True, "network.captive-portal-service.enabled": False,
            "network.connectivity-service.enabled": False, "browser.safebrowsing.update.enabled": False,
            "media.peerconnection.ice.loopback": True,          # the live table's candidates on 127.0.0.1
            "media.peerconnection.ice.no_host": False,
            "dom.serviceWorkers.testing.enabled": True,         # service workers on http://127.0.0.1
            "layout.css.devPixelsPerPx": "1.0",
        }
        (self.profile / "user.js").write_text("".join(f"user_pref({json.dumps(k)}, {json.dumps(v)});\n" for k, v in prefs.items()))
        port = _free_port()
        self.process = subprocess.Popen(
            [FIREFOX_BINARY, "--headless", "--no-remote", "--profile", str(self.profile), f"--remote-debugging-port={port}",
             f"--width={VIEWPORT[0]}", f"--height={VIEWPORT[1]}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, "MOZ_CRASHREPORTER_DISABLE": "1"})
        end = time.monotonic() + 60
        while True:
            try:
                self.socket = connect(f"ws://127.0.0.1:{port}/session", max_size=2**26, open_timeout=5).__enter__()
                break
            except OSError:
                if time.monotonic() > end or self.process.poll() is not None:
                    self.process.kill()
                    raise Unavailable("Firefox's WebDriver BiDi did not answer") from None
                time.sleep(0.2)
        self.ids = itertools.count(1)  # (shared with its other tabs: one connection, one numbering)
        self.events: list[dict[str, Any]] = []
        self.tab_of: FirefoxPage | None = None
        session = self.call("session.new", {"capabilities": {"alwaysMatch": {"acceptInsecureCerts": True}}})
        self.version = str(session.get("capabilities", {}).get("browserVersion", ""))
        for source in init_scripts:
            self.call("script.addPreloadScript", {"functionDeclaration": f"() => {{ {source} }}"})
        self.context = self.call("browsingContext.getTree", {})["contexts"][0]["context"]
        self.call("browsingContext.setViewport", {"context": self.context, "viewport": {"width": VIEWPORT[0], "height": VIEWPORT[1]}})

    def call(self, method: str, params: dict[str, Any], timeout: float = 120.0) -> Any:
        ident = next(self.ids)
        self.socket.send(json.dumps({"id": ident, "method": method, "params": params}))
        end = time.monotonic() + timeout
        while True:
            message = json.loads(self.socket.recv(timeout=max(0.1, end - time.monotonic())))
            if message.get("id") == ident:
                if message.get("type") == "error":
                    raise RuntimeError(f"{method}: {message.get('error')}: {message.get('message')}")
                return message.get("result")
            if message.get("type") == "event":
                self.events = (self.events + [message])[-200:]

    def goto(self, url: str) -> None:
        self.call("browsingContext.navigate", {"context": self.context, "url": url, "wait": "complete"})

    def opened_tab(self, known: set[str], timeout: float = 30.0) -> FirefoxPage:
        """The window the page opened (window.open), not one of `known`: the same interface, the same browser."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            new = [c["context"] for c in self.call("browsingContext.getTree", {"maxDepth": 0})["contexts"] if c["context"] not in known]
            if new:
                tab = copy.copy(self)
                tab.context, tab.tab_of = new[0], self
                return tab
            time.sleep(0.1)
        raise AssertionError("firefox: no window was opened")

    def tabs(self) -> set[str]:
        return {c["context"] for c in self.call("browsingContext.getTree", {"maxDepth": 0})["contexts"]}

    def hold(self, url: str) -> None:
        """Hold back every request for `url` (BiDi network interception) until `release`: the test's way
        to see what the page shows before its engine (Pyodide's WebAssembly held)."""
        self.call("session.subscribe", {"events": ["network.beforeRequestSent"]})
        self.intercept = self.call("network.addIntercept", {"phases": ["beforeRequestSent"],
                                                            "urlPatterns": [{"type": "string", "pattern": url}]})["intercept"]

    def release(self, timeout: float = 30.0) -> None:
        """Let the held requests go on (each one seen blocked), and hold no more."""
        self.call("network.removeIntercept", {"intercept": self.intercept})
        end = time.monotonic() + timeout
        released: set[str] = set()
        while time.monotonic() < end:
            blocked = {e["params"]["request"]["request"] for e in self.events
                       if e.get("method") == "network.beforeRequestSent" and e["params"].get("isBlocked")}
            for request in blocked - released:
                self.call("network.continueRequest", {"request": request})
                released.add(request)
            if released:
                return
            self.call("session.status", {})  # (reads the events that came meanwhile)
            time.sleep(0.1)
        raise AssertionError("firefox: no held request to release")

    def reload(self) -> None:
        self.call("browsingContext.reload", {"context": self.context, "wait": "complete"})

    def js(self, body: str, *args: Any) -> Any:
        out = self.call("script.callFunction", {
            "functionDeclaration": _wrapped(body), "arguments": [{"type": "string", "value": json.dumps(list(args))}],
            "target": {"context": self.context}, "awaitPromise": True, "resultOwnership": "none"})
        if out.get("type") == "exception":
            raise RuntimeError(out["exceptionDetails"].get("text", "an exception"))
        return json.loads(out["result"]["value"])

    def _element(self, selector: str) -> dict[str, Any]:
        out = self.call("script.callFunction", {
            "functionDeclaration": "function (s) { const e = document.querySelector(s); if (e) e.scrollIntoView({block: 'center'}); return e; }",
            "arguments": [{"type": "string", "value": selector}], "target": {"context": self.context},
            "awaitPromise": False, "resultOwnership": "root"})
        node = out.get("result", {})
        if node.get("type") != "node":
            raise AssertionError(f"firefox: no element {selector}")
        return {"sharedId": node["sharedId"]}

    def click(self, selector: str) -> None:
        # The page may redraw between the check and the pointer's move (a sheet redrawn once typing
        # stops: seen once, the Save button then 9 px below the viewport): checked and moved again.
        for attempt in range(3):
            self.wait_hittable(selector)
            element = self._element(selector)
            try:
                self.call("input.performActions", {"context": self.context, "actions": [{
                    "type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
                    "actions": [{"type": "pointerMove", "x": 0, "y": 0, "origin": {"type": "element", "element": element}},
                                {"type": "pointerDown", "button": 0}, {"type": "pointerUp", "button": 0}]}]})
            except RuntimeError as error:
                if "out of bounds" not in str(error) or attempt == 2:
                    raise
                time.sleep(0.2)
                continue
            finally:
                self.call("input.releaseActions", {"context": self.context})
            return

    def type_into(self, selector: str, text: str) -> None:
        self.js("document.querySelector(args[0]).focus();", selector)
        keys: list[dict[str, Any]] = []
        for ch in text:
            keys += [{"type": "keyDown", "value": ch}, {"type": "keyUp", "value": ch}]
        self.call("input.performActions", {"context": self.context, "actions": [{"type": "key", "id": "keyboard", "actions": keys}]})

    def screenshot(self, path: Path) -> None:
        data = self.call("browsingContext.captureScreenshot", {"context": self.context})["data"]
        path.write_bytes(base64.b64decode(data))

    def close(self) -> None:
        if self.tab_of is not None:  # a window it opened: that window only
            self.call("browsingContext.close", {"context": self.context})
            return
        try:
            self.call("browser.close", {}, timeout=10)
        except Exception:  # noqa: BLE001 - it may be gone already
            pass
        try:
            self.socket.close()
        finally:
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
            shutil.rmtree(self.profile, ignore_errors=True)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def xvfb_display() -> tuple[str, subprocess.Popen[bytes] | None]:
    """An X display for WebKitGTK: the one there is, else a new Xvfb (stopped by the caller)."""
    if os.environ.get("DISPLAY"):
        return os.environ["DISPLAY"], None
    xvfb = shutil.which("Xvfb")
    if not xvfb:
        raise Unavailable("Xvfb is not installed (apt-get install xvfb)")
    for number in range(91, 120):
        if Path(f"/tmp/.X{number}-lock").exists():
            continue
        process = subprocess.Popen([xvfb, f":{number}", "-screen", "0", "1024x900x24", "-nolisten", "tcp"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        end = time.monotonic() + 10
        while time.monotonic() < end and not Path(f"/tmp/.X11-unix/X{number}").exists():
            time.sleep(0.05)
        if process.poll() is None:
            return f":{number}", process
    raise Unavailable("no free X display for Xvfb")


def open_engine(engine: str, display: str = "", init_scripts: tuple[str, ...] = ()) -> EnginePage:
    if engine == "webkit":
        return WebKitPage(display)
    if engine == "firefox":
        return FirefoxPage(init_scripts)
    raise ValueError(engine)
