/* The durable copy of what the page saves. localStorage reaches the disk late (Chromium writes it
   lazily: a browser killed by the phone's OS loses the last seconds of taps), while an IndexedDB
   transaction with strict durability is on disk when it completes. So every write the page makes
   to its localStorage keys is also put here (newest wins per key, each with a rising sequence
   number, in one strict transaction per task), and at start, before Python reads anything, what
   the journal holds that localStorage lost is put back (Python awaits RK.journalReady). A first
   start with an empty journal copies the earlier saves in (the migration). localStorage stays the
   page's store, read synchronously and shown at once; where IndexedDB is refused it is all there
   is. A file of its own, loaded after boot.js (the page's CSP allows no inline script). */
(function () {
  "use strict";
  const RK = window.RK;
  // The facts the page's Python and this file share (build.py writes them here: sitebuild/runtimes.py facts()).
  const FACTS = /*__RK_FACTS__*/{ wire: { version: 0, max: 0, silentMs: 0 }, nextTurnGuardMs: 0, sealed: "", keys: { servers: "", device: "", backup: "" } };
  // The table display (a second window of the game master's) reads none of the stored fights: it shows
  // only what the game master's window sends it (issue 36). It saves nothing either.
  if (RK.route === "display") { RK.journalReady = Promise.resolve(); return; }
  const DB = "roundkeeper-journal";
  const STORE = "keys";
  const SEQ_KEY = RK.prefix + "journal-seq";      // localStorage's own mark: the journal's sequence it has caught up with
  const SKIP = {};
  SKIP[RK.prefix + "snapshot"] = 1;              // the instant preview: redrawn from the fight, not worth a disk write
  SKIP[SEQ_KEY] = 1;
  SKIP[RK.prefix + "__probe__"] = 1;            // the start's check that storage writes
  let db = null;
  let queue = [];
  let seq = 0;
  const blocked = {};                              // key -> true: this tab lost a race for it, until Python has merged
  const inflight = {};                             // key -> this tab's writes of it not yet answered (queued or in a transaction)
  const merged = {};                               // key -> how many refusals of it Python has merged (a write made before: dropped)
  let reopening = null;                          // a promise while the database is opened again (deleted under us)
  const journal = RK.journal = /** @type {RoundkeeperJournal} */ ({ok: false, error: "", pending: 0, restored: 0, migrated: 0, conflicts: 0, onError: null,
                              onConflict: null, onSettled: null, put: put, claim: claim, busy: busy, read: read,
                              resolved: resolved, setAside: [], reopened: 0});
  // A sequence number is a whole number of microseconds since 1970, at most a year ahead of this clock:
  // anything else (Infinity, 9e300, a string) read from storage is damage, set aside, never trusted.
  function validSeq(n) { return Number.isSafeInteger(n) && n >= 0 && n <= (Date.now() + 366 * 86400000) * 1000; }
  // A stored fight's revision and version ({rev, vid}: its "rev" and "vid"), or null.
  function versionOf(text) {
    if (typeof text !== "string" || text.length > 6000000) return null;
    try {
      const doc = JSON.parse(text);
      return doc && Number.isSafeInteger(doc.rev) ? {rev: doc.rev, vid: typeof doc.vid === "string" ? doc.vid : undefined} : null;
    } catch (e) { return null; }
  }
  // An unreadable journal record: copied to a backup: key (Export all keeps it; the page says it), never
  // put in the fight's place and never removing what localStorage holds.
  function setAside(key, record) {
    const name = key.slice(RK.prefix.length);
    let text;
    try { text = JSON.stringify(record); } catch (e) { text = String(record); }
    try { localStorage.setItem(RK.prefix + FACTS.keys.backup + Date.now() + ":journal:" + name, String(text).slice(0, 1000000)); }
    catch (e) { /* full: it is said all the same */ }
    journal.setAside.push(name);
  }

  function request(req) {
    return new Promise(function (resolve, reject) {
      req.onsuccess = function () { resolve(req.result); };
      req.onerror = function () { reject(req.error); };
    });
  }
  function finished(tx) {
    return new Promise(function (resolve, reject) {
      tx.oncomplete = function () { resolve(); };
      tx.onerror = function () { reject(tx.error); };
      tx.onabort = function () { reject(tx.error || new Error("AbortError")); };
    });
  }
  function strict(mode) { return db.transaction(STORE, mode, {durability: "strict"}); }
  function nextSeq() { seq = Math.max(validSeq(seq) ? seq + 1 : 0, Date.now() * 1000); return seq; }
  function ours(key) { return typeof key === "string" && key.indexOf(RK.prefix) === 0 && !SKIP[key]; }

  function open() {
    return new Promise(function (resolve, reject) {
      const req = indexedDB.open(DB, 1);
      req.onupgradeneeded = function () { req.result.createObjectStore(STORE); };
      req.onsuccess = function () { resolve(req.result); };
      req.onerror = function () { reject(req.error); };
      req.onblocked = function () { reject(new Error("blocked")); };
    });
  }

  // Every key of ours in localStorage into the journal, in one strict transaction: a promise of how many.
  function copyAll() {
    const write = strict("readwrite");
    const into = write.objectStore(STORE);
    let count = 0;
    for (let i = 0; i < localStorage.length; i++) {
      const key = localStorage.key(i);
      if (ours(key)) { into.put({v: localStorage.getItem(key), seq: nextSeq()}, key); count++; }
    }
    return finished(write).then(function () { return count; });
  }

  // The database deleted or upgraded under this tab (another tab's "clear site data"): closed, opened
  // again at once and every key copied in anew, so the next tap is durable again; said if that fails.
  function watch(opened) {
    opened.onversionchange = function () {
      opened.close();
      if (db === opened) db = null;
      reopening = open().then(function (again) {
        db = again;
        watch(again);
        return copyAll();
      }).then(function () {
        journal.reopened++;
        reopening = null;
        if (queue.length) flush();
      }, function (e) {
        reopening = null;
        db = null;
        failed(e || new Error("the safe copy was deleted"), 0);
        flush();  // the writes waiting for it: answered (not kept), so nothing waits on them
      });
    };
  }

  async function restore() {
    if (!RK.storage || !window.indexedDB || RK.indexedDB !== "ok") throw new Error("no storage");  // (boot.js: IndexedDB refused)
    db = await open();
    watch(db);
    let caught = Number(localStorage.getItem(SEQ_KEY));
    if (!validSeq(caught)) caught = 0;
    const range = IDBKeyRange.bound(RK.prefix, RK.prefix + "\uffff");
    const tx = strict("readonly");
    const store = tx.objectStore(STORE);
    const keys = await request(store.getAllKeys(range));
    const values = await request(store.getAll(range));
    let newest = caught;
    if (!keys.length) {
      // The first start with the journal: the earlier saves move in (in one transaction).
      journal.migrated = await copyAll();
      newest = seq;
    } else {
      const damaged = [];
      const behind = [];
      for (let j = 0; j < keys.length; j++) {
        const record = values[j];
        if (!ours(keys[j])) continue;
        if (!record || typeof record !== "object" || !validSeq(record.seq) || (typeof record.v !== "string" && record.v !== null)) {
          setAside(keys[j], record);  // unreadable: kept aside and said, never in the fight's place
          damaged.push(keys[j]);
          continue;
        }
        newest = Math.max(newest, record.seq);
        const here = localStorage.getItem(keys[j]);
        // (Only a record that differs from localStorage is parsed: a start reads every stored fight here.)
        const theirs = record.v === here ? null : versionOf(record.v), mine = theirs === null ? null : versionOf(here);
        if (theirs !== null && mine !== null && mine.rev > theirs.rev) {
          // A newer fight than the record: kept, and the journal brought up to it. (The page before
          // this one was closed or reloaded while its last write was on its way here: this tab's
          // next save, made from the newer version, would look like another tab's race and merge
          // it away.)
          behind.push([keys[j], here, mine]);
          continue;
        }
        if (record.seq <= caught) continue;  // localStorage has it (or newer)
        try {
          if (typeof record.v === "string") localStorage.setItem(keys[j], record.v);
          else localStorage.removeItem(keys[j]);
          journal.restored++;
        } catch (e) { journal.error = "restore: " + e.name; }
      }
      seq = Math.max(seq, newest);
      if (damaged.length || behind.length) {
        const clean = strict("readwrite");
        // out of the journal, so that the next start does not set them aside again
        damaged.forEach(function (k) { clean.objectStore(STORE).delete(k); });
        behind.forEach(function (b) { clean.objectStore(STORE).put({v: b[1], seq: nextSeq(), vid: b[2].vid}, b[0]); });
        await finished(clean);
      }
    }
    seq = Math.max(seq, newest);
    try { localStorage.setItem(SEQ_KEY, String(seq)); } catch (e) { /* full: the journal still has it */ }
    journal.ok = true;
  }

  // A write the page made to localStorage (value null: removed), made durable in the next
  // transaction (one per task: every write of one tap together).
  function put(key, value) {
    if ((!db && !reopening) || !ours(key)) return;
    queue.push([key, value === null || value === undefined ? null : String(value), nextSeq(), undefined, undefined, merged[key] || 0]);
    inflight[key] = (inflight[key] || 0) + 1;
    journal.pending++;
    if (queue.length === 1) Promise.resolve().then(flush);
  }

  // The write just queued for `key` is the version `vid` of the fight, made from the version `base`
  // (versions are the "vid" of a stored fight: one per write): it is stored only over `base`. Another
  // tab that stored another version meanwhile won the race: this tab's write is dropped here
  // (localStorage converges once Python has merged, journal.onConflict), and so is every later write
  // of this tab to that key until then. A record without a version (written before versions, or
  // not a fight) refuses nothing.
  function claim(key, vid, base) {
    for (let i = queue.length - 1; i >= 0; i--) {
      if (queue[i][0] === key) { queue[i][3] = String(vid); queue[i][4] = String(base); return; }
    }
  }

  // This tab wrote `key` and the journal has not answered yet, or refused it and Python has not merged:
  // another tab's version of it is not taken in meanwhile (web/app/storage/keeper: it is looked at once settled).
  function busy(key) { return !!inflight[key] || !!blocked[key]; }

  // Python has merged this tab's refused write of `key` (web/page/runtime): the writes it made before are in
  // that merge, and dropped like the refused one even where their transaction is still to run.
  function resolved(key) { delete blocked[key]; merged[key] = (merged[key] || 0) + 1; }

  // What the journal holds for `key` (a promise of the text, or null).
  function read(key) {
    if (!db) return Promise.resolve(null);
    return request(strict("readonly").objectStore(STORE).get(key)).then(function (r) {
      return r && typeof r.v === "string" ? r.v : null;
    });
  }

  // The writes of this batch answered (stored, refused or failed): keys no longer busy are said.
  function answered(batch) {
    const keys = [];
    batch.forEach(function (item) {
      if (!--inflight[item[0]]) { delete inflight[item[0]]; if (keys.indexOf(item[0]) < 0) keys.push(item[0]); }
    });
    keys.forEach(function (key) {
      if (!busy(key) && typeof journal.onSettled === "function") {
        try { journal.onSettled(key); } catch (e) { /* the next storage event looks again */ }
      }
    });
  }

  function flush() {
    if (reopening) return;  // flushed once the database is back
    const batch = queue;
    queue = [];
    if (!batch.length) return;
    if (!db) { journal.pending -= batch.length; answered(batch); return; }
    let tx;
    try { tx = strict("readwrite"); } catch (e) { failed(e, batch.length); answered(batch); return; }
    const store = tx.objectStore(STORE);
    const lost = [];
    // One read per key, then its writes in the order they were made: each is checked against the
    // record as the one before it left it (two reads in one transaction would both see the start).
    const byKey = {};
    const keys = [];
    batch.forEach(function (item) {
      if (!byKey[item[0]]) { byKey[item[0]] = []; keys.push(item[0]); }
      byKey[item[0]].push(item);
    });
    keys.forEach(function (key) {
      const got = store.get(key);
      got.onsuccess = function () {
        let old = got.result;
        byKey[key].forEach(function (item) {
          if (blocked[key] || item[5] !== (merged[key] || 0)) return;
          const claimed = item[3] !== undefined;
          if (claimed && old && typeof old.vid === "string" && old.vid !== item[4]) {
            blocked[key] = true;   // another tab stored another version than the one this write was made from
            journal.conflicts++;
            lost.push([key, item[3]]);
            return;
          }
          // A claimed write made from the record is stored over it; any other write, newest wins
          // (also against another tab's write of something else); a damaged record (its seq not a
          // valid number) never blocks a write.
          const older = old && validSeq(old.seq) ? old.seq : -1;
          if (claimed || !old || !(older >= item[2])) {
            const record = {v: item[1], seq: Math.max(item[2], older + 1)};
            if (claimed) record.vid = item[3];
            seq = Math.max(seq, record.seq);
            store.put(record, key);
            old = record;
          }
        });
      };
    });
    try { localStorage.setItem(SEQ_KEY, String(seq)); } catch (e) { /* full: the journal still has it */ }
    finished(tx).then(function () {
      journal.pending -= batch.length;
      lost.forEach(function (l) {
        if (typeof journal.onConflict === "function") {
          try { journal.onConflict(l[0], l[1]); } catch (e) { /* the page reloads the fight itself */ }
        }
      });
      answered(batch);
    }, function (e) { failed(e, batch.length); answered(batch); });
  }

  function failed(error, count) {
    journal.pending -= count;
    journal.error = (error && error.name) || String(error);
    if (typeof journal.onError === "function") {
      try { journal.onError(journal.error); } catch (e) { /* the page says it */ }
    }
  }

  // Always resolves: without IndexedDB the page runs on localStorage alone, as before.
  RK.journalReady = restore().catch(function (e) { journal.error = (e && e.name) || String(e); db = null; })
    .then(function () { performance.mark("rk:journal-ready"); });
})();
