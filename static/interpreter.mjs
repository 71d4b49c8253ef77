/* PyScript's `interpreter` (pyscript.json), also loaded by the page as a module of its own so that
   Pyodide starts at once, beside PyScript's own download, instead of when PyScript asks for it.

   It starts from a memory snapshot of an interpreter that has already imported the engine and the
   standard library the app uses, when this phone has one for this version of the site. The snapshot
   is made once, after a normal start, by snapshot-worker.js in a worker (nothing on screen waits for
   it), and kept gzip-compressed in Cache Storage.

   Whatever goes wrong with a snapshot (none, damaged, from another version, storage refused, a
   restore that throws, a start after it that fails) ends in the normal start, with the bad snapshot
   dropped: a snapshot can only ever make a start faster, never stop one. `RK.snapshot` says what
   happened (read by the tests and the bench):
   {state: "off" | "none" | "used" | "fallback" | "making" | "stored" | "failed", reason}. */
// @ts-expect-error: Pyodide's loader is copied beside this file by the build (node_modules/pyodide)
import * as pyodide from "./pyodide/pyodide.mjs";
import { fetchOurs, placeOurs } from "./ours.mjs";

// Pyodide switches WebAssembly stacks (JSPI) when the browser offers it, for what this app never
// does (run_sync: blocking on a JavaScript promise from synchronous Python); Chromium's renderer
// crashed beside a switched stack when several pages started at once, and Safari has failed on it
// too. Hidden before Pyodide looks (its pyodide.asm.mjs reads `"Suspending" in WebAssembly` when
// loadPyodide fetches it), here and in snapshot-worker.js alike. `__rkJspi = "on"`: the bench's
// comparison only.
if (globalThis.__rkJspi !== "on") {
  try { delete WebAssembly.Suspending; } catch (e) { /* then Pyodide uses it, as before */ }
}

export const version = pyodide.version;

const RK = globalThis.RK || (globalThis.RK = /** @type {RoundkeeperGlobal} */ ({}));
const INDEX_URL = new URL("./pyodide/", import.meta.url).href;
const SITE_VERSION = document.querySelector('meta[name="rk-version"]')?.getAttribute("content") || "dev";
const BASE = RK.base || "/";  // the site's path (boot.js): copies at two paths keep their own snapshots
// Not under the service worker's cache prefix: its clean-up on an update must not race with a
// snapshot being stored, so the old versions' snapshots are dropped here instead.
const CACHE = "roundkeeper-snapshot:" + BASE;
const KEY = new URL("./rk-snapshot/" + SITE_VERSION, location.href).href;
const NO_SNAPSHOT = "roundkeeper:no-snapshot";  // sessionStorage: this tab's next start is a normal one
// Tests and the bench switch the snapshot off (`window.__rkSnapshot = "off"`) or have it made at
// once after the start ("now"); users get it made in idle time.
const SWITCH = globalThis.__rkSnapshot;
// Modules the snapshot never imports: the bench's hook (imported only when the bench asks), and the
// bridges to JavaScript (a snapshot cannot carry JavaScript objects). Every module of web comes from
// the snapshot with the engine, the runtime too: none binds the page at import (web/page/dom.py's bind(),
// called by start(), does). tests/unit/test_build.py checks that each imports without the bridges.
const NOT_IN_SNAPSHOT = /^(web\.page\.bench|pyscript|_pyscript|polyscript|js|pyodide_js|pyodide|_pyodide|__main__|micropip|segno)(\.|$)/;
// localStorage: a snapshot of this version failed on this browser; none is made again until an update.
const FAILED = "roundkeeper-snapshot-failed:" + BASE;
// localStorage: this version's snapshot was stored. Read at once, it lets the start begin from the
// snapshot while Cache Storage is still being opened (looking there first held Pyodide's downloads
// back by about 40 ms); without it the start is a normal one from the first line, with no look.
const STORED = "roundkeeper-snapshot-stored:" + BASE;
// sessionStorage (this tab): a start from the snapshot is under way (cleared when the app is ready, or when the
// page is left before that). Found at the next start, it means that start never finished (the tab
// crashed or was killed): that is no start to repeat, so the snapshot is dropped and this start is a
// normal one.
// (In this tab's sessionStorage: a second tab starting at the same moment is not a start that failed.)
const TRYING = "roundkeeper-snapshot-trying:" + BASE;
const MAX_SNAPSHOT = 512 * 1024 * 1024;  // no snapshot of ours comes near (about 30 MB): a larger size is damage
const status = RK.snapshot = {state: "none", reason: "", version: SITE_VERSION};
// Our code (the engine's wheel and web.zip), named in the page by build.py: fetched as the start
// begins, beside Pyodide's own files, and put in place (ours.mjs) before PyScript is handed the
// interpreter. (In PyScript's `files` they were fetched only once the interpreter was up, then
// unpacked file by file: both after the restore, on every start.) The snapshot worker uses the same files.
// Each is named with its hash ("./web.zip sha384-…"): fetch() checks it (subresource integrity), so a
// damaged download fails the start here, not an import from it later.
const NAMED = (document.querySelector('meta[name="rk-files"]')?.getAttribute("content") || "").split(" ").filter(Boolean);
const OURS = [];
for (let i = 0; i + 1 < NAMED.length; i += 2) OURS.push({url: new URL(NAMED[i], location.href).href, integrity: NAMED[i + 1]});

