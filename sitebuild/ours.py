"""Our code: the engine's wheel and web.zip (the web package and PyScript's own), compiled to bytecode."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
import tempfile
import tomllib
import zipfile
from pathlib import Path

from .config import ROOT, log
from .runtimes import precompile, python_files, zip_entry

__all__ = ["build_web_zip", "build_wheel", "drop_pyscript_writes", "python_files", "zip_entry"]

def project_meta() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


PYSCRIPT_WRITES = re.compile(r'[A-Za-z_$][\w$]*\("\.",(?=\{pyscript:\{)')


def _pyscript_writes(chunk: str) -> tuple[dict[str, str], int, int]:
    """PyScript's package as the chunk embeds it (path -> text), and where the call that writes it
    starts and ends in the chunk; ({}, -1, -1) when the chunk's shape is not the one this reader knows."""
    calls = list(PYSCRIPT_WRITES.finditer(chunk))
    if len(calls) != 1:
        return {}, -1, -1
    decoder = json.JSONDecoder()
    name = re.compile(r"[A-Za-z_$][\w$]*")

    def literal(i: int, prefix: str, out: dict[str, str]) -> int:
        i += 1  # past "{"
        while chunk[i] != "}":
            if chunk[i] == '"':
                key, i = decoder.raw_decode(chunk, i)
            else:
                found = name.match(chunk, i)
                if found is None:
                    raise ValueError(f"a key at {i}")
                key, i = found.group(), found.end()
            if chunk[i] != ":" or not isinstance(key, str) or "/" in key or key.startswith("."):
                raise ValueError(f"an entry at {i}")
            if chunk[i + 1] == "{":
                i = literal(i + 1, prefix + key + "/", out)
            else:
                text, i = decoder.raw_decode(chunk, i + 1)
                if not isinstance(text, str):
                    raise ValueError(f"a value at {i}")
                out[prefix + key] = text
            if chunk[i] == ",":
                i += 1
        return i + 1

    files: dict[str, str] = {}
    try:
        end = literal(calls[0].end(), "", files)
    except (ValueError, IndexError):
        return {}, -1, -1
    if chunk[end:end + 1] != ")" or "pyscript/__init__.py" not in files or not all(p.endswith(".py") for p in files):
        return {}, -1, -1
    return files, calls[0].start(), end + 1


def pyscript_package(chunk: str) -> dict[str, str]:
    """PyScript's own Python package (`pyscript/__init__.py`, ...) as its core chunk embeds it.

    At every start PyScript's bootstrap writes these sources into the interpreter's file system (with
    Python code that holds them all as string literals, compiled at each start) and imports them: the
    browser compiles them each time. Read here from the very chunk the site ships, they are compiled
    with the rest of our code into web.zip, which is first on sys.path (static/ours.mjs), and the
    chunk no longer writes them (without_pyscript_writes): the same text, compiled once, at build time.
    {} when the chunk's shape is not the one this reader knows (then PyScript writes and the browser
    compiles them, as before)."""
    return _pyscript_writes(chunk)[0]


def without_pyscript_writes(chunk: str) -> str:
    """The chunk with the call that writes PyScript's package replaced by `void 0` (it is one expression
    of a comma list: the bootstrap's `import pyscript` after it stays, and finds web.zip's). Only for a
    site whose web.zip holds the package compiled; unchanged when the call is not found. (A PyScript
    worker runs the same bootstrap: the app starts none; one would need web.zip on its sys.path.)"""
    files, start, end = _pyscript_writes(chunk)
    return chunk[:start] + "void 0" + chunk[end:] if files else chunk


