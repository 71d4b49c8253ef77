// A WebTorrent tracker (bittorrent-tracker from npm, pinned in package.json's devDependencies) on
// 127.0.0.1, websockets only: the relay the live table's tests and bench meet through. Never shipped.
// Usage: node tools/relay.mjs [port]   (prints "relay ws://127.0.0.1:PORT" once listening)
import Server from 'bittorrent-tracker/server'

const port = Number(process.argv[2] || 0)
// Peers announce again every 10 s (Trystero's shortest), not the default 10 min: a failed first handshake is
// tried again soon, as with the public trackers' shorter intervals.
const server = new Server({ udp: false, http: false, ws: true, stats: false, trustProxy: false, interval: 10000 })
server.on('error', (err) => { console.error('relay error', err.message); process.exitCode = 1 })
server.on('warning', (err) => console.error('relay warning', err.message))
server.listen(port, '127.0.0.1', () => {
  console.log(`relay ws://127.0.0.1:${server.ws.address().port}`)
})
const stop = () => server.close(() => process.exit(0))
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
