// The live table's connection to the other phones at the table: Trystero (pinned from npm, served
// from ./trystero/ like Pyodide), whose torrent strategy meets peers through WebTorrent trackers and
// then talks WebRTC data channels, phone to phone, encrypted. Loaded the first time a table goes live.
//
// One writer: the game master's phone signs what it sends (ECDSA P-256, WebCrypto); its public key
// travels in the join link with the room, so a follower takes the game master's states and nobody
// else's, even from another phone in the same room. Everything received goes to Python as text
// (pyengine/live.py reads it whole); what is not text, too large or wrongly signed goes as null, to
// be counted and dropped.
// The facts the page's Python and this file share (build.py writes them here from the Python that
// owns them, sitebuild/runtimes.py facts(): one source for both sides).
const FACTS = /*__RK_FACTS__*/{ wire: { version: 0, max: 0, silentMs: 0 }, nextTurnGuardMs: 0, sealed: '', keys: { servers: '', device: '', backup: '' } }
const WIRE = FACTS.wire
const MAX_MESSAGE = WIRE.max
const SIGNED = 'S'

/** A message of the wire, read whole: its JSON, with the wire's version and a kind (`t`), else null.
    @param {string} text @returns {{ v: number, t: string, [field: string]: any } | null} */
function wireDoc(text) {
  let doc
  try { doc = JSON.parse(text) } catch (e) { return null }
  return doc && typeof doc === 'object' && doc.v === WIRE.version && typeof doc.t === 'string' ? doc : null
}
const ECDSA = { name: 'ECDSA', namedCurve: 'P-256' }
const SIGNING = { name: 'ECDSA', hash: 'SHA-256' }
let signer = null
let ownKey = null          // the host's public key: its own states, passed on by followers, are dropped quietly
const passedOn = new Set()  // a follower passes each signed message on once (by its signature)

// Trystero splits a message into 16 KB chunks and keeps every chunk of an unfinished message until
// its last one comes: a hostile peer that never sends it (or sends thousands of them) grows this
// page's memory without bound, and the 64 KB check only runs on a whole message. Trystero offers no
// hook there, so its data channels are wrapped before its handler sees a frame (`rtcPolyfill`: our
// RTCPeerConnection, whose channels' `onmessage` goes through `guard`). A data frame is [1, the room
// token's length (2 bytes), the token, a chunk: the action's name (32 bytes), its nonce (2), a tag
// whose bit 0 marks the last chunk, progress (1), payload] (@trystero-p2p/core 0.25.4, shared-peer and
// action-wire). Per channel: at most MAX_TOKENS rooms, a message may not grow past MAX_WIRE bytes, at
// most MAX_OPEN may be unfinished, and one unfinished for STALE_MS is closed. Closing one hands
// Trystero a last chunk of its own (empty), so that it frees what it kept; the short message it then
// assembles is refused and counted like any other.
// And a channel's frames pass at most FRAME_BURST at once and FRAME_RATE a second (issue 51, item 11):
// every frame is a task of the page's, which the browser runs before the page's own timers, so a flood
// of small messages (3,000 from one phone) held the game master's timers up to 400 ms even when each
// was dropped by the page's own rate limit (web/app/update/live.py: 20 at once, 5 a second). Past the
// bucket a message is dropped here unread, counted in `guardStats.unread` (the game master's line says
// it); a whole one-chunk message (a flood's every frame) is dropped by its first three bytes and its
// tag, before its room or name is read or anything is made for it (`guardStats.early`): with strings
// and copies made for each dropped frame, 810 of them in one burst took 30 ms of the page's (a 20 ms
// timer ran 51 ms late); now 585 take 1.3 ms. A bucket four times a large state a second: no honest phone comes near.
const CHUNK_HEADER = 36
const MAX_WIRE = 4 * MAX_MESSAGE + 4096   // a 64,000-character message as UTF-8, at most
const MAX_OPEN = 8
const MAX_TOKENS = 2
const STALE_MS = 15000
const FRAME_BURST = 256
const FRAME_RATE = 64     // frames a second, refilled
export const guardStats = { dropped: 0, closed: 0, open: 0, unread: 0, early: 0 }  // (early: unread, and dropped before anything was read of it)