function mark(name) {
  try { performance.mark("rk:" + name); } catch (e) { /* marks are only for the bench */ }
}

function why(error) {
  return String(error && error.message || error).slice(0, 300);
}

function remember(stored) {
  try {
    if (stored) localStorage.setItem(STORED, SITE_VERSION);
    else localStorage.removeItem(STORED);
  } catch (e) { /* then the next start is a normal one, and the snapshot is found again after it */ }
}

/* true / false: this version's snapshot was stored here or not; null: localStorage cannot say (refused). */
function storedHere() {
  try { return localStorage.getItem(STORED) === SITE_VERSION; } catch (e) { return null; }
}

/* Drop the snapshot. A damaged one is made again after the next normal start; one that would not
   restore (or the start after it failed) is not, for this version of the site on this browser. */
async function drop(reason, again) {
  status.reason = status.reason || reason;
  remember(false);
  if (!again) {
    try { localStorage.setItem(FAILED, SITE_VERSION); } catch (e) { /* then it may be made again once */ }
  }
  try { await caches.delete(CACHE); } catch (e) { /* storage refused: nothing to drop */ }
}

/* The stored snapshot's entry in Cache Storage; rejects with `missing` when it is gone (the browser
   cleared its caches, storage refused): then the start is a normal one. */
async function findSnapshot() {
  let response;
  try {
    response = await (await caches.open(CACHE)).match(KEY);
  } catch (error) {
    throw Object.assign(new Error("storage refused: " + why(error)), {missing: true});
  }
  if (!response) throw Object.assign(new Error(""), {missing: true});
  return response;
}

/* The snapshot's bytes, read while Pyodide loads its own files (loadPyodide takes a promise).
   Checked: gzip's own CRC catches damage, the size we wrote down a truncated entry; either rejects
   as `damaged`, and the start falls back. */
function readSnapshot(found) {
  const read = (async () => {
    const response = await found;
    try {
      const size = Number(response.headers.get("x-rk-size"));
      if (!(size > 0) || size > MAX_SNAPSHOT) throw new Error(`a stored size of ${size} bytes`);
      // Inflated chunk by chunk, never past the size written down (a damaged or hostile entry that
      // would inflate to gigabytes stops at the first byte too many).
      const reader = response.body.pipeThrough(new DecompressionStream("gzip")).getReader();
      const bytes = new Uint8Array(size);
      let at = 0;
      for (;;) {
        const {done, value} = await reader.read();
        if (done) break;
        if (at + value.length > size) {
          reader.cancel().catch(() => {});
          throw new Error(`more than the ${size} bytes stored`);
        }
        bytes.set(value, at);
        at += value.length;
      }
      if (at !== size) throw new Error(`${at} bytes, ${size} were stored`);
      mark("snapshot-read");
      return bytes;
    } catch (error) {
      throw Object.assign(new Error("damaged: " + why(error)), {damaged: true});
    }
  })();
  read.catch(() => { /* loadPyodide awaits it and throws; never an unhandled rejection (boot.js) */ });
  return read;
}

