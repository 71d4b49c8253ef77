"""The live table with no internet: a player joins by two scans, with the camera, and no relay.

Each phone is its own Chromium (a browser's fake camera is set when it starts), whose names resolve
nowhere (`--host-resolver-rules`: the public relays cannot be reached, as with no internet) and
whose requests to anything but 127.0.0.1 are aborted. No relay runs. The game master's offer and
the player's answer travel as QR codes: a screenshot of the one phone's code is made into a video
(ffmpeg) that the other phone's Chromium plays as its camera (`--use-file-for-fake-video-capture`,
read again each time the camera opens), and the app's scanner reads it (ZXing-wasm: Chromium on
Linux has no BarcodeDetector). The phones then follow over WebRTC, host candidates only."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

import build
from tests.e2e.conftest import add_combatant, playwright_api, wait_ready
from tests.e2e.test_live import PHONE, rows, wait_live, wait_rows, wait_text


@pytest.fixture(autouse=True)
def _ffmpeg():
    if shutil.which("ffmpeg") is None:
        pytest.fail("ffmpeg not found: install Debian's ffmpeg (.ci/run and `python3 build.py test` as root do)")


OFFLINE_FLAGS = ("--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1", "--use-fake-ui-for-media-stream",
                 "--use-fake-device-for-media-stream")
JOIN_MS = 30_000


class Phone:
    """One phone: its own Chromium (for its own camera), one context limited to 127.0.0.1, one page."""

    def __init__(self, pw, tmp: Path, name: str) -> None:
        self.camera = tmp / f"{name}-camera.y4m"
        blank(self.camera)
        executable = os.environ.get("CHROMIUM") or "/usr/bin/chromium"
        self.browser = pw.chromium.launch(executable_path=executable, headless=True, args=[
            *build.CHROMIUM_FLAGS, *OFFLINE_FLAGS, f"--use-file-for-fake-video-capture={self.camera}"])
        self.context = self.browser.new_context(viewport=PHONE, device_scale_factor=1)
        self.context.grant_permissions(["camera"])
        self.context.add_init_script("window.__rkNextTurnGuardMs = 0")
        self.context.add_init_script("window.__rkSnapshot = window.__rkSnapshot || 'off'")
        self.left: list[str] = []
        self.context.route(re.compile(r"^(?!https?://127\.0\.0\.1[:/]).*"), self._abort)
        self.page = self.context.new_page()
        self.console: list[str] = []
        self.page.on("console", lambda m: self.console.append(f"{m.type}: {m.text}"[:500]))
        self.page.on("pageerror", lambda e: self.console.append(f"pageerror: {e}"[:500]))

    def _abort(self, route) -> None:
        self.left.append(route.request.url)
        route.abort()

    def show(self, test_id: str) -> None:
        """What this phone's screen shows at `test_id` (a QR code), as the other phone's camera will see it."""
        box = self.page.get_by_test_id(test_id)
        box.wait_for(state="visible")
        png = self.camera.with_suffix(".png")
        box.screenshot(path=str(png))
        return png

    def close(self) -> None:
        self.browser.close()


def blank(path: Path) -> None:
    subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "color=c=gray:s=640x480:r=10", "-frames:v", "5",
                    "-pix_fmt", "yuv420p", str(path)], check=True)


def film(png: Path, camera: Path) -> None:
    """A screenshot of a code as a phone camera sees it: on a grey table, smaller than the frame."""
    subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-i", str(png), "-vf",
                    "scale=400:400:force_original_aspect_ratio=decrease,pad=640:480:(ow-iw)/2:(oh-ih)/2:color=gray,format=yuv420p",
                    "-r", "10", "-frames:v", "10", str(camera)], check=True)


@pytest.fixture(scope="module")
def pw():
    with playwright_api.sync_playwright() as p:
        yield p


def start_gm(phone: Phone, url: str) -> None:
    page = phone.page
    page.goto(url + "/?seed=3&relays=ws://127.0.0.1:47913&nostr=")  # a relay that is not running: "cannot be reached"
    wait_ready(page)
    add_combatant(page, "Aldric", 30, side="party")
    add_combatant(page, "Brin", 24, side="party")
    add_combatant(page, "Goblin", 7)
    page.get_by_test_id("menu-button").click()
    page.get_by_test_id("live-table").click()
    wait_text(page, "relays-state", "cannot be reached", 20_000)
    page.get_by_test_id("live-offline").click()
    page.get_by_test_id("offer-qr").wait_for(state="visible", timeout=20_000)


def join_by_camera(gm: Phone, player: Phone, url: str) -> tuple[float, int]:
    """Two scans, with the cameras: the seconds from the player's first scan to live, and the
    version of the player's answer's QR code."""
    film(gm.show("offer-qr"), player.camera)
    page = player.page
    if "127.0.0.1" not in page.url:
        page.goto(url + "/")
        wait_ready(page)
    page.get_by_test_id("menu-button").click()
    began = time.monotonic()
    page.get_by_test_id("join-table").click()
    page.get_by_test_id("answer-qr").wait_for(state="visible", timeout=JOIN_MS)
    version = int(page.get_by_test_id("answer-qr").get_attribute("data-version"))
    film(player.show("answer-qr"), gm.camera)
    gm.page.get_by_test_id("scan-open").click()
    wait_live(page, JOIN_MS)
    took = time.monotonic() - began
    blank(gm.camera)  # the camera no longer sees that answer
    return took, version


def new_offer(gm: Phone, old: str) -> str:
    """The game master's phone makes the next code as soon as an answer is read."""
    gm.page.wait_for_function("old => { const f = document.querySelector('[data-testid=offer-code]');"
                              " return f && f.value.includes('#join=') && f.value !== old }", arg=old, timeout=JOIN_MS)
    return gm.page.get_by_test_id("offer-code").input_value()