function guard(channel) {
  let handler = null
  const open = new Map()     // the room token, the action's name and the nonce -> { bytes, at, prefix, cut }
  const tokens = new Set()
  const text = (bytes) => String.fromCharCode.apply(null, bytes)
  const close = (key, t) => {  // an empty last chunk: Trystero assembles what it kept, and frees it
    open.delete(key)
    guardStats.closed++
    const last = new Uint8Array(t.prefix.byteLength + 2)  // the frame up to the nonce, then the tag (last) and progress
    last.set(t.prefix)
    last[t.prefix.byteLength] = 1
    last[t.prefix.byteLength + 1] = 255
    if (handler) handler({ data: last.buffer })
  }
  const sweep = (now) => {
    for (const [key, t] of open) if (now - t.at > STALE_MS) { if (t.unseen) open.delete(key); else close(key, t) }
    guardStats.open = open.size
  }
  const timer = setInterval(() => sweep(Date.now()), 5000)
  channel.addEventListener('close', () => clearInterval(timer))
  let frames = FRAME_BURST
  let filled = performance.now()
  const take = () => {  // a frame from the bucket: false when it is empty
    const now = performance.now()
    frames = Math.min(FRAME_BURST, frames + (now - filled) * FRAME_RATE / 1000)
    filled = now
    if (frames < 1) return false
    frames--
    return true
  }
  const unread = () => { guardStats.dropped++; guardStats.unread++ }
  channel.addEventListener('message', (e) => {
    const data = e.data
    if (!handler) return
    if (!(data instanceof ArrayBuffer)) return unread()
    const frame = new Uint8Array(data)
    if (frame[0] !== 1) return take() ? handler(e) : unread()  // a presence frame (small) or another kind: Trystero's to read
    const start = 3 + (frame[1] << 8 | frame[2])
    if (data.byteLength < start + CHUNK_HEADER) return unread()
    const isLast = frame[start + 34] & 1
    // A whole message in one chunk with none under way (a flood's every frame): the bucket first, so
    // that one past it is dropped before anything is read of it or made for it (no strings, no
    // copies: less for the collector, whose pauses fall between the page's timers too).
    const whole = isLast && open.size === 0
    const paid = whole && take()  // (then it begins below, its token taken)
    if (whole && !paid) { guardStats.early++; return unread() }
    const token = text(frame.subarray(3, start))
    if (!tokens.has(token)) {
      if (tokens.size >= MAX_TOKENS) return unread()  // made-up rooms: Trystero would queue them all
      tokens.add(token)
    }
    const key = token + '|' + text(frame.subarray(start, start + 34))
    const now = Date.now()
    let t = open.get(key)
    if (!t) {  // a message begins
      sweep(now)
      if (!isLast && open.size >= MAX_OPEN) return unread()
      if (!paid && !take()) {  // too fast: dropped, and the rest of it as it comes (up to its last chunk)
        unread()
        if (!isLast) open.set(key, { bytes: 0, at: now, prefix: null, cut: true, unseen: true })  // (Trystero has none of it to free)
        return
      }
      t = { bytes: 0, at: now, prefix: frame.slice(0, start + 34), cut: false }
    } else if (!t.cut) frames--  // the rest of a message begun: it costs the bucket but is not cut short
    if (t.cut) {  // past the limit: dropped up to its own last chunk
      guardStats.dropped++
      if (isLast) open.delete(key)
      return
    }
    t.bytes += data.byteLength - start - CHUNK_HEADER
    if (t.bytes > MAX_WIRE) {
      unread()
      close(key, t)
      if (!isLast) open.set(key, { ...t, cut: true, unseen: true })  // (freed by Trystero already)
      return
    }
    if (isLast) open.delete(key)
    else open.set(key, t)
    handler(e)
  })
  Object.defineProperty(channel, 'onmessage', { configurable: true, get: () => handler, set: (fn) => { handler = fn } })
  return channel
}

