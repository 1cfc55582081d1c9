// Boots the app without inline script (see the Content-Security-Policy in index.html and
// `pattern_script` in Trunk.toml): Trunk's script tag names the app's hashed JS module and wasm
// in this file's query string, `boot.js?js=app-<hash>.js&wasm=app-<hash>_bg.wasm`. Only plain
// file names beside this file are accepted, so the tag cannot be pointed elsewhere.
const here = new URL(import.meta.url);
const plain = (name) => {
  if (!name || !/^[A-Za-z0-9_.-]+$/.test(name) || name.startsWith(".")) {
    throw new Error(`boot.js: not a plain file name: ${name}`);
  }
  return new URL(name, here).href;
};
const { default: init } = await import(plain(here.searchParams.get("js")));
const wasm = await init({ module_or_path: plain(here.searchParams.get("wasm")) });
dispatchEvent(new CustomEvent("TrunkApplicationStarted", { detail: { wasm } }));

// Offline use (README "Offline use"): the service worker `sw.js` keeps the app shell in a cache
// named after this build, so the same js= and wasm= names (and the worker's hash) go to its
// registration URL: every deploy registers a new script URL, hence a new worker and a new cache
// (its `activate` deletes the old ones). Its scope is this file's folder, the site's base. Once
// the worker of *this* build is active (its install has cached the whole shell), the page says
// "offline ready".
const offlineReady = async () => {
  if (!("serviceWorker" in navigator) || !window.isSecureContext) return;
  const sw = new URL("sw.js", here);
  sw.searchParams.set("js", here.searchParams.get("js"));
  sw.searchParams.set("wasm", here.searchParams.get("wasm"));
  // The worker's files are versioned apart from the app's (.ci/hash-worker): a deploy that
  // changes only the worker still gets a new service worker and cache.
  const meta = document.querySelector('meta[name="trialscope-worker"]');
  const worker = meta && /^[0-9a-f]{16}$/.test(meta.content) ? meta.content : "";
  sw.searchParams.set("worker", worker);
  const reg = await navigator.serviceWorker.register(sw.href, { scope: new URL("./", here).href });
  await new Promise((resolve, reject) => {
    const check = () => {
      const w = reg.active;
      if (w && w.scriptURL === sw.href && w.state === "activated") resolve();
    };
    const watch = (w) => w && w.addEventListener("statechange", () => {
      if (w.state === "redundant" && w.scriptURL === sw.href) {
        reject(new Error("the service worker could not cache the app shell"));
      }
      check();
    });
    [reg.installing, reg.waiting, reg.active].forEach(watch);
    reg.addEventListener("updatefound", () => watch(reg.installing));
    check();
  });
  const cache = `trialscope-shell:${here.searchParams.get("js")}:${here.searchParams.get("wasm")}` +
    (worker ? `:${worker}` : "");
  if (!(await caches.has(cache))) return;
  const badge = document.createElement("p");
  badge.id = "offline-ready";
  badge.dataset.testid = "offline-ready";
  badge.setAttribute("role", "status");
  badge.title = "The app is kept in this browser: it starts without the server.";
  badge.textContent = "offline ready";
  document.body.append(badge);
};
offlineReady().catch((e) => console.warn(`trialscope: offline use not available: ${e}`));