def paste(page, text: str) -> None:
    page.get_by_test_id("scan-paste").fill(text)
    page.get_by_test_id("scan-submit").click()


def test_a_game_master_and_two_players_join_with_no_relay_by_camera(pw, site, tmp_path):
    """Ana and Bo join by camera, both ways; Cy, on a laptop, by pasting the codes: first the offer
    Ana answered (refused, Ana keeps her connection), then the new one. Claims, the turns, a phone
    that drops; nothing asked of any address but 127.0.0.1."""
    url = site["url"]
    phones = gm, ana, bo, cy = [Phone(pw, tmp_path, name) for name in ("gm", "ana", "bo", "cy")]
    try:
        start_gm(gm, url)
        first_offer = gm.page.get_by_test_id("offer-code").input_value()
        assert "#join=RK" in first_offer
        offer_version = int(gm.page.get_by_test_id("offer-qr").get_attribute("data-version"))
        ana_s, answer_version = join_by_camera(gm, ana, url)
        wait_rows(ana.page, ["Aldric", "Brin", "Goblin"])
        second_offer = new_offer(gm, first_offer)
        bo_s, _ = join_by_camera(gm, bo, url)
        wait_rows(bo.page, ["Aldric", "Brin", "Goblin"])
        third_offer = new_offer(gm, second_offer)
        wait_text(gm.page, "live-followers", r"^2 phones follow")

        # Cy pastes the offer Ana answered: Cy's answer is refused on the game master's phone, Ana stays.
        cy.page.goto(url + "/")
        wait_ready(cy.page)
        cy.page.get_by_test_id("menu-button").click()
        cy.page.get_by_test_id("join-table").click()
        paste(cy.page, "hello, this is not a code")
        wait_text(cy.page, "scan-error", "not a Roundkeeper table code")
        damaged = first_offer[:-6] + ("A" if first_offer[-6] != "A" else "B") + first_offer[-5:]
        paste(cy.page, damaged)
        wait_text(cy.page, "scan-error", "damaged")
        paste(cy.page, first_offer)
        cy.page.get_by_test_id("answer-code").wait_for(timeout=JOIN_MS)
        cy.page.wait_for_function("document.querySelector('[data-testid=answer-code]').value.startsWith('RK')")
        stale_answer = cy.page.get_by_test_id("answer-code").input_value()
        gm.page.get_by_test_id("scan-open").click()
        paste(gm.page, first_offer)
        wait_text(gm.page, "scan-error", "game master's code")
        paste(gm.page, stale_answer)
        wait_text(gm.page, "scan-error", "read already")
        gm.page.get_by_test_id("scan-back").click()
        assert gm.page.get_by_test_id("offer-code").input_value() == third_offer
        time.sleep(2)
        wait_live(ana.page, 1000)
        wait_text(gm.page, "live-followers", r"^2 phones follow")

        # Then the new code, opened as a link (as a phone's own camera app opens it), the answer pasted: Cy follows too.
        cy.page.goto(third_offer)
        cy.page.wait_for_function("old => (document.querySelector('[data-testid=answer-code]')?.value || '').startsWith('RK')"
                                  " && document.querySelector('[data-testid=answer-code]').value !== old", arg=stale_answer)
        gm.page.get_by_test_id("scan-open").click()
        paste(gm.page, cy.page.get_by_test_id("answer-code").input_value())
        wait_live(cy.page, JOIN_MS)
        wait_text(gm.page, "live-followers", r"^3 phones follow")

        # The same requests as through the relays: Ana claims Aldric; the game master approves.
        gm.page.get_by_test_id("close-sheet").click()
        ana.page.get_by_test_id("claim").filter(has_text="Aldric").click()
        gm.page.get_by_test_id("request").filter(has_text="asks to play Aldric").wait_for()
        gm.page.get_by_test_id("request-apply").click()
        wait_text(ana.page, "live-you", "^Aldric$")

        # The fight moves on the game master's phone; every player follows it.
        gm.page.get_by_test_id("start-combat").click()
        if gm.page.get_by_test_id("init-done").count():
            gm.page.get_by_test_id("init-done").click()
        gm.page.wait_for_function("document.querySelector('[data-testid=turn-now]') !== null")
        for _ in range(4):
            gm.page.get_by_test_id("next-turn").click()
            now = gm.page.eval_on_selector("[data-testid=combatant-row][aria-current=true] .name", "e => e.firstChild.textContent")
            for p in (ana, bo, cy):
                wait_text(p.page, "view-now", f"^{re.escape(now)}$")
        assert rows(ana.page) == rows(bo.page) == rows(cy.page)

        # A phone drops: the game master's phone says which, and how it comes back; the fight goes on.
        bo.close()
        phones.remove(bo)
        gm.page.get_by_test_id("menu-button").click()
        gm.page.get_by_test_id("live-table").click()
        wait_text(gm.page, "live-followers", "disconnected: join it again with two scans", 45_000)
        gm.page.get_by_test_id("close-sheet").click()
        gm.page.get_by_test_id("next-turn").click()
        now = gm.page.eval_on_selector("[data-testid=combatant-row][aria-current=true] .name", "e => e.firstChild.textContent")
        wait_text(ana.page, "view-now", f"^{re.escape(now)}$")

        assert not gm.left and not ana.left and not cy.left, (gm.left, ana.left, cy.left)
        print(f"\noffer QR version {offer_version}, answer QR version {answer_version}; "
              f"first scan to live: Ana {ana_s:.1f} s, Bo {bo_s:.1f} s")
    finally:
        for p in phones:
            if os.environ.get("RK_DEBUG"):
                print(p.camera.stem, p.page.evaluate("document.querySelector('[data-testid=live-followers]')?.textContent"))
                p.page.screenshot(path=str(Path("/tmp") / f"offline-{p.camera.stem}.png"))
                print(p.camera.stem, "\n".join(c for c in p.console[-15:] if "WebSocket" not in c))
            p.close()