class GuardedPeerConnection extends RTCPeerConnection {
  /** @param {string} label @param {RTCDataChannelInit} [init] */
  createDataChannel(label, init) { return guard(super.createDataChannel(label, init)) }
  /** @param {((e: RTCDataChannelEvent) => void) | null} fn */
  set ondatachannel(fn) { super.ondatachannel = fn ? (e) => { guard(e.channel); fn(e) } : null }
  get ondatachannel() { return super.ondatachannel }
}

const b64 = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
const unb64 = (text) => Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0))

// The game master's key: the one kept from before (JWK text), else a new one. Returns [JWK text, public key].
export async function hostKey(kept) {
  let privateKey
  let jwk = kept
  if (kept) {
    try {
      privateKey = await crypto.subtle.importKey('jwk', JSON.parse(kept), ECDSA, true, ['sign'])
    } catch (e) { privateKey = null }
  }
  if (!privateKey) {
    const pair = await crypto.subtle.generateKey(ECDSA, true, ['sign', 'verify'])
    privateKey = pair.privateKey
    jwk = JSON.stringify(await crypto.subtle.exportKey('jwk', privateKey))
  }
  const { d, key_ops, ...pub } = JSON.parse(jwk)
  const publicKey = await crypto.subtle.importKey('jwk', { ...pub, key_ops: ['verify'] }, ECDSA, true, ['verify'])
  signer = privateKey
  ownKey = publicKey
  return [jwk, b64(await crypto.subtle.exportKey('raw', publicKey))]
}

// This page's id in the room (the game master's is named inside its signed states: a follower says
// hello and asks only there, never to the other players' phones).
let ownId = ''
export function me() { return ownId }

// Where peers and their messages go (Python's Transport), for the room at the relays and the direct
// connections alike.
/** What the page hears: a peer met or gone, a message (null: refused before reaching Python), a direct link that failed.
    @type {{ onPeer: (id: string, joined: boolean) => void, onMessage: (id: string, text: string | null) => void, onFail: (id: string) => void }} */
let handlers = { onPeer: () => {}, onMessage: () => {}, onFail: () => {} }
export function listen(onPeer, onMessage, onFail) { handlers = { onPeer: inboxed(onPeer), onMessage: inboxed(onMessage), onFail } }

// What comes in (peers met or gone, messages) goes to the page in bounded slices, in the order it came
// (issue 51): a flood's messages wait their turn in timer tasks, between the page's own timers and
// taps, instead of running back to back as the data channel delivers them (a 20 ms timer of the game
// master's page ran 414 ms late under 3,000 requests). A slice ends after SLICE_MOST items or
// SLICE_MS (two slices may come due before a timer: at 8 ms they held it 16-20 ms); past INBOX_MOST
// waiting, what comes is dropped and counted (the page's own rate limit would drop it anyway).
const SLICE_MS = 4
const SLICE_MOST = 64
const INBOX_MOST = 5000
const inbox = []
let inboxAt = 0
let draining = false
export const inboxStats = { slices: 0, most: 0, dropped: 0, at: 0 }  // (at: when the last slice ended)

function inboxed(fn) {
  return (...args) => {
    if (inbox.length - inboxAt >= INBOX_MOST) { inboxStats.dropped++; return }
    inbox.push([fn, args])
    if (!draining) { draining = true; setTimeout(drain, 0) }
  }
}

function drain() {
  const until = performance.now() + SLICE_MS
  let n = 0
  while (inboxAt < inbox.length && n < SLICE_MOST && (n === 0 || performance.now() < until)) {
    const [fn, args] = inbox[inboxAt]
    inbox[inboxAt++] = null
    n++
    try { fn(...args) } catch (e) { /* the page says what went wrong */ }
  }
  inboxStats.slices++
  inboxStats.most = Math.max(inboxStats.most, n)
  inboxStats.at = performance.timeOrigin + performance.now()
  if (inboxAt >= inbox.length) { inbox.length = 0; inboxAt = 0; draining = false } else setTimeout(drain, 0)
}

