// The service worker that keeps the app shell for offline use (README "Offline use"). boot.js
// registers it as `sw.js?js=app-<hash>.js&wasm=app-<hash>_bg.wasm&worker=<h>`, scope = the
// site's base (the folder of this file), so it works at `/` and under any sub-path.
//
// * Version: the cache is named after the build (`trialscope-shell:<js>:<wasm>:<h>`, from this
//   file's query, <h> being the worker's hash). A new deploy has new hashed names, so boot.js
//   registers a new script URL: the browser installs the new worker, which fills a new cache;
//   `activate` deletes every older `trialscope-shell:` cache.
// * What is cached (the app shell only, fetched once at install): index.html (the base URL),
//   boot.js, the files index.html names beside it (the app's hashed JS, wasm and CSS), the
//   worker loader of this build (`worker_loader-<h>.js`) and the JS and wasm it names. The
//   demo (`demo/index.json` and the traces it lists) is kept as it passes, when a page this worker controls loads it (a plain visit
//   after the first, or "Load demo"): never fetched by the worker itself, so a visit by a
//   `?trace=` link or with `?demo=0` fetches nothing the link did not name, and no visit
//   downloads the demo twice. Nothing
//   else is ever put in the cache: not `?trace=` URLs (of any origin, even a relative one into
//   `demo/`: only a request without a query is kept), not any other request.
// * Strategy: content-hashed names (`app-<hash>.js`, `app-<hash>_bg.wasm`, `style-<hash>.css`,
//   and the worker's `worker_loader-<h>.js`, `worker-<h>.js`, `worker-<h>_bg.wasm`, named by
//   .ci/hash-worker) are cache-first: such a name never changes its bytes. Everything else of
//   the shell — the page itself (navigations in scope, whatever their query), boot.js and the
//   demo — is network-first with this version's cache as the fallback when the network fails
//   or the server answers with an error: an online visit always gets the newest deploy (so it
//   registers the new worker, and the page and its worker never come from two builds), an
//   offline one still starts. Requests that are
//   not shell names are not touched (the browser handles them as if there were no service
//   worker) and nothing they return is stored; the worker fetches nothing the page did not ask
//   for except the shell at install.
"use strict";

const PREFIX = "trialscope-shell:";
const params = new URL(self.location.href).searchParams;
const plainName = (name) =>
  typeof name === "string" && /^[A-Za-z0-9_.-]+$/.test(name) && !name.startsWith(".");
const JS = params.get("js");
const WASM = params.get("wasm");
/// The hash in the worker's file names (`worker_loader-<h>.js`, `worker-<h>.js`,
/// `worker-<h>_bg.wasm`; .ci/hash-worker), from index.html's `<meta name="trialscope-worker">`
/// by way of boot.js; empty for a build with the plain names.
const WORKER = params.get("worker") || "";
const VALID = plainName(JS) && plainName(WASM) && /^(?:[0-9a-f]{16})?$/.test(WORKER);
const CACHE = `${PREFIX}${JS}:${WASM}${WORKER ? `:${WORKER}` : ""}`;
const BASE = new URL("./", self.location.href);

/// A content-hashed file name of Trunk (`<stem>-<hex hash>[_bg].<js|wasm|css>`).
const HASHED = /-[0-9a-f]{8,16}(?:_bg)?\.(?:js|wasm|css)$/;

/// Plain file names (`name.ext`, no folder) of files beside this worker, quoted in `text`
/// after `href=`/`src=` (relative, `./name`, or absolute under the site's path as a
/// `--public-url /sub/` build writes them), or as `"./name"` string literals (the worker
/// loader); other folders, queries and other origins are left out.
function namesIn(text) {
  const out = new Set();
  const base = BASE.pathname.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const attr = new RegExp(`(?:href|src)="(?:\\./|${base})?([^"?#/]+)(?:[?#][^"]*)?"`, "g");
  for (const m of text.matchAll(attr)) {
    if (plainName(m[1])) out.add(m[1]);
  }
  for (const m of text.matchAll(/["']\.\/([^"'?#/]+)["']/g)) {
    if (plainName(m[1])) out.add(m[1]);
  }
  return out;
}

