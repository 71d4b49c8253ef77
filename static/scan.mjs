// The scanner: the phone's camera reads a QR code (the live table with no internet: the game
// master's offer, a player's answer). The browser's own BarcodeDetector where it reads QR codes
// (Chrome on Android, macOS); elsewhere (Safari on iPhone, desktop Linux) ZXing-C++ built to
// WebAssembly (zxing-wasm, pinned from npm, served from ./zxing/ like Pyodide), loaded only when a
// scanner opens and never from another origin. Every text read goes to Python (onCode), which says
// whether it was a code it takes; the same text is not handed over twice in a row.
let stream = null
let timer = null
let running = 0          // which opening is running (a later open or a close ends the earlier loop)
let zxing = null

const READ_EVERY_MS = 150

export async function open(video, onCode, onStatus) {
  close()
  const mine = ++running
  if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
    onStatus('no-camera')
    return
  }
  try {
    stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: 'environment' }, audio: false })
  } catch (e) {
    onStatus(e && e.name === 'NotAllowedError' ? 'denied' : 'no-camera')
    return
  }
  if (mine !== running) { stopTracks(); return }
  video.srcObject = stream
  video.setAttribute('playsinline', '')
  video.muted = true
  try { await video.play() } catch (e) { /* autoplay of a muted camera is allowed; if not, frames still come */ }
  const read = await reader()
  if (mine !== running) return
  onStatus(read.native ? 'scanning' : 'scanning-wasm')
  let last = ''
  const canvas = document.createElement('canvas')
  const tick = async () => {
    if (mine !== running) return
    try {
      if (video.readyState >= 2 && video.videoWidth) {
        const text = await read(video, canvas)
        if (mine !== running) return
        if (text && text !== last) { last = text; onCode(text) }
      }
    } catch (e) { /* a frame that could not be read: the next one */ }
    if (mine === running) timer = setTimeout(tick, READ_EVERY_MS)
  }
  tick()
}

/** A frame's QR text ('' when none), by the browser's own detector (`native`) or ZXing.
    @typedef {((video: HTMLVideoElement, canvas: HTMLCanvasElement) => Promise<string>) & { native?: boolean }} Reader */

/** @returns {Promise<Reader>} */
async function reader() {
  if ('BarcodeDetector' in window) {
    try {
      const formats = await window.BarcodeDetector.getSupportedFormats()
      if (formats.includes('qr_code')) {
        const detector = new window.BarcodeDetector({ formats: ['qr_code'] })
        /** @type {Reader} */
        const read = async (video) => {
          const found = await detector.detect(video)
          return found.length ? found[0].rawValue : ''
        }
        read.native = true
        return read
      }
    } catch (e) { /* fall through to ZXing */ }
  }
  if (!zxing) {
    zxing = await import(new URL('zxing/es/reader/index.js', document.baseURI).href)
    await zxing.prepareZXingModule({
      overrides: { locateFile: (path) => new URL('zxing/reader/' + path, document.baseURI).href },
      fireImmediately: true,
    })
  }
  return async (video, canvas) => {
    const w = video.videoWidth
    const h = video.videoHeight
    if (canvas.width !== w || canvas.height !== h) { canvas.width = w; canvas.height = h }
    const ctx = canvas.getContext('2d', { willReadFrequently: true })
    ctx.drawImage(video, 0, 0, w, h)
    const found = await zxing.readBarcodes(ctx.getImageData(0, 0, w, h), { formats: ['QRCode'], tryHarder: true, maxNumberOfSymbols: 1 })
    return found.length && found[0].isValid ? found[0].text : ''
  }
}

function stopTracks() {
  if (stream) for (const track of stream.getTracks()) track.stop()
  stream = null
}

export function close() {
  running++
  clearTimeout(timer)
  timer = null
  stopTracks()
}

// Camera permission, asked once before this phone's connection details are made (then let go at
// once): a page allowed the camera names its own Wi-Fi addresses in them, where one without it
// gets hidden mDNS names (.local) that some Wi-Fi networks cannot resolve (measured in Chromium;
// Safari does the same). The game master's phone needs the camera anyway, to read the answers.
export async function allowCamera() {
  try {
    const status = await navigator.permissions.query({ name: 'camera' })
    if (status.state !== 'prompt') return status.state
  } catch (e) { /* no Permissions API for the camera (Firefox): ask */ }
  try {
    const stream = await navigator.mediaDevices.getUserMedia({ video: true, audio: false })
    for (const track of stream.getTracks()) track.stop()
    return 'granted'
  } catch (e) {
    return 'denied'
  }
}