// The room is joined on two relay networks at once (issue 36): WebTorrent trackers (Trystero's torrent
// strategy) and Nostr relays (its nostr strategy: signed events with an ephemeral key, the offers and
// answers encrypted with the room's password). Both share Trystero's core, so this phone is one peer
// (one selfId) on either; a phone met on both is one follower: it is announced once (when the first
// network meets it, gone when the last loses it), and each message goes to it over one network only
// (the first network, in NETWORKS order, that has it connected now), so nothing arrives twice.
const NETWORKS = [['nostr', './trystero/nostr.mjs'], ['torrent', './trystero/torrent.mjs']]
let rooms = []               // { net, module, room, channel }
const met = new Map()        // peerId -> the rooms (in order met) it is connected through

// Where the rooms' peers and messages go: Python's Transport, or, on a phone whose engine is not ready
// yet, the early view (`follow`). `stats`: how often this page joined a room and took one over (tests).
/** @type {{ peer: (id: string, joined: boolean) => void, message: (id: string, text: string | null) => void }} */
let deliver = { peer: () => {}, message: () => {} }
export const stats = { joins: 0, adopted: 0 }
let early = null          // the early view's join: { key, last: [peer id, the newest state's text] | null }
let earlyJoining = null   // its join while under way
let engineJoined = false  // Python has joined: the early view joins nothing any more

const joinKey = (roomId, secret, relays, nostr, stun, hostPublic) =>
  JSON.stringify([roomId, secret, Array.from(relays), Array.from(nostr), Array.from(stun), hostPublic || ''])

// A phone that opens a live link before its engine is ready (static/early.mjs, issue 40): the room is
// joined at once, and each state of the game master's (verified as any: signed by the key in the link)
// that is newer than the last, by its page and revision as pyengine/live.newer reads them, goes to
// `onState(doc)`; a heartbeat to `onState(null)`. Python's own `connect` to the same room, with the
// same relays, takes this join over: no second join, one phone on the game master's line.
export async function follow(roomId, secret, relays, nostr, stun, hostPublic, onState) {
  if (engineJoined || early || earlyJoining || !hostPublic) return false
  const kept = { key: joinKey(roomId, secret, relays, nostr, stun, hostPublic), last: null }
  const shown = { ses: null, rev: -1, past: new Set() }
  const message = (peerId, text) => {
    if (typeof text !== 'string') return
    const doc = wireDoc(text)
    if (doc && doc.t === 'beat') return onState(null)
    if (!doc || doc.t !== 'state' || !Number.isSafeInteger(doc.rev) || typeof doc.ses !== 'string') return
    if (doc.ses === shown.ses ? doc.rev <= shown.rev : shown.past.has(doc.ses)) return  // older, or a page left behind
    if (shown.ses !== null && doc.ses !== shown.ses) shown.past.add(shown.ses)
    shown.ses = doc.ses
    shown.rev = doc.rev
    kept.last = [peerId, text]
    onState(doc)
  }
  earlyJoining = join(roomId, secret, relays, nostr, stun, () => {}, message, hostPublic)
  try {
    await earlyJoining
  } finally {
    earlyJoining = null
  }
  // (Python's connect, if it came meanwhile, waits for this join and then takes it: it runs after this.)
  if (!rooms.length) return false
  early = kept
  return true
}

/** @type {(id: string) => void} */
let peersGone = () => {}  // what a left room's peers were: gone (a join again is a new meeting)

export async function connect(roomId, secret, relays, nostr, stun, onPeer, onMessage, hostPublic) {
  engineJoined = true
  if (earlyJoining) await settled([earlyJoining], LEAVE_WAIT_MS * 3)
  const taken = early
  early = null
  if (taken && rooms.length && taken.key === joinKey(roomId, secret, relays, nostr, stun, hostPublic)) {
    // The early view's join, taken over as it is: the peers met so far, then the newest state, told again.
    deliver = { peer: inboxed(onPeer), message: inboxed(onMessage) }
    stats.adopted++
    for (const id of met.keys()) onPeer(id, true)
    if (taken.last) onMessage(taken.last[0], taken.last[1])
    return
  }
  return join(roomId, secret, relays, nostr, stun, onPeer, onMessage, hostPublic)
}

