/* Start-up phases as performance marks, read by `python3 build.py bench`: PyScript's own hooks say
   when the interpreter is ready; boot.js, the page's Python and web/page/main.py mark
   the rest (rk:boot, rk:python-start, rk:imports-done, rk:first-render, rk:ready). */
// @ts-expect-error: PyScript's core is copied beside this file by the build (node_modules/@pyscript/core)
import { hooks } from "./pyscript/core.js";

hooks.main.onReady.add(() => performance.mark("rk:interpreter-ready"));
