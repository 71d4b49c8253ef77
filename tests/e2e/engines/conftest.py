"""The cross-engine tests' fixtures (issue 48): each test runs once in WebKit and once in Firefox,
Debian's own packages, through `driver.py`'s one page interface. `build.py test` installs both and
sets RK_ENGINES=required: then a missing engine fails the run instead of skipping its tests."""

from __future__ import annotations

import os

import pytest

from tests.e2e.engines.driver import EnginePage, Unavailable, open_engine, xvfb_display

ENGINES = ("webkit", "firefox")
# As the Chromium suite's context: scripted taps come faster than a thumb; the start-up snapshot is
# made only where a test asks. (Firefox runs them before the page's own scripts; WebKit's WebDriver
# has no such hook, so its tests pace their taps.)
INIT = ("window.__rkNextTurnGuardMs = 0; window.__rkSnapshot = window.__rkSnapshot || 'off';",)


def _unavailable(why: str) -> None:
    if os.environ.get("RK_ENGINES") == "required":
        pytest.fail(why)
    pytest.skip(why)


@pytest.fixture(scope="session")
def display():
    try:
        name, process = xvfb_display()
    except Unavailable:
        yield None
        return
    yield name
    if process is not None:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture(params=ENGINES)
def engine(request, display) -> EnginePage:
    if request.param == "webkit" and display is None:
        _unavailable("no X display for WebKitGTK (apt-get install xvfb)")
    try:
        page = open_engine(request.param, display or "", INIT)
    except Unavailable as error:
        _unavailable(str(error))
    yield page
    page.close()