async function join(roomId, secret, relays, nostr, stun, onPeer, onMessage, hostPublic) {
  // Joining again (a follower that lost the game master): the room left first, and wholly. Trystero
  // leaves a room asynchronously and, until it has, `joinRoom` with the same name hands back the room
  // being left, which then dies: the phone sat in no room until its next join.
  await settled(leaveRoom(), LEAVE_WAIT_MS)
  deliver = { peer: inboxed(onPeer), message: inboxed(onMessage) }
  peersGone = (id) => deliver.peer(id, false)
  stats.joins++
  guardStats.unread = guardStats.early = 0  // (the game master's line counts this room's)
  let verifier = null
  if (hostPublic) {
    verifier = await crypto.subtle.importKey('raw', unb64(hostPublic), ECDSA, false, ['verify'])
    signer = null
    ownKey = null
  }
  const urls = { torrent: Array.from(relays), nostr: Array.from(nostr) }
  const joined = []
  const used = NETWORKS.filter(([net]) => urls[net].length)
  const modules = await Promise.all(used.map(([, path]) => import(path)))  // (loaded side by side)
  for (const [i, [net]] of used.entries()) {
    const module = modules[i]
    ownId = module.selfId
    const room = module.joinRoom({
      appId: 'roundkeeper-live-1',
      password: secret,
      relayConfig: { urls: urls[net] },
      rtcConfig: { iceServers: stun.length ? [{ urls: Array.from(stun) }] : [] },
      rtcPolyfill: GuardedPeerConnection,
    }, roomId)
    const entry = { net, module, room, channel: room.makeAction('rk') }
    entry.channel.onMessage = async (data, meta) => {
      if (typeof data !== 'string' || data.length > MAX_MESSAGE + 200) return deliver.message(meta.peerId, null)
      if (!verifier) {
        if (ownKey && data[0] === SIGNED && await verified(ownKey, data) !== null) return  // our own, passed back
        return deliver.message(meta.peerId, data)
      }
      const text = await verified(verifier, data)
      if (text !== null) passOn(data, meta.peerId)
      deliver.message(meta.peerId, text)
    }
    room.onPeerJoin = (peerId) => {
      const through = met.get(peerId) || []
      if (!through.includes(entry)) through.push(entry)
      met.set(peerId, through)
      if (through.length === 1) deliver.peer(peerId, true)
    }
    room.onPeerLeave = (peerId) => {
      const through = (met.get(peerId) || []).filter((e) => e !== entry)
      if (through.length) { met.set(peerId, through); return }
      if (met.delete(peerId)) deliver.peer(peerId, false)
    }
    joined.push(entry)
  }
  rooms = joined
  if (joined.length) watchRelays(joined[0].module)
}

// A relay that goes down: Trystero retries it with a doubling back-off and gives it up for good once
// the wait would reach a minute (~100 s down), so a relay restarted later would never be used again
// by this page. Its reconnection is held instead (its own pause, as for a phone offline) and released
// every RELAY_RETRY_MS: each relay that is down tries once more, and again at the next release.
const RELAY_RETRY_MS = 6000
let relayWatch = null
function watchRelays(module) {
  if (relayWatch) return
  module.pauseRelayReconnection()
  relayWatch = setInterval(() => {
    module.resumeRelayReconnection()
    setTimeout(() => module.pauseRelayReconnection(), 0)  // (after the release has run: a new hold)
  }, RELAY_RETRY_MS)
}

// Each peer over one network (the first, in NETWORKS order, whose room has it connected now:
// Trystero's own peers, so a peer's new connection after a drop is used at once): [room entry, its
// peer ids] for `targets` (all: null), less `except`.
function routes(targets, except) {
  const by = new Map()
  const done = new Set(except ? [except] : [])
  for (const entry of rooms) {
    const ids = Object.keys(entry.room.getPeers()).filter((id) => !done.has(id) && (!targets || targets.includes(id)))
    ids.forEach((id) => done.add(id))
    if (ids.length) by.set(entry, ids)
  }
  return by
}