/// Fetches `url` for the install, marked `?sw=install` (a static server ignores the query) so
/// that server logs — and the tests' request counts — tell the worker's own fetches from the
/// page's; the copy is kept under `url` itself.
async function fetchOk(url) {
  const marked = new URL(url);
  marked.search = "sw=install";
  const response = await fetch(new Request(marked.href,
    { cache: "reload", credentials: "same-origin" }));
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response;
}

/// Fetches the whole shell into `CACHE`; any missing part fails the install (the previous
/// version, if any, stays in charge).
async function precache() {
  const cache = await caches.open(CACHE);
  const put = async (url, response) => cache.put(url, response);
  const index = await fetchOk(BASE.href);
  const html = await index.clone().text();
  await put(BASE.href, index);
  const names = namesIn(html);
  names.add("boot.js");
  names.add(JS);
  names.add(WASM);
  const loaderName = WORKER ? `worker_loader-${WORKER}.js` : "worker_loader.js";
  const loader = await fetchOk(new URL(loaderName, BASE).href);
  for (const n of namesIn(await loader.clone().text())) names.add(n);
  await put(new URL(loaderName, BASE).href, loader);
  names.delete(loaderName);
  names.delete("sw.js");
  const urls = [...names].map((n) => new URL(n, BASE).href);
  await Promise.all(urls.map(async (u) => put(u, await fetchOk(u))));
}

self.addEventListener("install", (event) => {
  if (!VALID) throw new Error("sw.js: registered without plain js= and wasm= names");
  event.waitUntil(precache().then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const key of await caches.keys()) {
      if (key.startsWith(PREFIX) && key !== CACHE) await caches.delete(key);
    }
    await self.clients.claim();
  })());
});

/// This version's cached copy of `key`, answering `request`. A copy fetched from another URL
/// (boot.js without its query, the page without its `?…`, `?sw=install`) is given back as a
/// new response, so
/// the browser sees it at the URL it asked for: a module's `import.meta.url` (boot.js reads its
/// query from it) is the URL of the response it got.
async function cached(request, key) {
  const hit = await caches.match(key, { cacheName: CACHE });
  if (!hit || hit.url === request.url) return hit;
  return new Response(hit.body, { status: hit.status, statusText: hit.statusText,
    headers: hit.headers });
}

/// Network first; `keep` = store a good answer (the demo's files, fetched by the page).
async function networkFirst(request, key, keep = false) {
  try {
    const response = await fetch(request);
    if (response.ok && keep) {
      const cache = await caches.open(CACHE);
      await cache.put(key, response.clone());
    }
    if (response.ok) return response;
    return (await cached(request, key)) || response;
  } catch (e) {
    const hit = await cached(request, key);
    if (hit) return hit;
    throw e;
  }
}

async function cacheFirst(request, key) {
  return (await cached(request, key)) || fetch(request);
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== BASE.origin || !url.href.startsWith(BASE.href)) return;
  // The page itself, whatever its query (`?trace=…`, `?demo=0`, a `#view`): index.html.
  if (request.mode === "navigate") {
    if (url.pathname === BASE.pathname || url.pathname === `${BASE.pathname}index.html`) {
      event.respondWith(networkFirst(request, BASE.href));
    }
    return;
  }
  // Sub-resources: only names the shell can hold (a plain file name in the base folder or in
  // `demo/`, no query — boot.js's query is its index.html tag's); what is not in this version's
  // cache goes to the network untouched and is not stored.
  const rel = url.pathname.slice(BASE.pathname.length);
  const boot = rel === "boot.js";
  const [dir, name] = rel.includes("/") ? rel.split("/", 2) : ["", rel];
  if ((dir !== "" && dir !== "demo") || rel.split("/").length > 2 || !plainName(name)) return;
  if (url.search !== "" && !boot) return;
  const key = `${url.origin}${url.pathname}`;
  const demo = dir === "demo" && url.search === "";
  event.respondWith(HASHED.test(name) ? cacheFirst(request, key)
    : networkFirst(request, key, demo));
});
