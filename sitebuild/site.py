"""The site assembled in one folder: runtimes, our code, the generated facts, the rules page (a small
markdown renderer) and the service worker with the hash of every file."""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
import shutil
import sys
from pathlib import Path

from .config import APP_NAME, DIST, PYSCRIPT_PLUGINS_OFF, ROOT, STATIC, log
from .ours import build_web_zip, build_wheel, drop_pyscript_writes
from .runtimes import (
    connect_src,
    copy_pyodide,
    copy_pyscript,
    copy_trystero,
    copy_zxing,
    ensure_runtimes,
    srd_library_text,
    write_early_defaults,
    write_facts,
    write_view_markup,
)

__all__ = ["build"]

def build(out: Path = DIST, full_stdlib: bool = False, relays: tuple[str, ...] = ()) -> Path:
    """Make the deployable site in `out`; `relays`: live-table relays allowed beside the defaults."""
    modules = ensure_runtimes()
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    copy_pyodide(modules, out, full_stdlib)
    copy_pyscript(modules, out)
    copy_trystero(modules, out)
    copy_zxing(modules, out)
    wheel = build_wheel(out)
    web_zip = build_web_zip(out)
    drop_pyscript_writes(out, web_zip)
    config = {
        # Our module in front of Pyodide's loadPyodide: it starts from a memory snapshot when it can.
        "interpreter": "./interpreter.mjs",
        "plugins": [f"!{name}" for name in PYSCRIPT_PLUGINS_OFF],
    }
    (out / "pyscript.json").write_text(json.dumps(config, indent=1))
    for path in STATIC.rglob("*"):
        if path.is_file() and path.name != "sw.js":
            target = out / path.relative_to(STATIC)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
    # PyScript loads every plugin once for each interpreter type that has no config of its own;
    # an inline MicroPython config (no MicroPython script runs) switches them off there too.
    index = out / "index.html"
    page = index.read_text().replace('"__PLUGINS_OFF__"', json.dumps(config["plugins"]))
    # Our code, fetched by interpreter.mjs as the start begins and put in place (static/ours.mjs) before PyScript runs
    # (not PyScript's `files`, which it fetches only once the interpreter is up).
    if '<meta name="rk-files" content="">' not in page:
        sys.exit("static/index.html: the rk-files meta is not where build.py expects it")
    # Each with its hash (subresource integrity): fetch() refuses a damaged download at once, so a bad
    # archive is a failed start and not an import that fails later (zipimport reads it lazily).
    ours = " ".join(f"./{name} sha384-{base64.b64encode(hashlib.sha384((out / name).read_bytes()).digest()).decode()}" for name in (wheel, web_zip))
    page = page.replace('<meta name="rk-files" content="">', f'<meta name="rk-files" content="{ours}">')
    if "connect-src 'self';" not in page:
        sys.exit("static/index.html: the CSP's connect-src is not where build.py expects it")
    index.write_text(page.replace("connect-src 'self';", f"connect-src {connect_src(relays)};"))
    write_early_defaults(out)
    write_facts(out)
    write_view_markup(out)
    from pyengine.systems.srd import LIBRARY_FILE

    library = srd_library_text()
    (out / LIBRARY_FILE).parent.mkdir(parents=True, exist_ok=True)
    (out / LIBRARY_FILE).write_text(library, encoding="utf-8")  # fetched on the library's first use, precached
    (out / "rules.html").write_text(rules_page((ROOT / "docs" / "rules.md").read_text(), json.loads(library)["attribution"]))
    write_service_worker(out)
    log(f"built {out} ({sum(p.stat().st_size for p in out.rglob('*') if p.is_file()) / 1e6:.1f} MB)")
    return out


def _inline(text: str) -> str:
    """Markdown's inline marks we use (**bold**, *emphasis*, `code`) on escaped text."""
    text = html.escape(text, quote=False)
    text = re.sub(r"`([^`]+)`", r"<code>\1</code>", text)
    text = re.sub(r"\*\*([^*]+)\*\*", r"<b>\1</b>", text)
    return re.sub(r"(?<![*\w])\*([^*]+)\*(?![*\w])", r"<em>\1</em>", text)