// The relays' tracker hands each phone's offers to a few others at random, so in a larger room a
// phone may meet other players before it meets the game master: what the game master signed is
// passed on once by every follower, so whoever is met first brings the fight.
function passOn(data, from) {
  const bar = data.indexOf('|')
  // Only what is for everyone (the present, the heartbeat): what the game master tells one phone is not passed on.
  const doc = wireDoc(data.slice(bar + 1))
  if (!doc || (doc.t !== 'state' && doc.t !== 'beat')) return
  const signature = data.slice(1, bar)
  if (passedOn.has(signature)) return
  passedOn.add(signature)
  if (passedOn.size > 1000) passedOn.delete(passedOn.values().next().value)
  for (const [entry, ids] of routes(null, from)) quietly(entry.channel.send(data, { target: ids }))
}

async function verified(key, data) {
  const bar = data.indexOf('|')
  if (data[0] !== SIGNED || bar < 0) return null
  try {
    const ok = await crypto.subtle.verify(SIGNING, key, unb64(data.slice(1, bar)), new TextEncoder().encode(data.slice(bar + 1)))
    return ok ? data.slice(bar + 1) : null
  } catch (e) { return null }
}

export async function send(text, peerId) {
  if (!rooms.length && !direct.size) return
  let out = text
  if (signer) {
    const sig = await crypto.subtle.sign(SIGNING, signer, new TextEncoder().encode(text))
    out = SIGNED + b64(sig) + '|' + text
  }
  const near = peerId ? direct.get(peerId) : null
  if (near || !peerId) {
    for (const [id, link] of direct) {
      if ((!peerId || id === peerId) && link.dc.readyState === 'open') {
        try { link.dc.send(out) } catch (e) { /* closing */ }
      }
    }
    if (near) return
  }
  for (const [entry, ids] of routes(peerId ? [peerId] : null, null)) {
    try { quietly(entry.channel.send(out, { target: ids })) } catch (e) { /* a peer that just left */ }
  }
}

// How the relays answer, per network: [Nostr up, Nostr asked, WebTorrent up, WebTorrent asked]
// (-1, -1: that network is not used by this room; all -1: not at the relays).
export function relaysUp() {
  const out = []
  for (const [net] of NETWORKS) {
    const entry = rooms.find((e) => e.net === net)
    if (!entry) { out.push(-1, -1); continue }
    const sockets = Object.values(entry.module.getRelaySockets())
    out.push(sockets.filter((s) => s && s.readyState === 1).length, sockets.length)
  }
  return out
}

const LEAVE_WAIT_MS = 3000
const settled = (promises, ms) => Promise.race([Promise.allSettled(promises), new Promise((resolve) => setTimeout(resolve, ms))])

// Leaves the rooms; returns the promises of their leaving.
function leaveRoom() {
  const leaving = rooms.map((entry) => Promise.resolve(entry.room.leave()))
  rooms = []
  // Trystero says nothing of the peers of a room left: they are gone for this page until met again
  // (a message to one meanwhile would go nowhere, unsaid).
  for (const id of met.keys()) peersGone(id)
  met.clear()
  return leaving
}

export function leave() {
  early = null
  leaveRoom()
  for (const id of [...direct.keys()]) closeDirect(id)
  for (const [token, p] of pending) { p.pc.close(); pending.delete(token) }
}

// -- No internet: direct connections, their details carried by two codes (pyengine/pairing.py) ------
//
// No STUN, no relay: each phone offers only its host candidates (its own addresses on the Wi-Fi),
// and the whole description is waited for (no trickle: a code is read once). One data channel,
// agreed on both sides (negotiated, id 0). The game master's phone makes one offer a player; a
// player's phone has one game master. The channel is authenticated by the certificate fingerprints
// the codes carried from screen to camera, so what comes on it from the game master's phone is
// taken without the relays' signature check (its signature, if any, is dropped).
const direct = new Map()   // peer id -> { pc, dc }
const pending = new Map()  // offer token -> { pc, dc, id } (the game master's, until its answer is read)
const everOpened = new Set() // direct peers that connected once (a drop later is not "could not connect")
const OPEN_WAIT_MS = 20000 // an answer read that does not connect this long: the phones cannot reach each other
const GATHER_MS = 4000     // the longest wait for this phone's addresses

