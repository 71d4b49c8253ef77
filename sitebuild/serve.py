"""Serving a built site on 127.0.0.1 (gzip as GitHub Pages does, a sub-path, the right types)."""

from __future__ import annotations

import gzip
import http.server
import os
import threading
from pathlib import Path

__all__ = []

class _Handler(http.server.SimpleHTTPRequestHandler):
    """Serve several folders under URL prefixes, like GitHub Pages serves project sites."""

    mounts: dict[str, Path] = {}
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".wasm": "application/wasm",
        ".mjs": "text/javascript",
        ".js": "text/javascript",
        ".webmanifest": "application/manifest+json",
        ".whl": "application/zip",
    }

    def translate_path(self, path: str) -> str:
        clean = path.split("?", 1)[0].split("#", 1)[0]
        for prefix, folder in sorted(self.mounts.items(), key=lambda kv: -len(kv[0])):
            if clean.startswith(prefix):
                rel = clean[len(prefix):]
                parts = [p for p in rel.split("/") if p not in ("", ".", "..")]
                target = folder.joinpath(*parts)
                if rel.endswith("/") or rel == "":
                    return str(target) + os.sep
                return str(target)
        return str(Path("/nonexistent") / "x")

    compress = False                     # gzip what shrinks, as GitHub Pages does (the bench's first visits)
    _zipped: dict[tuple[str, float], bytes] = {}

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        clean = self.path.split("?", 1)[0]
        if clean + "/" in self.mounts:
            self.send_response(301)
            self.send_header("Location", clean + "/")
            self.end_headers()
            return
        if self.compress and "gzip" in self.headers.get("Accept-Encoding", "") and self._send_zipped():
            return
        super().do_GET()

    def _send_zipped(self) -> bool:
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            path = path / "index.html"
        if not path.is_file() or path.suffix in (".png", ".jpg", ".webp"):
            return False
        key = (str(path), path.stat().st_mtime)
        body = self._zipped.get(key)
        if body is None:
            raw = path.read_bytes()
            body = gzip.compress(raw, compresslevel=6)
            if len(body) > 0.9 * len(raw):
                body = b""  # (nothing gained: served as it is)
            self._zipped[key] = body
        if not body:
            return False
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        return True

    def end_headers(self) -> None:
        # Like GitHub Pages: short cache, revalidated. The service worker does the offline part.
        self.send_header("Cache-Control", "max-age=600")
        super().end_headers()

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        if os.environ.get("RK_SERVER_LOG"):
            super().log_message(format, *args)


def make_server(mounts: dict[str, Path], port: int = 0, compress: bool = False) -> http.server.ThreadingHTTPServer:
    """A server on 127.0.0.1 serving each folder at its prefix ("/" or "/sub/"); `compress`: gzip-encoded
    where the browser accepts it, as GitHub Pages serves (the bench's first visits)."""
    handler = type("Handler", (_Handler,), {"mounts": {k: Path(v) for k, v in mounts.items()}, "compress": compress, "_zipped": {}})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    server.daemon_threads = True
    return server


def serve_in_thread(mounts: dict[str, Path], compress: bool = False) -> tuple[http.server.ThreadingHTTPServer, str]:
    server = make_server(mounts, compress=compress)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def normalise_base(base: str) -> str:
    return "/" + base.strip("/") + "/" if base.strip("/") else "/"


def gzip_size(path: Path) -> int:
    return len(gzip.compress(path.read_bytes(), compresslevel=9))
