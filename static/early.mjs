/* The players' view before the engine is ready (issue 40). A phone that opens a live link (#live=…)
   or the table display (#display) shows the fight as soon as it hears the game master's state, while
   Pyodide loads behind it: boot.js imports this module at once on those two routes only (a game
   master's start fetches none of it) and holds the engine's download back until the first view is
   drawn (RK.openEngine), so that a slow connection carries the view's few kilobytes first.

   Nothing of the game's rules is here. The game master's phone sends, inside every signed state, the
   view as its Python draws it (web/app/html.view_body_html); this module shows it through boot.js's
   allow-list (RK.cleanSnapshot: only the elements and attributes the view uses, as inert text and
   boxes), so that even a state signed by the right key cannot put a script, a link or a handler here.
   A state that is not signed by the key in the link never reaches this module (static/live.mjs
   verifies it first). The table display hears the game master's window on this device's
   BroadcastChannel, as its Python does.

   The drawing is the one the engine's own screen makes (web/app/render.live_follow_html): when the
   engine is ready it draws over it in place (RK.morph keeps the nodes that are the same: no flash),
   takes over the same join (live.mjs `connect`: no second join) and answers the taps made here
   (RK.early.taps: a claim, kept and said until then). */

const RK = globalThis.RK
const root = document.documentElement
const ROOM_CHARS = /^[A-Za-z0-9_-]+$/
const MAX_SERVERS = 8

// The live table's defaults and the modules a join loads (build.py writes them from pyengine/live.py).
const DEFAULTS = /*__RK_LIVE_DEFAULTS__*/{ relays: [], nostr: [], stun: [], modules: [] }
// The facts the page's Python and this file share (build.py writes them here from the Python that
// owns them, sitebuild/runtimes.py facts(), as into live.mjs, boot.js and journal.js).
const FACTS = /*__RK_FACTS__*/{ wire: { version: 0, max: 0, silentMs: 0 }, nextTurnGuardMs: 0, sealed: '', keys: { servers: '', device: '', backup: '' } }
const WIRE = FACTS.wire
const SILENT_MS = WIRE.silentMs   // nothing heard this long is "reconnecting…"

const early = RK.early = /** @type {RoundkeeperEarly} */ ({ route: RK.route, shown: false, heard: 0, taps: [], stopped: false, stop, note: '' })
const sheet = /** @type {HTMLDialogElement} */ (document.getElementById('sheet'))
const body = document.getElementById('sheet-body')
let channel = null
let ticker = null

function ready() { return root.dataset.engine === 'ready' }

// -- what the link says (as pyengine/live.read_room and web/app/params read it) ----------------------

function room(fragment) {
  const parts = fragment.split('.')
  if (parts.length !== 3) return null
  const [id, secret, key] = parts
  if (id.length < 6 || id.length > 40 || secret.length < 8 || secret.length > 60 || key.length < 80 || key.length > 100) return null
  return parts.every((p) => ROOM_CHARS.test(p)) ? parts : null
}