function gathered(pc) {
  return new Promise((resolve) => {
    if (pc.iceGatheringState === 'complete') return resolve()
    const done = () => { if (pc.iceGatheringState === 'complete') { clearTimeout(timer); resolve() } }
    const timer = setTimeout(resolve, GATHER_MS)
    pc.addEventListener('icegatheringstatechange', done)
  })
}

function wire(id, pc, dc, fromHost) {
  let opened = false
  let away = false  // connected once, then the other phone stopped answering (it may come back)
  dc.onopen = () => { opened = true; everOpened.add(id); direct.set(id, { pc, dc }); handlers.onPeer(id, true) }
  dc.onclose = () => { if (direct.get(id)?.dc === dc) direct.delete(id); if (opened && !away) handlers.onPeer(id, false) }
  dc.onmessage = (event) => {
    let data = event.data
    if (typeof data !== 'string' || data.length > MAX_MESSAGE + 200) return handlers.onMessage(id, null)
    if (fromHost && data[0] === SIGNED) data = data.slice(data.indexOf('|') + 1)
    handlers.onMessage(id, data)
  }
  pc.onconnectionstatechange = () => {
    const state = pc.connectionState
    if (state === 'failed' && !opened) handlers.onFail(id)
    if ((state === 'failed' || state === 'closed') && opened) dc.close()
    // A phone that is switched off or killed says nothing: its connection goes "disconnected" within
    // seconds (ICE consent), "failed" only after half a minute. Said at once; taken back if it answers again.
    if (state === 'disconnected' && opened && !away) { away = true; handlers.onPeer(id, false) }
    if (state === 'connected' && away && dc.readyState === 'open') { away = false; handlers.onPeer(id, true) }
  }
}

function closeDirect(id) {
  const link = direct.get(id)
  direct.delete(id)
  if (link) { link.dc.close(); link.pc.close() }
}

function channelFor(pc) { return pc.createDataChannel('rk', { negotiated: true, id: 0, ordered: true }) }

// The game master's phone: a new offer (its description, all addresses in), kept under `token`.
export async function offer(token) {
  // Offers never answered (the game master made a new code) are let go, all but the last few (one
  // may be answered just now: Python refuses answers to older codes before they get here).
  for (const [old, p] of [...pending].slice(0, -3)) { p.pc.close(); pending.delete(old) }
  const pc = new RTCPeerConnection({ iceServers: [] })
  const dc = channelFor(pc)
  const id = 'direct-' + token
  wire(id, pc, dc, false)
  await pc.setLocalDescription(await pc.createOffer())
  await gathered(pc)
  pending.set(token, { pc, dc, id })
  return pc.localDescription.sdp
}

// The game master's phone read a player's answer to the offer `token`: connect (once; false when
// that offer was answered or dropped already).
export async function answered(token, sdp) {
  const p = pending.get(token)
  if (!p) return false
  pending.delete(token)
  await p.pc.setRemoteDescription({ type: 'answer', sdp })
  setTimeout(() => { if (!everOpened.has(p.id) && p.pc.connectionState !== 'closed') { handlers.onFail(p.id); p.pc.close() } }, OPEN_WAIT_MS)
  return true
}

// A player's phone read the game master's offer: its answer's description (all addresses in). The
// game master's phone is then the peer 'direct-gm'.
export async function accept(sdp) {
  closeDirect('direct-gm')
  const pc = new RTCPeerConnection({ iceServers: [] })
  const dc = channelFor(pc)
  wire('direct-gm', pc, dc, true)
  await pc.setRemoteDescription({ type: 'offer', sdp })
  await pc.setLocalDescription(await pc.createAnswer())
  await gathered(pc)
  return pc.localDescription.sdp
}

// What the last descriptions offered (for the bench and the note: host addresses or hidden .local names).
export function candidatesOf(sdp) {
  return sdp.split(/\r?\n/).filter((l) => l.startsWith('a=candidate:')).map((l) => l.split(' ').slice(4, 8).join(' '))
}

function quietly(sent) {
  if (sent && typeof sent.catch === 'function') sent.catch(() => {})
}
