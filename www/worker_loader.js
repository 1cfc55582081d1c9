// The Web Worker's entry (the session worker and every import worker): loads the worker's
// wasm-bindgen glue, then waits for the page's first message, `{module}`, the worker module
// the page compiled once for all its workers (src/ui/bridge.rs `new_worker`), and
// instantiates it; without one (the page's compile failed) it fetches and compiles the module
// itself. The worker's own message handler replaces this one once the module runs.
// The build (.ci/hash-worker) renames this file worker_loader-<h>.js and rewrites the two
// "./…" names below to the content-addressed worker-<h>.js and worker-<h>_bg.wasm.
importScripts("./worker.js");
self.onmessage = (event) => {
  self.onmessage = null;
  const module = event.data && event.data.module;
  wasm_bindgen(module instanceof WebAssembly.Module ? { module_or_path: module }
    : { module_or_path: "./worker_bg.wasm" });
};
