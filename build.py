#!/usr/bin/env python3
"""Roundkeeper's one entry point: build, serve, test and benchmark the static site.

    python3 build.py build [--out DIR]
    python3 build.py serve [--port N] [--base /sub/]
    python3 build.py test [pytest args...]
    python3 build.py bench [--runs N] [--skip-startup]

Standard library only. The Pyodide and PyScript runtimes come from the npm registry at the
versions pinned in package.json / package-lock.json (integrity hashes checked here too) and are
copied into the site, so the page never asks another origin for anything.

The pieces live in sitebuild/ (config, runtimes, ours, site, serve, testing); this file is the command
line, and names them for the tests and the bench (`build.build`, `build.DIST`, ...).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from sitebuild.config import (
    CHROMIUM_FLAGS,
    DIST,
    PYODIDE_FILES,
    PYSCRIPT_CHUNKS,
    ROOT,
    SITE_WHEELS,
    SRD_DATABASE,
    STATIC,
    TEST_NOSTR,
    TEST_RELAY,
    WHEEL_CACHE,
)
from sitebuild.ours import build_web_zip, build_wheel, drop_pyscript_writes, project_meta, pyscript_package, without_pyscript_writes
from sitebuild.runtimes import (
    TRYSTERO_PATCHES,
    connect_src,
    copy_trystero,
    ensure_runtimes,
    ensure_srd_package,
    ensure_wheels,
    facts,
    our_imports,
    patch_trystero,
    srd_library_text,
    wheel_name,
    write_facts,
)
from sitebuild.serve import gzip_size, make_server, normalise_base, serve_in_thread
from sitebuild.site import build, markdown_html, rules_page, write_service_worker
from sitebuild.testing import ALONE, NOT_IN_A_BROWSER, ON_RELAY_PORTS, ensure_venv, find_chromium, names_tests, run_tests

__all__ = ["CHROMIUM_FLAGS", "DIST", "PYODIDE_FILES", "PYSCRIPT_CHUNKS", "ROOT", "SITE_WHEELS", "SRD_DATABASE", "STATIC", "TEST_NOSTR", "TEST_RELAY", "WHEEL_CACHE", "connect_src", "copy_trystero", "patch_trystero", "TRYSTERO_PATCHES", "ensure_runtimes", "ensure_srd_package", "ensure_wheels", "our_imports", "srd_library_text", "wheel_name", "facts", "write_facts", "build_web_zip", "build_wheel", "drop_pyscript_writes", "project_meta", "pyscript_package", "without_pyscript_writes", "build", "markdown_html", "rules_page", "write_service_worker", "gzip_size", "make_server", "normalise_base", "serve_in_thread", "ALONE", "NOT_IN_A_BROWSER", "ON_RELAY_PORTS", "ensure_venv", "find_chromium", "names_tests", "run_tests", "main"]


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
                                            "startup", "work", "engines", "display", "typing", "late-join", "flood"),
                         help="only these figures (the no-internet live table; the journal; renderer crashes with and "
                              "without JSPI; the dice and tracker engine; the taps of the table's common actions; the creature library; "
                              "the live table over the relay; a first-time player's link to the first live view, throttled; "
                              "start-up in Chromium, WebKit and Firefox side by side; the table display's lag; typing in the roller; a phone joining a table live for minutes, about 12 min; the 3,000-request flood alone, --runs times)")
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
