/* Our code (the engine's wheel and web.zip, each {url, integrity}) put where Python imports it, by the page
   (interpreter.mjs) and by the worker that makes the start-up snapshot (snapshot-worker.js) alike.

   The two archives are written as they are, each a file of its own, and imported from by Python's
   zipimport: a start writes two files instead of unpacking a hundred, and a module is read only when
   it is imported. A snapshot's interpreter knows these paths (sys.path and the archives' directories
   are in its memory): a start from it writes the same files at the same paths before Python runs,
   and a module the snapshot does not hold (a system's view opened for the first time) imports from
   them. The snapshot is of one version of the site, so of these very archives. */
const HOME = "/home/pyodide/rk/";

/* The archives' bytes, each fetched with its hash (fetch() refuses a damaged download), in order. */
export function fetchOurs(files) {
  return Promise.all(files.map(async ({url, integrity}) => {
    const response = await fetch(url, {integrity});
    if (!response.ok) throw new Error(`${url.split("/").pop()}: ${response.status}`);
    return response.arrayBuffer();
  }));
}

export function placeOurs(interpreter, files, buffers) {
  interpreter.FS.mkdirTree(HOME);
  const paths = files.map(({url}) => HOME + new URL(url).pathname.split("/").pop());
  paths.forEach((path, i) => interpreter.FS.writeFile(path, new Uint8Array(buffers[i])));
  const list = interpreter.toPy(paths);
  interpreter.globals.set("_rk_paths", list);
  list.destroy();  // the Python list stays in the globals until the line below: nothing of it stays in JavaScript
  // First on sys.path, also after a restore: the restored path has them already, but loadPyodide puts
  // the working directory ("") in front again (a second time: each entry is looked in for every
  // import not found before it, so the copy goes); web.zip holds PyScript's package, which would be
  // looked for there (build.pyscript_package).
  interpreter.runPython("import sys\nsys.path[:] = [*_rk_paths, *dict.fromkeys(p for p in sys.path if p not in _rk_paths)]\ndel _rk_paths");
}
