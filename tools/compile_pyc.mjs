// Compile a folder's Python files to bytecode with the very Pyodide the site ships (its Python
// 3.14 has the magic number the browser checks), as unchecked-hash .pyc files: the browser then
// imports them without compiling source. Usage: node tools/compile_pyc.mjs DIR [--legacy]
// --legacy writes x.pyc beside x.py (what zipimport looks for); else __pycache__/x.cpython-314.pyc.
import { loadPyodide } from "../node_modules/pyodide/pyodide.mjs";

const [dir, flag] = process.argv.slice(2);
const py = await loadPyodide();
py.FS.mkdirTree("/work");
py.FS.mount(py.FS.filesystems.NODEFS, { root: dir }, "/work");
py.globals.set("legacy", flag === "--legacy");
const ok = py.runPython(`
import compileall, py_compile
compileall.compile_dir("/work", quiet=1, legacy=legacy,
                       invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
`);
if (!ok) { console.error("compileall reported errors"); process.exit(1); }
