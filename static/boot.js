/* Boot: show the saved fight at once (read-only) and watch the engine start. No framework.
   A file of its own, so the page's Content-Security-Policy needs no inline script. */
(function () {
  "use strict";
  const root = document.documentElement;
  // Inside another site's frame (clickjacking: its page over ours, our taps under its clicks, our
  // saved fight shown to it): refuse before anything is read or started. The policy is a <meta>,
  // where frame-ancestors does not apply, so the check is here. A frame of our own origin is fine.
  let framed = false;
  try { framed = window.top !== window.self && window.top.location.origin !== location.origin; } catch (e) { framed = true; }
  if (framed) {
    window.stop();  // the rest of the page (the engine's scripts) is never parsed
    root.dataset.engine = "framed";
    document.body.textContent = "";
    const said = document.createElement("p");
    said.setAttribute("data-testid", "framed");
    said.textContent = "Roundkeeper does not run inside another site's page. ";
    const open = document.createElement("a");
    open.href = location.href;
    open.target = "_top";
    open.rel = "noopener noreferrer";
    open.textContent = "Open Roundkeeper on its own";
    said.appendChild(open);
    document.body.appendChild(said);
    return;
  }
  performance.mark("rk:boot");
  // The facts the page's Python and this file share (build.py writes them here: sitebuild/runtimes.py facts()).
  const FACTS = /*__RK_FACTS__*/{ wire: { version: 0, max: 0, silentMs: 0 }, nextTurnGuardMs: 0, sealed: "", keys: { servers: "", device: "", backup: "" } };
  const base = new URL(".", location.href).pathname;
  const RK = window.RK = /** @type {RoundkeeperGlobal} */ ({base: base, prefix: "roundkeeper:" + base + ":", t0: performance.now(), storage: true,
                        violations: [],
                        // Two taps on Next turn closer than this are one tap (automated tests set 0).
                        nextTurnGuardMs: typeof window.__rkNextTurnGuardMs === "number" ? window.__rkNextTurnGuardMs : FACTS.nextTurnGuardMs});
  // IndexedDB refused (a browser's setting, a private mode, a broken profile): PyScript opens IndexedDB
  // maps of its own as it loads and starts ("IDBMap/@pyscript.fs", its packages' cache), whatever its
  // configuration says, and a refusal there stopped the engine. The app needs none of them (its saves are
  // localStorage, its durable journal is optional), so where IndexedDB is missing, throws, or fails to
  // open, the page gets an in-memory one for PyScript's use, RK.indexedDB says why, and the journal stays off.
  RK.indexedDB = "ok";
  let realIDB = null;
  try { realIDB = window.indexedDB || null; } catch (e) { realIDB = null; }
  function memoryIndexedDB() {
    const later = function (f) { setTimeout(f, 0); };
    const request = function (run) {
      const r = {result: undefined, error: null, onsuccess: null, onerror: null};
      later(function () {
        try { r.result = run(); if (r.onsuccess) r.onsuccess({type: "success", target: r}); }
        catch (e) { r.error = e; if (r.onerror) r.onerror({type: "error", target: r}); }
      });
      return r;
    };
    const Store = function (map) {
      this.get = function (k) { return request(function () { return map.get(k); }); };
      this.put = function (v, k) { return request(function () { map.set(k, v); return k; }); };
      this.delete = function (k) { return request(function () { map.delete(k); }); };
      this.clear = function () { return request(function () { map.clear(); }); };
      this.count = function () { return request(function () { return map.size; }); };
      this.getAll = function () { return request(function () { return Array.from(map.values()); }); };
      this.getAllKeys = function () { return request(function () { return Array.from(map.keys()); }); };
    };
    const Db = function () {
      const stores = new Map();
      this.objectStoreNames = {get length() { return stores.size; }, contains: function (n) { return stores.has(n); }};
      this.createObjectStore = function (n) { stores.set(n, new Map()); return new Store(stores.get(n)); };
      this.transaction = function () {
        const tx = {oncomplete: null, onerror: null, onabort: null, objectStore: function (n) { return new Store(stores.get(n)); }};
        later(function () { later(function () { if (tx.oncomplete) tx.oncomplete({type: "complete", target: tx}); }); });
        return tx;
      };
      this.close = function () {};
    };
    const dbs = new Map();
    return {
      open: function (name) {
        const r = {result: null, error: null, transaction: null, onsuccess: null, onerror: null, onupgradeneeded: null, onblocked: null};
        later(function () {
          let db = dbs.get(name);
          const fresh = !db;
          if (fresh) { db = new Db(); dbs.set(name, db); }
          r.result = db;
          if (fresh && r.onupgradeneeded) {
            const tx = {oncomplete: null};
            r.transaction = tx;
            r.onupgradeneeded({type: "upgradeneeded", target: r});
            later(function () { if (tx.oncomplete) tx.oncomplete({type: "complete", target: tx}); });
          }
          if (r.onsuccess) r.onsuccess({type: "success", target: r});
        });
        return r;
      },
      deleteDatabase: function (name) { return request(function () { dbs.delete(name); }); },
    };
  }
  function inMemory(why) {
    if (RK.indexedDB !== "ok") return;
    RK.indexedDB = why;
    const memory = memoryIndexedDB();
    try { Object.defineProperty(window, "indexedDB", {configurable: true, get: function () { return memory; }}); } catch (e) { /* kept as it is */ }
  }
  try {
    if (!realIDB) inMemory("missing");
    else {
      const probe = realIDB.open("roundkeeper-probe");
      probe.onerror = function () { inMemory("refused"); };
      probe.onsuccess = function () { try { probe.result.close(); } catch (e) { /* closed */ } };
    }
  } catch (e) { inMemory("refused (" + (e && e.name) + ")"); }
  let theme = null, snapshot = null;
  // A live link (#live=…, a player's phone) or the table display (#display): the players' view is the
  // page's screen; no stored fight is drawn as a preview (on a display, the game master's own fight
  // with its hidden foes would be: issue 36).
  RK.route = location.hash === "#display" ? "display" : location.hash.indexOf("#live=") === 0 ? "follow" : "";
  if (RK.route) root.dataset.route = RK.route;
  try {
    snapshot = RK.route ? null : localStorage.getItem(RK.prefix + "snapshot");
    theme = localStorage.getItem(RK.prefix + "theme");
  } catch (e) { RK.storage = false; }
  // The theme: the phone's own light or dark setting unless Light or Dark was picked in the menu
  // (stored as "light" / "dark"; nothing stored, or "system": follow the phone, live).
  const light = window.matchMedia ? window.matchMedia("(prefers-color-scheme: light)") : null;
  RK.applyTheme = function (pref) {
    root.dataset.themePref = pref;
    root.dataset.theme = pref === "light" || (pref === "system" && light && light.matches) ? "light" : "dark";
  };
  RK.applyTheme(theme === "light" || theme === "dark" ? theme : "system");
  if (light && light.addEventListener) {
    light.addEventListener("change", function () { if (root.dataset.themePref === "system") RK.applyTheme("system"); });
  }

  // The snapshot is our own rendering of the turn order, but any site on this origin can write the
  // key: only the elements and attributes the turn order uses get through, as inert text and boxes.
  const TAGS = {B: 1, BUTTON: 1, DETAILS: 1, DIV: 1, EM: 1, I: 1, INPUT: 1, LABEL: 1, LI: 1, OL: 1, OPTION: 1, P: 1,
              SELECT: 1, SMALL: 1, SPAN: 1, STRONG: 1, SUMMARY: 1, UL: 1, BDI: 1, H3: 1};
  const ATTRS = {"class": /^[\w -]{0,200}$/, "title": /^[^<>]{0,300}$/, "aria-current": /^(true|false)$/,
               "aria-hidden": /^(true|false)$/, "aria-label": /^[^<>]{0,300}$/, "style": /^((width|height):\d{1,3}%(;background:var\(--(ok|accent|danger)\))?|--rows:\d{1,4};--half:\d{1,4})$/,
               "type": /^(button|checkbox|text|number)$/, "value": /^[^<>]{0,200}$/, "selected": /^$/, "checked": /^$/,
               "disabled": /^$/, "open": /^$/, "tabindex": /^-?\d$/};
  // The classes, data attributes and data-testid / data-action values the turn order's and the
  // players' view's renderers write (tools/view_markup.py, written here by build.py): nothing else passes
  // (no "toast" drawn as an overlay, no button of the app's own).
  const MARKUP = /*__RK_VIEW_MARKUP__*/{"classes": [], "data": [], "testids": [], "actions": []};
  const CLASSES = {}, DATA = {}, VALUES = {"data-testid": {}, "data-action": {}};
  MARKUP.classes.forEach(function (c) { CLASSES[c] = 1; });
  MARKUP.data.forEach(function (d) { DATA[d] = 1; });
  MARKUP.testids.forEach(function (v) { VALUES["data-testid"][v] = 1; });
  MARKUP.actions.forEach(function (v) { VALUES["data-action"][v] = 1; });
  function allowed(name, value) {
    if (name === "class") return value.split(/\s+/).filter(function (c) { return CLASSES[c] === 1; }).join(" ");
    if (DATA[name] !== 1 || value.length > 200) return null;
    if (VALUES[name] && VALUES[name][value] !== 1) return null;
    return value;
  }
  const VOID = /^(area|base|br|col|embed|hr|img|input|link|meta|param|source|track|wbr|frame|keygen|image)$/i;
  function clean(html) {
    // A document of its own, with no scripting and no browsing context: nothing in it loads, runs or
    // is even compiled (inline handlers) while we look at it.
    const doc = document.implementation.createHTMLDocument("");
    // Tags off the list and inline handlers are renamed before parsing (so the parser neither applies
    // a <base> nor reports a handler the policy would block); the allow-list below then drops them.
    doc.body.innerHTML = String(html).replace(/<(\/?)([a-zA-Z][\w-]*)([^>]*)>/g, function (all, slash, name, rest) {
      let close = "";
      if (!TAGS[name.toUpperCase()]) {  // <base>, <script>, <style>: never parsed as such
        if (!slash && VOID.test(name)) close = "</x-dropped>";
        name = "x-dropped";
      }
      return "<" + slash + name + rest.replace(/([\s/"'])on([a-z]+\s*=)/gi, "$1x-dropped-on$2") + ">" + close;
    });
    const all = doc.body.querySelectorAll("*");
    for (let i = 0; i < all.length; i++) {
      const n = all[i];
      if (!TAGS[n.tagName]) { n.remove(); continue; }
      for (let j = n.attributes.length - 1; j >= 0; j--) {
        const a = n.attributes[j], rule = ATTRS[a.name];
        if (rule && !rule.test(a.value)) { n.removeAttribute(a.name); continue; }
        const kept = a.name === "class" || !rule ? allowed(a.name, a.value) : a.value;
        if (kept === null || kept === "") n.removeAttribute(a.name);
        else if (kept !== a.value) n.setAttribute(a.name, kept);
      }
    }
    const out = document.createDocumentFragment();
    Array.prototype.forEach.call(doc.body.childNodes, function (n) { out.appendChild(document.importNode(n, true)); });
    return out;
  }
  RK.cleanSnapshot = clean;
  // A pause until the page's next task (Python awaits it between the slices of a long reading: the
  // page draws and answers taps in between).
  RK.nextTask = function () { return new Promise(function (done) { setTimeout(done, 0); }); };
  // The live table's connection module (and Trystero behind it): fetched the first time a table goes live.
  RK.importLive = function () { return import(new URL("live.mjs", document.baseURI).href); };
  RK.importScan = function () { return import(new URL("scan.mjs", document.baseURI).href); };
  // The engine's download (Pyodide, its standard library, our code: megabytes) and the service
  // worker's precache wait for RK.engineGate (interpreter.mjs awaits it). A game master's start opens
  // it at once. A live link or the table display first shows the players' view from the game master's
  // state (early.mjs, issue 40: a few kilobytes, which a slow connection then carries first), and
  // opens it when that view is drawn, when it cannot be, or after EARLY_HOLD_MS whatever happens.
  const EARLY_HOLD_MS = 8000;
  let gateOpen = null;
  RK.engineGate = new Promise(function (resolve) { gateOpen = resolve; });
  RK.openEngine = function (why) {
    if (RK.engineOpened) return;
    RK.engineOpened = why || "now";
    performance.mark("rk:engine-gate");
    gateOpen();
  };
  if (RK.route) {
    setTimeout(function () { RK.openEngine("waited"); }, EARLY_HOLD_MS);
    import(new URL("early.mjs", document.baseURI).href).catch(function (e) {
      RK.earlyError = String(e && e.message || e).slice(0, 200);
      RK.openEngine("no early view");
    });
  } else {
    RK.openEngine("now");
  }
  if (snapshot) {
    try {
      const host = document.getElementById("tracker");
      host.replaceChildren(clean(snapshot));
      host.setAttribute("inert", "");
      root.dataset.snapshot = "shown";
      const rl = host.querySelector("[data-round-label]");
      if (rl) document.getElementById("round-label").textContent = rl.getAttribute("data-round-label").slice(0, 40);
    } catch (e) { /* a bad snapshot only costs the preview */ }
  }

  RK.fail = function (message) {
    if (root.dataset.engine === "ready") return;
    // A start from a memory snapshot that fails is retried once without it (interpreter.mjs).
    if (RK.snapshotRecover && RK.snapshotRecover()) return;
    root.dataset.engine = "failed";
    document.getElementById("engine-status").textContent = "Engine failed";
    document.getElementById("boot-error-text").textContent = message;
    document.getElementById("boot-error").classList.add("show");
  };
  document.addEventListener("DOMContentLoaded", function () {
    document.getElementById("boot-retry").addEventListener("click", function () { location.reload(); });
  });
  // PyScript reports Python errors as .py-error elements; before ready, that is a failed start.
  new MutationObserver(function (records) {
    records.forEach(function (r) { r.addedNodes.forEach(function (n) {
      if (n instanceof Element && n.classList.contains("py-error")) RK.fail("The rules engine could not start: " + n.textContent.slice(0, 300));
    }); });
  }).observe(root, {childList: true, subtree: true});
  // Anything thrown while the runtimes start (a damaged download, a failed unpack) is a failed start.
  addEventListener("unhandledrejection", function (e) {
    RK.fail("The rules engine could not start: " + String(e.reason && e.reason.message || e.reason).slice(0, 300));
  });
  addEventListener("error", function (e) {
    if (e.target instanceof HTMLScriptElement) {  // a script file that did not load (capture phase)
      RK.fail("The app files could not be loaded. Check your connection and retry.");
    } else if (e.error) {
      RK.fail("The rules engine could not start: " + String(e.message).slice(0, 300));
    }
  }, true);
  // The security policy refusing something the engine needs is a failed start, said as such.
  // (An inline handler in stored data is refused too, and is no reason to stop: only what the
  // runtimes need counts: eval, WebAssembly, a script, a fetch or a worker.)
  document.addEventListener("securitypolicyviolation", function (e) {
    RK.violations.push(e.violatedDirective + " " + e.blockedURI);
    if (/^(script-src(-elem)?|connect-src|worker-src|default-src)$/.test(e.violatedDirective) && e.blockedURI !== "inline") {
      RK.fail("The browser's security policy stopped the engine (" + e.violatedDirective + "). Retry, or update the app.");
    }
  });
  addEventListener("py:all-done", function () {
    if (root.dataset.engine !== "ready") RK.fail("The rules engine stopped before it was ready.");
  });
  RK.watchdog = setTimeout(function () {
    if (root.dataset.engine !== "ready") {
      document.getElementById("boot-error-text").textContent = "The rules engine is taking long to start. You can keep waiting or retry.";
      document.getElementById("boot-error").classList.add("show");
    }
  }, 60000);

  // A region redrawn in place: the nodes that stay the same are kept (the field being typed in keeps
  // its focus, its caret and its keyboard; a select its place), the others are changed, added or removed.
  // `typing`: true, drawn as one types (the focused field keeps its value); "fields", drawn for a
  // change made elsewhere (another tab): every field keeps what the user typed in it, unless the
  // drawing itself changed that field's value.
  /** @type {boolean | "fields"} */
  let keepTyped = false;
  RK.morph = function (root, html, typing) {
    const t = document.createElement("template");
    t.innerHTML = html;
    keepTyped = typing === "fields" ? "fields" : !!typing;
    morphChildren(root, t.content);
  };
  function same(a, b) {
    return a.nodeType === b.nodeType && a.nodeName === b.nodeName && (a.nodeType !== 1 || (a.id || "") === (b.id || ""));
  }
  function morphChildren(from, to) {
    let a = from.firstChild, b = to.firstChild;
    while (b) {
      const nextB = b.nextSibling;
      if (!a) from.appendChild(b);
      else if (same(a, b)) { morphNode(a, b); a = a.nextSibling; }
      else from.insertBefore(b, a);
      b = nextB;
    }
    while (a) { const n = a.nextSibling; from.removeChild(a); a = n; }
  }
  function morphNode(a, b) {
    if (a.nodeType !== 1) { if (a.nodeValue !== b.nodeValue) a.nodeValue = b.nodeValue; return; }
    const drawnAgain = a.getAttribute("value") === b.getAttribute("value") && a.hasAttribute("checked") === b.hasAttribute("checked")
      && (a.nodeName !== "TEXTAREA" || a.defaultValue === b.defaultValue);
    for (let i = a.attributes.length - 1; i >= 0; i--) {
      if (!b.hasAttribute(a.attributes[i].name)) a.removeAttribute(a.attributes[i].name);
    }
    for (let j = 0; j < b.attributes.length; j++) {
      const at = b.attributes[j];
      if (a.getAttribute(at.name) !== at.value) a.setAttribute(at.name, at.value);
    }
    const chosen = a.nodeName === "SELECT" ? a.value : null;
    if (a.nodeName !== "TEXTAREA") morphChildren(a, b);
    else if (a.defaultValue !== b.defaultValue) a.defaultValue = b.defaultValue;
    const kept = keepTyped === "fields" && drawnAgain;
    const typing = (keepTyped === true && a === document.activeElement) || kept;
    if (a.nodeName === "INPUT") {
      if (a.type === "checkbox" || a.type === "radio") { if (!kept) a.checked = b.checked; }
      else if (!typing && a.type !== "file" && a.value !== b.value) a.value = b.value;
    } else if (a.nodeName === "SELECT" && kept) {
      let still = false;
      for (let k = 0; k < a.options.length; k++) if (a.options[k].value === chosen) still = true;
      a.value = still ? chosen : b.value;  // the user's choice, while the drawing still offers it
    } else if ((a.nodeName === "TEXTAREA" || a.nodeName === "SELECT") && !typing && a.value !== b.value) {
      a.value = b.value;
    }
  }

  // Service worker: offline after one visit; a new version waits for the user's consent. On a live
  // link or the table display, registered once the engine is ready: its precache (the whole site) would
  // otherwise share a slow connection with the players' view and the engine.
  function whenStarted(register) {
    if (!RK.route || root.dataset.engine === "ready") return register();
    const watch = new MutationObserver(function () {
      if (root.dataset.engine !== "ready" && root.dataset.engine !== "failed") return;
      watch.disconnect();
      register();
    });
    watch.observe(root, {attributes: true, attributeFilter: ["data-engine"]});
  }
  if ("serviceWorker" in navigator) document.addEventListener("DOMContentLoaded", function () {
    document.getElementById("banner-reload").addEventListener("click", function () {
      if (RK.waitingWorker) RK.waitingWorker.postMessage({type: "SKIP_WAITING"});
      else location.reload();
    });
  });
  if ("serviceWorker" in navigator) whenStarted(function () {
    let reloading = false;
    const offer = function (worker) {
      RK.waitingWorker = worker;
      document.getElementById("banner").classList.add("show");
    };
    navigator.serviceWorker.addEventListener("controllerchange", function () {
      if (RK.hadController && !reloading) { reloading = true; location.reload(); }
      RK.hadController = true;
    });
    RK.hadController = !!navigator.serviceWorker.controller;
    navigator.serviceWorker.register("./sw.js", {scope: "./", updateViaCache: "none"}).then(function (reg) {
      RK.swRegistration = reg;
      if (reg.waiting && navigator.serviceWorker.controller) offer(reg.waiting);
      reg.addEventListener("updatefound", function () {
        const w = reg.installing;
        if (!w) return;
        w.addEventListener("statechange", function () {
          // (a new version while another controls the page; not the first worker, which WebKit may have
          // made the controller already when this event is dispatched: no "new version" on a first visit)
          const now = navigator.serviceWorker.controller;
          if (w.state === "installed" && now && now !== w) offer(w);
        });
      });
    }).catch(function (e) { RK.swError = String(e); });
  });
})();
