// The workers' own globals, for `tsc -p tsconfig.workers.json`.
/** The service worker's list of files, written in by the build (sitebuild/site.py write_service_worker). */
declare const __PRECACHE__: string[];

declare namespace WebAssembly {
  /** JSPI (not in TypeScript's lib yet): Pyodide looks for it; the snapshot worker hides it as the page does. */
  var Suspending: unknown;
}
