"""QR codes on the share screen, drawn by segno (a pure-Python encoder from PyPI).

segno is not part of the start: the first time a code is drawn, micropip (from the site's own
pyodide/ folder) installs segno's wheel from the site's own wheels/ folder, and the few standard
library modules they need beyond the page's own come from wheels/stdlib-extra.zip. Everything is
same-origin and precached by the service worker, so it works with no network.
"""

from __future__ import annotations

import sys
from types import ModuleType

__all__ = ["SEGNO_WHEEL", "STDLIB_EXTRA", "load_segno", "loaded", "qr_svg"]

SEGNO_WHEEL = "segno-1.6.6-py3-none-any.whl"   # pinned in build.py's SITE_WHEELS (a unit test checks they agree)
STDLIB_EXTRA = "stdlib-extra.zip"
_segno: ModuleType | None = None


def _site(path: str) -> str:
    from pyscript import document, window  # the browser's (this module's constants are read by build tests too)

    return str(window.URL.new(path, document.baseURI).href)


async def load_segno() -> ModuleType:
    """segno, installed on first use (then imported from the page's Python)."""
    global _segno
    if _segno is not None:
        return _segno
    import pyodide_js
    from pyscript import window

    extra = "/tmp/rk-stdlib-extra.zip"
    try:
        if extra not in sys.path:
            response = await window.fetch(_site(f"./wheels/{STDLIB_EXTRA}"))  # the browser's fetch: no pyodide.http at start
            if not response.ok:
                raise OSError(f"the QR encoder's files are missing ({response.status})")
            data = await response.arrayBuffer()
            with open(extra, "wb") as out:
                out.write(data.to_bytes())
            _add_to_path(extra)
        await pyodide_js.loadPackage("micropip")
        import micropip

        await micropip.install(_site(f"./wheels/{SEGNO_WHEEL}"))
        import segno
    except Exception:
        _forget(extra)  # a damaged file is not kept: the next try fetches it again (once the good one is back)
        raise

    module: ModuleType = segno
    _segno = module
    return module


def _forget(extra: str) -> None:
    """The extra zip out of every path it was put on, its cached importers and the file itself."""
    import importlib
    import os

    while extra in sys.path:
        sys.path.remove(extra)
    for module in list(sys.modules.values()):
        path = getattr(module, "__path__", None)
        if isinstance(path, list):
            path[:] = [p for p in path if not str(p).startswith(extra)]
    for key in [k for k in sys.path_importer_cache if str(k).startswith(extra)]:
        del sys.path_importer_cache[key]
    importlib.invalidate_caches()
    try:
        os.remove(extra)
    except OSError:
        pass


def _add_to_path(extra: str) -> None:
    """The extra modules importable: top-level ones by sys.path, and those inside packages the page
    already has (importlib.metadata beside importlib) by extending those packages' __path__."""
    import importlib

    sys.path.append(extra)
    # By name: build.py keeps in the start-up zip every module our code imports, and zipfile is
    # only needed here, from the extra zip itself.
    zipfile = importlib.import_module("zipfile")
    with zipfile.ZipFile(extra) as z:
        names = set(z.namelist())
    folders = {"/".join(name.split("/")[:i]) for name in names for i in range(1, name.count("/") + 1)}
    for folder in sorted(folders):
        if f"{folder}/__init__.py" in names:
            continue  # a package of its own in the extra zip: found through its parent
        try:
            package = importlib.import_module(folder.replace("/", "."))
        except ImportError:
            continue
        if hasattr(package, "__path__"):
            package.__path__.append(f"{extra}/{folder}")


def loaded() -> ModuleType | None:
    """segno if it is installed already, else None."""
    return _segno


def qr_svg(segno: ModuleType, text: str) -> tuple[str, int, int]:
    """(inline SVG, QR version, modules per side) for `text`, at the lowest error level that keeps it
    smallest (a screen-to-camera scan at the table needs no damage tolerance)."""
    code = segno.make(text, error="l", micro=False)
    svg = code.svg_inline(scale=1, border=4, dark="#000", light="#fff", omitsize=True)
    width, _ = code.symbol_size(scale=1, border=0)
    return svg, int(code.version), int(width)