// PyScript hands over its output handlers when it asks for the interpreter, which is after the
// start has begun: until then, output goes to the console.
const sink = {stdout: (text) => console.log(text), stderr: (text) => console.error(text)};
const OUTPUT = {stdout: (text) => sink.stdout(text), stderr: (text) => sink.stderr(text)};

function fresh(extra) {
  return pyodide.loadPyodide({...OUTPUT, ...extra, indexURL: INDEX_URL});
}

function skipped() {
  if (SWITCH === "off") return "switched off";
  try {
    if (sessionStorage.getItem(NO_SNAPSHOT)) {
      sessionStorage.removeItem(NO_SNAPSHOT);
      return "the last start from it failed";
    }
  } catch (e) { /* no session storage: nothing was asked */ }
  return "";
}

function unfinished() {
  try {
    const left = sessionStorage.getItem(TRYING) === SITE_VERSION;
    sessionStorage.removeItem(TRYING);
    return left;
  } catch (e) {
    return false;
  }
}

/* Our files where Python imports them (ours.mjs). A download that fails is a failed start, not the
   snapshot's. */
async function placedOurs(interpreter, ours) {
  let buffers;
  try {
    buffers = await ours;
  } catch (error) {
    throw new Error("The app files could not be loaded (" + why(error) + "). Check your connection and retry.");
  }
  placeOurs(interpreter, OURS, buffers);
  mark("ours-placed");
  return interpreter;
}

async function start() {
  mark("loader-start");
  const ours = fetchOurs(OURS);
  ours.catch(() => { /* awaited after the interpreter starts: the start fails there, said by boot.js */ });
  return placedOurs(await interpreterFor(), ours);
}

async function interpreterFor() {
  const skip = skipped(), left = unfinished();
  if (skip || left) {
    status.state = "off";
    if (skip) status.reason = skip;
    else await drop("the last start from it did not finish");
    return fresh({});
  }
  try {
    const stored = globalThis.caches && globalThis.DecompressionStream ? storedHere() : false;
    let found = null;
    if (stored) {
      found = findSnapshot();  // looked for while Pyodide loads: a missing entry ends in a normal start
    } else if (stored === null) {  // localStorage cannot say: the entry is looked for first
      found = await findSnapshot().catch((error) => {
        status.reason = error.message;
        return null;
      });
    }
    if (found) {
      // The mark is held while the start is on screen: a renderer that dies then is the snapshot's
      // suspect. Hidden (another app, the tab closing: a close may end the page before pagehide
      // runs) or left, it is let go: the OS killing a page in the background is no fault of the
      // snapshot. Seen again before the start is done, it is held again.
      const hold = () => {
        try {
          if (document.visibilityState === "hidden") sessionStorage.removeItem(TRYING);
          else sessionStorage.setItem(TRYING, SITE_VERSION);
        } catch (e) { /* no guard without storage */ }
      };
      const finished = () => {
        try { sessionStorage.removeItem(TRYING); } catch (e) { /* see above */ }
        removeEventListener("pagehide", finished);
        document.removeEventListener("visibilitychange", hold);
      };
      hold();
      addEventListener("pagehide", finished);  // closed or left: no crash
      document.addEventListener("visibilitychange", hold);
      whenReady(finished);
      const interpreter = await fresh({_loadSnapshot: readSnapshot(found)});
      // The snapshot holds the random generator's state of the moment it was made: without a new
      // seed, every start from it would roll the same dice.
      interpreter.runPython("import random; random.seed()");
      mark("restored");
      status.state = "used";
      return interpreter;
    }
  } catch (error) {
    if (error && error.missing) {
      remember(false);  // no snapshot after all: a normal start, and one is made after it
      status.reason = error.message;
    } else {
      status.state = "fallback";
      await drop(error && error.damaged ? why(error) : "restore failed: " + why(error), error && error.damaged);
    }
  }
  const interpreter = await fresh({});
  if (status.state !== "fallback") status.state = "none";
  // Idle time after the first screen: the worker's start competes for the CPU with the user's taps.
  whenReady(() => makeSnapshot(interpreter), 3000);
  return interpreter;
}