def _staged(packages: tuple[str, ...], bytecode: bool, extra: dict[str, str] | None = None) -> tuple[Path, list[str]]:
    """Copy our packages' sources to a scratch folder and (if we can) replace them by their bytecode,
    x.pyc where x.py was, as the trimmed standard library ships: the browser imports it without
    compiling, and the first visit downloads 2.6 times less than sources and bytecode together.
    `extra`: more sources by path (PyScript's package), compiled the same way; with no bytecode they
    are left out (PyScript writes and compiles them itself)."""

    stage = Path(tempfile.mkdtemp(prefix="rk-stage-"))
    for package in packages:
        for path in python_files(ROOT / package):
            target = stage / path.relative_to(ROOT)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
    for relative, text in (extra or {}).items() if bytecode else ():
        target = stage / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    if bytecode and precompile(stage, legacy=True):
        for source in list(stage.rglob("*.py")):
            if source.with_suffix(".pyc").exists():
                source.unlink()
    elif extra:
        shutil.rmtree(stage / next(iter(extra)).split("/")[0], ignore_errors=True)
    names = sorted(p.relative_to(stage).as_posix() for p in stage.rglob("*") if p.is_file())
    return stage, names


def build_wheel(out: Path, bytecode: bool = True) -> str:
    """Build the pyengine wheel from pyproject.toml (pure Python: a zip with dist-info), with
    Pyodide bytecode beside the sources so the browser does not compile them at start-up."""
    meta = project_meta()
    dist_name = meta["name"].replace("-", "_")
    version = meta["version"]
    filename = f"{dist_name}-{version}-py3-none-any.whl"
    info = f"{dist_name}-{version}.dist-info"
    records: list[str] = []

    def add(zf: zipfile.ZipFile, arcname: str, data: bytes) -> None:
        zip_entry(zf, arcname, data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        records.append(f"{arcname},sha256={digest},{len(data)}")

    stage, names = _staged(("pyengine",), bytecode)
    with zipfile.ZipFile(out / filename, "w") as zf:
        for name in names:
            add(zf, name, (stage / name).read_bytes())
        metadata = (
            f"Metadata-Version: 2.1\nName: {meta['name']}\nVersion: {version}\n"
            f"Summary: {meta.get('description', '')}\nRequires-Python: {meta.get('requires-python', '')}\n"
        )
        add(zf, f"{info}/METADATA", metadata.encode())
        add(zf, f"{info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: roundkeeper-build\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        add(zf, f"{info}/top_level.txt", b"pyengine\n")
        records.append(f"{info}/RECORD,,")
        zinfo = zipfile.ZipInfo(f"{info}/RECORD", date_time=(2020, 1, 1, 0, 0, 0))
        zf.writestr(zinfo, "\n".join(records) + "\n", compress_type=zipfile.ZIP_DEFLATED)
    shutil.rmtree(stage, ignore_errors=True)
    return filename


def _pyscript_chunk(out: Path) -> Path | None:
    chunks = sorted((out / "pyscript").glob("core-*.js"))
    return chunks[0] if len(chunks) == 1 else None


def build_web_zip(out: Path, bytecode: bool = True) -> str:
    """web.zip: the web package and PyScript's own package (read from its core chunk in `out`), compiled."""
    filename = "web.zip"
    chunk = _pyscript_chunk(out)
    extra = pyscript_package(chunk.read_text()) if chunk else {}
    if not extra:
        log("PyScript's package not found in its core chunk: the browser writes and compiles it at each start")
    stage, names = _staged(("web",), bytecode, extra)
    with zipfile.ZipFile(out / filename, "w") as zf:
        for name in names:
            zip_entry(zf, name, (stage / name).read_bytes())
    shutil.rmtree(stage, ignore_errors=True)
    return filename


def drop_pyscript_writes(out: Path, web_zip: str) -> bool:
    """PyScript's core chunk in `out` no longer writes its package at each start, when web.zip holds
    every module of it compiled (else it is left as it is). True when it was taken out."""
    chunk = _pyscript_chunk(out)
    package = pyscript_package(chunk.read_text()) if chunk else {}
    with zipfile.ZipFile(out / web_zip) as zf:
        names = set(zf.namelist())
    if not chunk or not package or not all(path[:-3] + ".pyc" in names for path in package):
        return False
    chunk.write_text(without_pyscript_writes(chunk.read_text()))
    return True
