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
