// The globals the page's JavaScript shares (window.RK, made by static/boot.js, filled in by the other
// files and read by the page's Python through `js.RK`), typed for `tsc --checkJs` (tsconfig.json).
// Only declarations: nothing here is shipped.

/** The durable copy of what the page saves (static/journal.js). */
interface RoundkeeperJournal {
  ok: boolean;
  error: string;
  pending: number;
  restored: number;
  migrated: number;
  conflicts: number;
  reopened: number;
  setAside: unknown[];
  onError: ((error: string) => void) | null;
  /** Another tab won the race for `key`: this tab's write `vid` was refused (Python merges it). */
  onConflict: ((key: string, vid: string) => void) | null;
  onSettled: ((key: string) => void) | null;
  put: (key: string, value: string | null) => void;
  /** The queued write of `key` is the version `vid`, made over the stored `base`. */
  claim: (key: string, vid: string | number, base: string | number) => void;
  busy: (key: string) => boolean;
  read: (key: string) => Promise<string | null>;
  resolved: (key: string) => void;
}

/** What a follower's phone shows before its engine is ready (static/early.mjs). */
interface RoundkeeperEarly {
  route: string;
  shown: boolean;
  heard: number;
  taps: unknown[];
  stopped: boolean;
  stop: () => void;
  note: string;
  error?: string;
}

/** The start-up snapshot's state (static/interpreter.mjs). */
interface RoundkeeperSnapshot {
  state: string;
  reason: string;
  version: string;
}

interface RoundkeeperGlobal {
  base: string;
  prefix: string;
  t0: number;
  storage: boolean;
  violations: unknown[];
  nextTurnGuardMs: number;
  indexedDB?: string;
  route?: "" | "display" | "follow";
  applyTheme?: (pref: string) => void;
  cleanSnapshot?: (html: string) => DocumentFragment;
  nextTask?: () => Promise<void>;
  importLive?: () => Promise<any>;
  importScan?: () => Promise<any>;
  engineGate?: Promise<unknown>;
  openEngine?: (why?: string) => void;
  engineOpened?: string;
  earlyError?: string;
  fail?: (message: string) => void;
  watchdog?: ReturnType<typeof setTimeout>;
  morph?: (root: Element, html: string, typing?: boolean | "fields") => void;
  waitingWorker?: ServiceWorker;
  hadController?: boolean;
  swRegistration?: ServiceWorkerRegistration;
  swError?: string;
  journal?: RoundkeeperJournal;
  journalReady?: Promise<unknown>;
  early?: RoundkeeperEarly;
  snapshot?: RoundkeeperSnapshot;
  snapshotRecover?: () => boolean;
}

interface Window {
  RK: RoundkeeperGlobal;
  /** Tests set the Next-turn guard (0: none). */
  __rkNextTurnGuardMs?: number;
  /** Tests and the bench switch the start-up snapshot off, or have it made at once. */
  __rkSnapshot?: string;
  /** The bench's comparison with WebAssembly's JS promise integration. */
  __rkJspi?: string;
  BarcodeDetector?: {
    new (options: { formats: string[] }): { detect(source: CanvasImageSource): Promise<{ rawValue: string }[]> };
    getSupportedFormats(): Promise<string[]>;
  };
}

// (a module-level `globalThis.RK` in static/interpreter.mjs)
declare var RK: RoundkeeperGlobal;
declare var __rkSnapshot: string | undefined;
declare var __rkJspi: string | undefined;

declare namespace WebAssembly {
  /** JSPI (not in TypeScript's lib yet): Pyodide looks for it; interpreter.mjs hides it. */
  var Suspending: unknown;
}
