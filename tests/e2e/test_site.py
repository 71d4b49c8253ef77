"""The offline site: boot under / and a sub-path, own-origin only, offline, instant snapshot,
updates, sibling sites, storage refused, installability."""

from __future__ import annotations

from urllib.parse import urlparse

import pytest

from tests.e2e.conftest import Watched, add_combatant, names, open_app, release, wait_controlled, wait_ready


@pytest.mark.parametrize("base", ["/", "/sub/"])
def test_boots_with_engine_ready_no_errors_and_only_own_origin(context, site, base):
    app = open_app(context, site["url"] + base)
    page = app.page
    assert page.get_by_test_id("engine-status").is_hidden()
    assert page.get_by_test_id("next-turn").is_visible()
    origin = urlparse(site["url"]).netloc
    foreign = [u for u in app.requests if urlparse(u).scheme in ("http", "https") and urlparse(u).netloc != origin]
    assert foreign == []
    assert any(u.endswith("/pyodide/pyodide.asm.wasm") for u in app.requests)
    assert all(urlparse(u).path.startswith(base) for u in app.requests if urlparse(u).scheme.startswith("http"))
    assert app.errors == []


def test_the_head_asks_for_the_engines_loader_at_once_but_not_on_a_live_link_or_the_display(context, site):
    """static/preload.js: the loader's modules are fetched while the page is read (module preloads),
    each once (the loader's own <script> uses them); a live link and the table display hold the
    engine back (boot.js), so nothing is asked for there."""
    page = open_app(context, site["url"] + "/").page
    hrefs = page.evaluate("[...document.querySelectorAll('link[rel=modulepreload]')].map(l => l.href)")
    assert [urlparse(h).path for h in hrefs] == ["/interpreter.mjs", "/ours.mjs", "/pyodide/pyodide.mjs"]
    assert page.evaluate("(urls) => urls.map(u => performance.getEntriesByName(u).length)", hrefs) == [1, 1, 1]
    for route in ("#display", "#live=x"):
        other = context.new_page()
        other.goto(site["url"] + "/" + route)  # after its load event: preload.js has run
        assert other.evaluate("document.documentElement.dataset.route") in ("display", "follow")
        assert other.evaluate("document.querySelectorAll('link[rel=modulepreload]').length") == 0
        other.close()


def test_offline_after_one_visit_reload_and_new_tab_keep_the_fight(context, site):
    app = open_app(context, site["url"] + "/sub/")
    wait_controlled(app.page)
    add_combatant(app.page, "Offline Ogre", hp=59)
    context.set_offline(True)
    try:
        app.page.reload()
        wait_ready(app.page)
        assert names(app.page) == ["Offline Ogre"]
        second = Watched(context.new_page())
        second.page.goto(site["url"] + "/sub/?seed=3")
        wait_ready(second.page)
        assert names(second.page) == ["Offline Ogre"]
        assert second.errors == []
    finally:
        context.set_offline(False)


def test_saved_snapshot_shows_before_the_engine_is_ready(context, site):
    app = open_app(context, site["url"] + "/")
    add_combatant(app.page, "Snapshot Sally", hp=12)
    page = context.new_page()
    page.add_init_script(
        "document.addEventListener('DOMContentLoaded', () => {"
        " window.__atDcl = {engine: document.documentElement.dataset.engine || '',"
        " tracker: document.getElementById('tracker').textContent,"
        " inert: document.getElementById('tracker').hasAttribute('inert'),"
        " status: getComputedStyle(document.getElementById('engine-status')).display};"
        "});"
    )
    page.goto(site["url"] + "/")
    wait_ready(page)
    seen = page.evaluate("window.__atDcl")
    assert seen["engine"] == ""
    assert "Snapshot Sally" in seen["tracker"]
    assert seen["inert"] is True  # read-only until Python takes over
    assert seen["status"] != "none"  # "starting engine" shows meanwhile
    assert page.evaluate("document.documentElement.dataset.snapshot") == "shown"
    assert not page.get_by_test_id("tracker").evaluate("e => e.hasAttribute('inert')")


def test_engine_that_cannot_start_says_so_and_retry_works(browser, site):
    ctx = browser.new_context(service_workers="block")
    try:
        app = open_app(ctx, site["url"] + "/")
        add_combatant(app.page, "Stays Visible")
        page = ctx.new_page()
        page.route("**/pyscript/core.js", lambda route: route.abort())
        page.goto(site["url"] + "/")
        page.wait_for_function("document.documentElement.dataset.engine === 'failed'", timeout=30_000)
        assert page.get_by_test_id("boot-error").is_visible()
        assert "Stays Visible" in page.get_by_test_id("tracker").inner_text()
        page.unroute("**/pyscript/core.js")
        page.get_by_test_id("boot-retry").click()
        wait_ready(page)
        assert page.get_by_test_id("boot-error").is_hidden()
    finally:
        ctx.close()


def test_python_error_at_start_shows_failure_not_a_blank_page(browser, site):
    ctx = browser.new_context(service_workers="block")
    try:
        page = ctx.new_page()
        # A damaged download of our code: Python cannot import the app.
        page.route("**/web.zip", lambda route: route.fulfill(status=200, body=b"PK\x03\x04 not a zip", content_type="application/zip"))
        page.goto(site["url"] + "/")
        page.wait_for_function("document.documentElement.dataset.engine === 'failed'", timeout=60_000)
        assert page.get_by_test_id("boot-error").is_visible()
        assert page.get_by_test_id("boot-retry").is_visible()
        assert page.get_by_test_id("tracker").is_visible()
    finally:
        ctx.close()


