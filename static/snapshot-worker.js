/* Makes the memory snapshot interpreter.mjs starts from: a Pyodide of its own (in this worker, so the
   page and its fight are not disturbed), our code put where the page puts it (ours.mjs), and the modules
   the app had imported when it was ready, imported again here, except those that need the page (a
   snapshot cannot carry JavaScript objects). gzip-compressed into Cache Storage under the site's
   version. */
// @ts-expect-error: Pyodide's loader is copied beside this file by the build (node_modules/pyodide)
import { loadPyodide } from "./pyodide/pyodide.mjs";
import { fetchOurs, placeOurs } from "./ours.mjs";

// An engine module that does not import is a broken build: no snapshot. A standard library module
// that does not is skipped (the app imported it from somewhere the worker does not have).
const PRELOAD = `
import importlib
_skipped = []
for _name in _rk_modules:
    try:
        importlib.import_module(_name)
    except Exception:
        if _name.startswith("pyengine"):
            raise
        _skipped.append(_name)
del _name, _rk_modules
`;

async function gzip(bytes) {
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

self.onmessage = async (event) => {
  const job = event.data;
  if (!job.jspi) {
    // As on the page (interpreter.mjs): no stack switching, so the snapshot matches the start it serves.
    try { delete WebAssembly.Suspending; } catch (e) { /* then both use it */ }
  }
  try {
    const interpreter = await loadPyodide({indexURL: job.indexURL, _makeSnapshot: true});
    placeOurs(interpreter, job.files, await fetchOurs(job.files));
    interpreter.globals.set("_rk_modules", interpreter.toPy(job.modules));
    interpreter.runPython(PRELOAD);
    const found = interpreter.globals.get("_skipped");
    const skipped = found.toJs();
    found.destroy();  // nothing of this job stays alive in the snapshot
    interpreter.runPython("del _skipped");
    const raw = interpreter.makeMemorySnapshot();
    const packed = await gzip(raw);
    const cache = await caches.open(job.cache);
    await cache.put(job.key, new Response(packed, {headers: {
      "content-type": "application/octet-stream", "x-rk-size": String(raw.length), "x-rk-version": job.version,
    }}));
    self.postMessage({ok: true, raw: raw.length, packed: packed.length, skipped});
  } catch (error) {
    self.postMessage({ok: false, error: String(error && error.stack || error)});
  }
};