// boot.js holds the engine's download back on a live link until the players' view is drawn (RK.engineGate).
const starting = Promise.resolve(RK.engineGate).then(start);
starting.catch(() => { /* PyScript awaits it too, and reports the failure */ });

export async function loadPyodide(options = {}) {
  if (options.stdout) sink.stdout = options.stdout;
  if (options.stderr) sink.stderr = options.stderr;
  return starting;
}

/* If the page fails to start after a restore, the snapshot is the first suspect: drop it and start
   again normally, once (boot.js asks before it shows the error). */
RK.snapshotRecover = function () {
  if (status.state !== "used") return false;
  status.state = "failed";
  try { sessionStorage.setItem(NO_SNAPSHOT, "1"); } catch (e) { return false; }
  drop("the start after a restore failed").finally(() => location.reload());
  return true;
};

/* `callback` once the app is ready; with `later`, in idle time some seconds after that. */
function whenReady(callback, later) {
  const root = document.documentElement;
  const observer = new MutationObserver(check);
  function check() {
    if (root.dataset.engine !== "ready") return;
    observer.disconnect();
    if (!later) return callback();
    const idle = globalThis.requestIdleCallback || ((f) => setTimeout(f, 0));
    setTimeout(() => idle(callback, {timeout: 10000}), SWITCH === "now" ? 0 : later);
  }
  observer.observe(root, {attributes: true, attributeFilter: ["data-engine"]});
  check();
}

async function makeSnapshot(interpreter) {
  if (!globalThis.Worker || !globalThis.caches || !globalThis.CompressionStream) return;
  try {
    if (localStorage.getItem(FAILED) === SITE_VERSION) return;  // it failed here: no loop of make and fail
  } catch (e) { /* no storage: the cache below says */ }
  try {
    const cache = await caches.open(CACHE);
    for (const request of await cache.keys()) if (request.url !== KEY) await cache.delete(request);
    if (await cache.match(KEY)) { status.state = "stored"; remember(true); return; }
  } catch (error) {
    Object.assign(status, {state: "failed", reason: "storage refused: " + why(error)});
    return;
  }
  let modules;
  try {
    // What the app had imported by the time it was ready is what the next start imports again.
    const names = interpreter.runPython("import sys; sorted(sys.modules)");
    modules = names.toJs().filter((name) => !NOT_IN_SNAPSHOT.test(name));
    names.destroy();
  } catch (error) {
    Object.assign(status, {state: "failed", reason: why(error)});
    return;
  }
  status.state = "making";
  const started = performance.now();
  const worker = new Worker(new URL("./snapshot-worker.js", import.meta.url), {type: "module", name: "snapshot"});
  const done = (result) => {
    worker.terminate();
    Object.assign(status, result, {ms: Math.round(performance.now() - started)});
  };
  worker.onmessage = (event) => {
    const reply = event.data || {};
    if (reply.ok) remember(true);
    done(reply.ok ? {state: "stored", raw: reply.raw, packed: reply.packed, skipped: reply.skipped}
                  : {state: "failed", reason: String(reply.error).slice(0, 300)});
  };
  worker.onerror = (event) => done({state: "failed", reason: String(event.message || "the worker failed").slice(0, 300)});
  worker.postMessage({indexURL: INDEX_URL, cache: CACHE, key: KEY, version: SITE_VERSION, files: OURS, modules,
                      jspi: globalThis.__rkJspi === "on"});
}
