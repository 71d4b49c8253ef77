/* The engine's loader fetched while the page is still read: interpreter.mjs, ours.mjs and Pyodide's
   module are asked for here, in the head, as module preloads (fetched, not run), instead of when the
   parser reaches their script at the end of the body, after boot.js and journal.js. interpreter.mjs
   still runs from its own <script>, after boot.js, which decides whether the engine starts.
   Nothing is asked for inside another site's frame (boot.js then stops the page) or on a live link or
   the table display, where the players' view comes first and boot.js holds the engine back. */
(function () {
  "use strict";
  let framed = false;
  try { framed = window.top !== window.self && window.top.location.origin !== location.origin; } catch (e) { framed = true; }
  if (framed || location.hash === "#display" || location.hash.indexOf("#live=") === 0) return;
  ["./interpreter.mjs", "./ours.mjs", "./pyodide/pyodide.mjs"].forEach(function (href) {
    const link = document.createElement("link");
    link.rel = "modulepreload";
    link.href = href;
    document.head.appendChild(link);
  });
})();