// A list of addresses as pyengine/live.read_servers takes it: null when unreadable (the caller's
// default then), [] for "none".
function servers(text, schemes) {
  if (text === null || text === undefined || !String(text).trim()) return null
  if (String(text).trim().toLowerCase() === 'none') return []
  const urls = String(text).split(',').map((u) => u.trim()).filter(Boolean)
  if (urls.length > MAX_SERVERS) return null
  const ok = urls.every((u) => schemes.some((s) => u.startsWith(s)) && u.length <= 200 && !/[\s'"<>;]/.test(u))
  return ok ? urls : null
}

function setting(name) {
  try {
    const raw = localStorage.getItem(RK.prefix + FACTS.keys.servers)
    const doc = raw && raw.length < 5000 ? JSON.parse(raw) : null
    const listed = doc && typeof doc === 'object' ? doc[name] : null
    return Array.isArray(listed) ? (listed.map(String).join(',') || 'none') : null
  } catch (e) { return null }
}

const RELAY = ['wss://', 'ws://']
const STUN = ['stun:', 'stuns:', 'turn:', 'turns:']

// The link's relays (empty: that network left out), else this phone's settings, else the defaults.
function relays(query, name, fallback) {
  const link = query.get(name)
  if (link !== null && !link.trim()) return []
  return servers(link !== null ? link : setting(name), RELAY) || fallback
}

function stunServers(query) {
  const defaults = DEFAULTS.stun
  const own = servers(setting('stun'), STUN) || defaults
  const link = query.get('stun')
  if (link === null) return own
  const asked = servers(link, STUN)
  if (asked === null) return own
  const listed = new Set([...own, ...defaults])
  const kept = asked.filter((s) => listed.has(s))
  return kept.length || !asked.length ? kept : own
}

// -- the screen ---------------------------------------------------------------------------------

function element(tag, attrs, text) {
  const node = document.createElement(tag)
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v)
  if (text !== undefined) node.textContent = text
  return node
}

function line(text, kind) {
  const node = document.getElementById('live-state')
  if (!node) return
  if (node.textContent !== text) node.textContent = text
  node.setAttribute('data-state', kind)
}

function draw(doc) {
  if (early.stopped || ready()) return
  const display = early.route === 'display'
  const view = element('div', { class: 'live-view' + (display ? ' display' : ''), 'data-testid': 'live-view' })
  view.appendChild(element('p', { class: 'live-state', id: 'live-state', 'data-testid': 'live-state', 'data-state': 'waiting', 'aria-live': 'polite' },
    display ? 'connecting…' : 'connecting… looking for the game master\'s phone'))
  const shown = [view]
  if (doc && typeof doc.html === 'string') {
    view.appendChild(RK.cleanSnapshot(doc.html))
  } else {
    view.appendChild(element('p', { class: 'muted' }, 'Waiting for the game master\'s phone…'))
  }
  if (!display) {
    const party = doc && Array.isArray(doc.ids) ? doc.ids.filter((r) => Array.isArray(r) && r.length === 3 && r[2] === 'p'
      && typeof r[0] === 'string' && ROOM_CHARS.test(r[0]) && typeof r[1] === 'string') : []
    if (party.length && firstTime()) {
      // A phone at its first table: "Which one is you?" as the engine's screen draws it, its tap kept.
      shown.push(element('h4', {}, 'Which one is you?'))
      const grid = element('div', { class: 'grid2' })
      for (const [id, name] of party.slice(0, 100)) {
        const button = element('button', { type: 'button', 'data-action': 'live-claim', 'data-id': id, 'data-testid': 'claim' }, name.slice(0, 200))
        if (early.taps.some((t) => t[1] === id)) button.setAttribute('aria-pressed', 'true')
        grid.appendChild(button)
      }
      shown.push(grid)
    }
    shown.push(element('p', { class: 'request-state', id: 'request-state', 'data-testid': 'request-state', 'aria-live': 'polite' }, early.note))
    shown.push(element('p', { class: 'muted', id: 'early-note', 'data-testid': 'early-note' }, 'Getting your controls ready…'))
  }
  body.replaceChildren(...shown)
  if (doc) {
    early.shown = true
    early.heard = Date.now()
    line('live', 'live')
  }
  if (!sheet.open) {
    sheet.classList.add('page', 'early')  // (its Close waits for the engine, which closes it: hidden till then)
    try { sheet.showModal() } catch (e) { sheet.setAttribute('open', '') }
  }
}

// Whether this phone has been at a live table before (the engine keeps its lasting id): one that has
// is told by the game master's phone whom it plays, once its engine says hello; until then it is
// shown no choice it may not need.
function firstTime() {
  try { return !localStorage.getItem(RK.prefix + FACTS.keys.device) } catch (e) { return true }
}

function tapped(event) {
  if (early.stopped || ready()) return
  const button = event.target.closest && event.target.closest('[data-action=live-claim]')
  if (!button || !body.contains(button)) return
  const id = button.getAttribute('data-id')
  const name = button.textContent
  early.taps = [['live-claim', id]]  // the last choice stands (a claim on another character replaces it)
  early.note = `${name}: sent to the game master as soon as your controls are ready (a moment).`
  for (const b of body.querySelectorAll('[data-action=live-claim]')) b.setAttribute('aria-pressed', b === button ? 'true' : 'false')
  const said = document.getElementById('request-state')
  if (said) said.textContent = early.note
}

function tick() {
  if (early.stopped || ready()) return
  if (early.shown && Date.now() - early.heard > SILENT_MS) line('reconnecting…', 'waiting')
}

// The engine takes over: nothing more is drawn or listened to here (the DOM is left as it is, for the
// engine's screen to draw over in place).
function stop() {
  if (early.stopped) return
  early.stopped = true
  sheet.classList.remove('early')
  if (channel) { channel.close(); channel = null }
  if (ticker) { clearInterval(ticker); ticker = null }
  body.removeEventListener('click', tapped)
  sheet.removeEventListener('cancel', kept)
}

function kept(event) { if (!early.stopped) event.preventDefault() }  // Escape: the view is the page's screen

function heard(doc) {
  if (early.stopped || ready()) return
  if (doc === null) {  // a heartbeat
    early.heard = Date.now()
    if (early.shown) line('live', 'live')
    return
  }
  draw(doc)
  RK.openEngine('view')
}

// The engine could not start: the view stays (the fight is still worth seeing), and says so, with Retry.
function failed() {
  if (early.stopped || root.dataset.engine !== 'failed') return
  const note = document.getElementById('early-note') || body.appendChild(element('p', { class: 'muted', id: 'early-note', 'data-testid': 'early-note' }))
  const why = (document.getElementById('boot-error-text') || {}).textContent || 'The rules engine could not start.'
  note.textContent = `${why} The fight above still follows the game master's phone; your controls need the engine. `
  const retry = element('button', { type: 'button', 'data-testid': 'early-retry' }, 'Retry')
  retry.addEventListener('click', () => location.reload())
  note.appendChild(retry)
}

async function start() {
  if (ready()) {  // (the engine was quicker: nothing to draw before it)
    early.stopped = true
    return
  }
  new MutationObserver(failed).observe(root, { attributes: true, attributeFilter: ['data-engine'] })
  if (early.route === 'display') {
    // Nothing of a tracker in a table display's page, from its first moment (the engine's start does the
    // same once ready; the boot error's place stays, to say a failed start).
    for (const node of document.querySelectorAll('#app > .area, #dock, #menu-button, #sheet .sheet-head')) node.remove()
  }
  draw(null)
  body.addEventListener('click', tapped)
  sheet.addEventListener('cancel', kept)
  ticker = setInterval(tick, 2000)
  if (early.route === 'display') {
    if (!globalThis.BroadcastChannel || !globalThis.crypto || !crypto.subtle) return RK.openEngine('no channel')
    // Only what the game master's window sealed with this display's key (its address's ?dkey=, web/app/seal.py):
    // another page of this origin can post on the channel, not seal.
    const dkey = new URLSearchParams(location.search).get('dkey') || ''
    if (!/^[A-Za-z0-9_-]{22,64}$/.test(dkey)) return RK.openEngine('no key')  // (the engine says what to do)
    const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(dkey), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify'])
    let order = Promise.resolve()  // (checked one after another: what the window posted, in its order)
    channel = new BroadcastChannel(RK.prefix + 'live')
    channel.onmessage = (event) => {
      const data = event.data
      if (typeof data !== 'string' || data.length > WIRE.max + 100 || data[0] !== FACTS.sealed) return
      order = order.then(async () => {
        const bar = data.indexOf('|')
        if (bar < 0) return
        const text = data.slice(bar + 1)
        let mac
        try { mac = Uint8Array.from(atob(data.slice(1, bar).replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0)) } catch (e) { return }
        if (!await crypto.subtle.verify('HMAC', key, mac, new TextEncoder().encode(text))) return
        let doc
        try { doc = JSON.parse(text) } catch (e) { return }
        if (!doc || typeof doc !== 'object' || doc.v !== WIRE.version || (doc.t !== 'state' && doc.t !== 'beat')) return
        heard(doc.t === 'beat' ? null : doc)
      })
    }
    channel.postMessage(JSON.stringify({ v: WIRE.version, t: 'hello', name: '', device: '' }))  // as the display's engine says it
    return
  }
  const found = room(location.hash.slice('#live='.length))
  if (!found) return RK.openEngine('bad link')  // the engine says what is wrong with it
  for (const path of DEFAULTS.modules) {  // all at once: a slow connection's round trips, not one per import level
    document.head.appendChild(element('link', { rel: 'modulepreload', href: new URL(path, document.baseURI).href }))
  }
  const query = new URLSearchParams(location.search)
  const torrent = relays(query, 'relays', DEFAULTS.relays)
  const nostr = relays(query, 'nostr', DEFAULTS.nostr)
  if (!torrent.length && !nostr.length) return RK.openEngine('no relays')
  try {
    const live = await RK.importLive()
    if (ready() || early.stopped) return
    await live.follow(found[0], found[1], torrent, nostr, stunServers(query), found[2], heard)
  } catch (e) {
    early.error = String(e && e.message || e).slice(0, 200)
    RK.openEngine('failed')
  }
}

start()
