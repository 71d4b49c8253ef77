// The live table's connection to the other phones at the table: Trystero (pinned from npm, served
// from ./trystero/ like Pyodide), whose torrent strategy meets peers through WebTorrent trackers and
// then talks WebRTC data channels, phone to phone, encrypted. Loaded the first time a table goes live.
// Everything received goes to Python as text (pyengine/live.py reads it whole); anything that is not
// text or is too large is handed over as null, to be counted and dropped.
const MAX_MESSAGE = 64000
let room = null
let channel = null

export async function connect(roomId, secret, relays, stun, onPeer, onMessage, hello) {
  leave()
  const { joinRoom } = await import('./trystero/torrent.mjs')
  room = joinRoom({
    appId: 'roundkeeper-live-1',
    password: secret,
    relayConfig: { urls: Array.from(relays) },
    rtcConfig: { iceServers: stun.length ? [{ urls: Array.from(stun) }] : [] },
  }, roomId)
  channel = room.makeAction('rk')
  channel.onMessage = (data, meta) => {
    onMessage(meta.peerId, typeof data === 'string' && data.length <= MAX_MESSAGE ? data : null)
  }
  room.onPeerJoin = (peerId) => {
    if (hello) quietly(channel.send(hello, { target: peerId }))
    onPeer(peerId, true)
  }
  room.onPeerLeave = (peerId) => onPeer(peerId, false)
}

export function send(text, peerId) {
  if (!channel) return
  try {
    quietly(channel.send(text, peerId ? { target: peerId } : undefined))
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
