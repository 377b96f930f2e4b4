// ESLint (flat config) over the web app, its build script, the web and browser tests and the
// scripts' .mjs files: @eslint/js recommended, and size limits on web/src (below). The ctest `web_lint` (unit) runs
// node_modules/.bin/eslint from the repository root and fails on any error. Named .mjs: the root
// package.json is not "type": "module" (emscripten's CommonJS output under build/ needs that).
import js from '@eslint/js';
import globals from 'globals';

export default [
  { ignores: ['build/**', 'dist/**', 'bench-out/**', 'node_modules/**', 'third_party/**'] },
  js.configs.recommended,
  {
    // The page and its engine worker.
    files: ['web/src/**/*.js'],
    languageOptions: {
      // 2025 for import attributes: the engine's JSON declarations are imported `with { type: 'json' }`
      // (graph/colours.js); esbuild bundles them for the es2020 target.
      ecmaVersion: 2025,
      sourceType: 'module',
      globals: {
        ...globals.browser,
        ...globals.worker,
        // Defined by web/build.mjs at bundle time (esbuild `define`); tested with typeof first. The
        // one-file build's VISPROBE_WORKER_SOURCE and VISPROBE_SAMPLE are declared where they are
        // read (/* global */ in main.js and host/sample.js).
        __VISPROBE_VERSION__: 'readonly',
      },
    },
  },
  {
    // Issue 47 item 6: files and functions a reader can hold. A file over 500 lines or a function
    // over 80 (an IIFE too) is split along its seams, a module or a function per responsibility,
    // instead of growing; comments and blank lines count, as they do for the reader.
    files: ['web/src/**/*.js'],
    rules: {
      'max-lines': ['error', { max: 500, skipBlankLines: false, skipComments: false }],
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: false, skipComments: false, IIFEs: true }],
    },
  },
  {
    // Node scripts and tests; the browser tests' page.evaluate callbacks run in the page.
    files: ['web/build.mjs', 'tests/web/**/*.mjs', 'tests/browser/**/*.mjs', 'scripts/*.mjs'],
    languageOptions: {
      ecmaVersion: 2025,
      sourceType: 'module',
      globals: { ...globals.node, ...globals.browser },
    },
  },
];
