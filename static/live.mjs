// The live table's connection to the other phones at the table: Trystero (pinned from npm, served
// from ./trystero/ like Pyodide), whose torrent strategy meets peers through WebTorrent trackers and
// then talks WebRTC data channels, phone to phone, encrypted. Loaded the first time a table goes live.
//
// One writer: the game master's phone signs what it sends (ECDSA P-256, WebCrypto); its public key
// travels in the join link with the room, so a follower takes the game master's states and nobody
// else's, even from another phone in the same room. Everything received goes to Python as text
// (pyengine/live.py reads it whole); what is not text, too large or wrongly signed goes as null, to
// be counted and dropped.
const MAX_MESSAGE = 64000
const SIGNED = 'S'
const ECDSA = { name: 'ECDSA', namedCurve: 'P-256' }
const SIGNING = { name: 'ECDSA', hash: 'SHA-256' }
let room = null
let channel = null
let signer = null
let ownKey = null          // the host's public key: its own states, passed on by followers, are dropped quietly
const passedOn = new Set()  // a follower passes each signed message on once (by its signature)

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

export async function connect(roomId, secret, relays, stun, onPeer, onMessage, hostPublic) {
  leave()
  let verifier = null
  if (hostPublic) {
    verifier = await crypto.subtle.importKey('raw', unb64(hostPublic), ECDSA, false, ['verify'])
    signer = null
    ownKey = null
  }
  const { joinRoom, selfId } = await import('./trystero/torrent.mjs')
  ownId = selfId
  room = joinRoom({
    appId: 'roundkeeper-live-1',
    password: secret,
    relayConfig: { urls: Array.from(relays) },
    rtcConfig: { iceServers: stun.length ? [{ urls: Array.from(stun) }] : [] },
  }, roomId)
  channel = room.makeAction('rk')
  channel.onMessage = async (data, meta) => {
    if (typeof data !== 'string' || data.length > MAX_MESSAGE + 200) return onMessage(meta.peerId, null)
    if (!verifier) {
      if (ownKey && data[0] === SIGNED && await verified(ownKey, data) !== null) return  // our own, passed back
      return onMessage(meta.peerId, data)
    }
    const text = await verified(verifier, data)
    if (text !== null) passOn(data, meta.peerId)
    onMessage(meta.peerId, text)
  }
  room.onPeerJoin = (peerId) => onPeer(peerId, true)
  room.onPeerLeave = (peerId) => onPeer(peerId, false)
}

// The relays' tracker hands each phone's offers to a few others at random, so in a larger room a
// phone may meet other players before it meets the game master: what the game master signed is
// passed on once by every follower, so whoever is met first brings the fight.
function passOn(data, from) {
  const bar = data.indexOf('|')
  // Only what is for everyone (the present, the heartbeat): what the game master tells one phone is not passed on.
  if (!data.startsWith('{"v":1,"t":"state"', bar + 1) && !data.startsWith('{"v":1,"t":"beat"', bar + 1)) return
  const signature = data.slice(1, bar)
  if (passedOn.has(signature)) return
  passedOn.add(signature)
  if (passedOn.size > 1000) passedOn.delete(passedOn.values().next().value)
  const others = room ? Object.keys(room.getPeers()).filter((id) => id !== from) : []
  if (others.length) quietly(channel.send(data, { target: others }))
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
  if (!channel) return
  let out = text
  if (signer) {
    const sig = await crypto.subtle.sign(SIGNING, signer, new TextEncoder().encode(text))
    out = SIGNED + b64(sig) + '|' + text
  }
  try {
    quietly(channel && channel.send(out, peerId ? { target: peerId } : undefined))
  } catch (e) { /* a peer that just left */ }
}

export function leave() {
  if (room) room.leave()
  room = null
  channel = null
}

function quietly(sent) {
  if (sent && typeof sent.catch === 'function') sent.catch(() => {})
}
