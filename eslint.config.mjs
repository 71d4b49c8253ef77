// The JavaScript's one dialect, checked by `python3 build.py test` (issue 49, item 4): modern
// syntax everywhere (const/let, strict equality), ESLint's recommended rules, and each file's
// globals by where it runs. Types are checked by `tsc --checkJs` (tsconfig.json).
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["node_modules/**", "dist/**", ".venv/**", ".cache/**", "tools/lighthouse/**"] },
  js.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2022 },
    rules: {
      "no-var": "error",
      "prefer-const": "error",
      "eqeqeq": ["error", "always", { null: "ignore" }],
      "no-unused-vars": ["error", { args: "none", caughtErrors: "none", ignoreRestSiblings: true }],
    },
  },
  { files: ["static/**/*.js"], languageOptions: { sourceType: "script", globals: { ...globals.browser } } },
  { files: ["static/marks.js"], languageOptions: { sourceType: "module" } },
  { files: ["static/**/*.mjs"], languageOptions: { sourceType: "module", globals: { ...globals.browser } } },
  // the service worker's list of files is written in by build.py (sitebuild/site.py write_service_worker)
  { files: ["static/sw.js"], languageOptions: { globals: { ...globals.serviceworker, __PRECACHE__: "readonly" } } },
  { files: ["static/snapshot-worker.js"], languageOptions: { sourceType: "module", globals: { ...globals.worker } } },
  { files: ["tools/**/*.mjs", "tests/**/*.mjs"], languageOptions: { sourceType: "module", globals: { ...globals.node } } },
];