def markdown_html(text: str) -> str:
    """The small part of Markdown docs/rules.md uses: headings, paragraphs, lists, tables."""
    out: list[str] = []
    block: list[str] = []
    kind = ""

    def flush() -> None:
        nonlocal block, kind
        if kind == "p":
            out.append(f"<p>{_inline(' '.join(block))}</p>")
        elif kind == "ul":
            out.append("<ul>" + "".join(f"<li>{_inline(item)}</li>" for item in block) + "</ul>")
        elif kind == "table":
            rows = [[c.strip() for c in r.strip().strip("|").split("|")] for r in block if not re.match(r"^\|[-| ]+\|$", r.strip())]
            head, body = rows[0], rows[1:]
            out.append("<table><thead><tr>" + "".join(f"<th>{_inline(c)}</th>" for c in head) + "</tr></thead><tbody>"
                       + "".join("<tr>" + "".join(f"<td>{_inline(c)}</td>" for c in r) + "</tr>" for r in body) + "</tbody></table>")
        block, kind = [], ""

    for line in text.splitlines():
        heading = re.match(r"^(#{1,3}) (.*)$", line)
        if heading:
            flush()
            level = len(heading.group(1))
            out.append(f"<h{level}>{_inline(heading.group(2))}</h{level}>")
        elif not line.strip():
            flush()
        elif line.startswith("|"):
            if kind != "table":
                flush()
                kind = "table"
            block.append(line)
        elif line.startswith("- "):
            if kind != "ul":
                flush()
                kind = "ul"
            block.append(line[2:])
        elif kind == "ul" and line.startswith("  "):
            block[-1] += " " + line.strip()
        else:
            if kind not in ("p",):
                flush()
                kind = "p"
            block.append(line.strip())
    flush()
    return "\n".join(out)


def rules_page(markdown: str, attribution: str = "") -> str:
    """docs/rules.md as a page of the site (offline like the rest), under the same policy; with the
    creature library's attribution, word for word from its package (its licence requires it)."""
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        '<link rel="icon" type="image/png" sizes="192x192" href="./icons/icon-192.png">'  # (else the browser asks for /favicon.ico)
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'self'; style-src 'unsafe-inline'; "
        "base-uri 'none'; object-src 'none'; form-action 'none'\">"
        "<title>Roundkeeper: rules reference</title><style>"
        ":root{color-scheme:light dark}body{font:16px/1.5 system-ui,sans-serif;max-width:760px;margin:0 auto;padding:16px}"
        "table{border-collapse:collapse;display:block;overflow-x:auto}td,th{border:1px solid #8888;padding:4px 8px;text-align:left}"
        "code{font-size:90%}a{min-height:44px;display:inline-flex;align-items:center}"
        '</style></head><body><p><a href="./">← Back to Roundkeeper</a></p>'
        + markdown_html(markdown)
        + (f'<h2>Creature library: attribution</h2><p data-testid="srd-attribution">{html.escape(attribution)}</p>' if attribution else "")
        + "</body></html>\n"
    )


def write_service_worker(out: Path) -> str:
    """Write sw.js with a precache list and a version derived from the content of every file."""
    files = sorted(
        p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file() and p.name != "sw.js"
    )
    digest = hashlib.sha256()
    for name in files:
        data = (out / name).read_bytes()
        if name == "index.html":  # the version written into the page must not change the version
            data = re.sub(rb'<meta name="rk-version" content="[^"]*">', b"", data)
        digest.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
    version = digest.hexdigest()[:16]
    urls = ["./"] + [f"./{name}" for name in files]
    template = (STATIC / "sw.js").read_text()
    text = template.replace("__VERSION__", version).replace("__APP__", APP_NAME)
    text = text.replace("__PRECACHE__", json.dumps(urls, indent=1))
    (out / "sw.js").write_text(text)
    # The page learns its own version too, so it can tell an update apart from itself.
    index = out / "index.html"
    html = index.read_text()
    html = re.sub(r'<meta name="rk-version" content="[^"]*">', f'<meta name="rk-version" content="{version}">', html)
    index.write_text(html)
    return version