def test_update_shows_banner_and_keeps_sibling_caches(context, site):
    scratch = site["scratch"]
    sibling = open_app(context, site["url"] + "/b/")
    wait_controlled(sibling.page)
    app = open_app(context, site["url"] + "/u/")
    wait_controlled(app.page)
    add_combatant(app.page, "Mid-fight Mage")
    before = app.page.evaluate("caches.keys()")
    new_version = release(scratch)
    app.page.evaluate("RK.swRegistration.update()")
    banner = app.page.get_by_test_id("update-banner")
    banner.wait_for(state="visible", timeout=60_000)
    assert names(app.page) == ["Mid-fight Mage"]  # nothing swapped under the running fight
    app.page.get_by_test_id("update-reload").click()
    app.page.wait_for_function(
        f"navigator.serviceWorker.controller && document.querySelector('meta[name=rk-version]').content === '{new_version}'",
        timeout=60_000,
    )
    wait_ready(app.page)
    assert names(app.page) == ["Mid-fight Mage"]
    after = app.page.evaluate("caches.keys()")
    assert any(k.startswith("roundkeeper:/u/:") and k.endswith(new_version) for k in after)
    assert not any(k.startswith("roundkeeper:/u/:") and not k.endswith(new_version) for k in after)
    sibling_caches = [k for k in before if k.startswith("roundkeeper:/b/:")]
    assert sibling_caches and all(k in after for k in sibling_caches)


def test_two_sub_paths_keep_separate_data_and_caches(context, site):
    a = open_app(context, site["url"] + "/a/")
    wait_controlled(a.page)
    add_combatant(a.page, "Alpha")
    b = open_app(context, site["url"] + "/b/")
    wait_controlled(b.page)
    assert names(b.page) == []
    add_combatant(b.page, "Bravo")
    a.page.reload()
    wait_ready(a.page)
    assert names(a.page) == ["Alpha"]
    keys = a.page.evaluate("Object.keys(localStorage)")
    assert keys and all(k.startswith("roundkeeper:/a/:") or k.startswith("roundkeeper:/b/:") for k in keys)
    assert any(k.startswith("roundkeeper:/b/:") for k in keys)
    cache_names = a.page.evaluate("caches.keys()")
    assert any(k.startswith("roundkeeper:/a/:") for k in cache_names)
    assert any(k.startswith("roundkeeper:/b/:") for k in cache_names)


def test_storage_that_throws_still_works_and_says_it_cannot_save(context, site):
    page = context.new_page()
    page.add_init_script(
        "Object.defineProperty(window, 'localStorage', {get() { throw new DOMException('blocked', 'SecurityError'); }});"
    )
    page.goto(site["url"] + "/")
    wait_ready(page)
    notice = page.get_by_test_id("notice").first
    assert "not letting Roundkeeper save" in notice.inner_text()
    add_combatant(page, "Ephemeral Elf", hp=9)
    assert names(page) == ["Ephemeral Elf"]
    page.get_by_test_id("next-turn").click()
    assert page.get_by_test_id("round-counter").inner_text().startswith("Round 1")


def test_installable_manifest_icons_and_meta(context, site):
    app = open_app(context, site["url"] + "/sub/")
    page = app.page
    manifest = page.evaluate("fetch('manifest.webmanifest').then(r => r.json())")
    assert manifest["start_url"] == "./" and manifest["scope"] == "./"
    assert manifest["display"] == "standalone"
    assert manifest["theme_color"] and manifest["background_color"] and manifest["short_name"]
    sizes = {(i["sizes"], i.get("purpose", "any")) for i in manifest["icons"]}
    assert {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")} <= sizes
    for icon in manifest["icons"]:
        size = page.evaluate(
            "src => fetch(src).then(r => r.blob()).then(createImageBitmap).then(b => [b.width, b.height])", icon["src"]
        )
        assert f"{size[0]}x{size[1]}" == icon["sizes"]
    assert page.evaluate("document.querySelector('link[rel=apple-touch-icon]').href").startswith(site["url"] + "/sub/")
    assert "width=device-width" in page.evaluate("document.querySelector('meta[name=viewport]').content")


def test_fixed_dice_are_said_in_the_header_and_one_tap_makes_them_random(context, site):
    """?seed=N (the tests') fixes every roll; a link someone sends can carry it: the header says so
    while it is in the address, and its button reloads without it (the fight kept)."""
    page = open_app(context, site["url"] + "/?seed=5").page
    add_combatant(page, "Aldric", 30)
    fixed = page.get_by_test_id("fixed-dice")
    assert fixed.is_visible() and "seed=5" in fixed.get_attribute("title")
    box = fixed.bounding_box()
    assert box["height"] >= 44 and box["x"] + box["width"] <= 390
    fixed.click()
    page.wait_for_url(lambda url: "seed" not in url)
    wait_ready(page)
    assert page.get_by_test_id("fixed-dice").count() == 0
    assert names(page) == ["Aldric"]
    first = open_app(context, site["url"] + "/").page
    totals = set()
    for _ in range(8):
        first.get_by_test_id("roll-button").click()
        totals.add(first.get_by_test_id("history-item").first.inner_text())
    assert len(totals) > 1  # random again
