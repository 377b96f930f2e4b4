// Names web/build.mjs defines at bundle time (esbuild `define`); undefined when the modules run
// unbundled (node --test tests/web/), so the code tests them with typeof first.

/** The version the page shows (VISPROBE_VERSION or `git describe`). */
declare const __VISPROBE_VERSION__: string | undefined;
/** The one-file build's worker, as source text (it cannot load a worker file beside the page). */
declare const VISPROBE_WORKER_SOURCE: string | undefined;
/** The one-file build's sample (see web/build.mjs packedSample). */
declare const VISPROBE_SAMPLE: string | undefined;

/** What the page puts on window for the browser tests and benchmarks (tests/browser, scripts/bench_*.mjs). */
interface Window {
  visprobeEngine?: import('./engine/client.js').EngineClient;
  visprobeGraph?: import('./graph/workspace.js').Workspace;
  /** The trend workspace's test hooks (trend/workspace.js). */
  __visprobeTrend?: Record<string, Function>;
  /** A benchmark's canvas threshold for new panes (boxes in the window above which the canvas draws). */
  visprobeCanvasThreshold?: number;
}
