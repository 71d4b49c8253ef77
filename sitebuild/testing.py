"""The tests and their environment: the venv, Chromium, Debian's WebKit and Firefox drivers, and the
suite in two processes side by side, the wall-clock files alone."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .config import DIST, ROOT, TEST_NOSTR, TEST_RELAY, TEST_REQUIREMENTS, log
from .runtimes import ensure_runtimes
from .site import build

__all__ = []

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


def js_checks(modules: Path) -> dict[str, list[str]]:
    """The JavaScript's checks (issue 49, item 4): ESLint's rules and one dialect (eslint.config.mjs), and
    its types from JSDoc by tsc --checkJs, the page's files and the workers' apart (tsconfig*.json)."""
    node = shutil.which("node") or "node"
    return {"eslint": [node, str(modules / "eslint" / "bin" / "eslint.js"), "."],
            "tsc": [node, str(modules / "typescript" / "bin" / "tsc"), "-p", "tsconfig.json"],
            "tsc (workers)": [node, str(modules / "typescript" / "bin" / "tsc"), "-p", "tsconfig.workers.json"]}


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
    modules = ensure_runtimes()  # (node_modules: the JavaScript's checks are among its devDependencies)
    checks = {"ruff": [str(python), "-m", "ruff", "check", "."], "mypy": [str(python), "-m", "mypy"], **js_checks(modules)}
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
