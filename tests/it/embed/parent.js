// The browser test's parent page (tests/it/browser_embed.rs), served from another origin than
// the app: embeds the app (`?app=` names its URL), runs the ping/pong handshake, posts
// malformed messages that must be ignored, then the traces named by `?trace=` (fetched from
// this page's own origin). Every answer is kept in `window.answers` for the test to read.
const params = new URLSearchParams(location.search);
const app = new URL(params.get("app"));
const frame = document.getElementById("app");
window.answers = [];
addEventListener("message", (ev) => {
  if (ev.source !== frame.contentWindow || ev.origin !== app.origin) return;
  window.answers.push(ev.data);
  if (ev.data && ev.data.type === "pong" && !window.opened) {
    window.opened = true;
    clearInterval(pinging);
    open();
  }
});
frame.src = app.href;
const ping = () => frame.contentWindow.postMessage({ type: "ping" }, app.origin);
const pinging = setInterval(ping, 100);

async function open() {
  const post = (m, transfer) => frame.contentWindow.postMessage(m, app.origin, transfer);
  const files = await Promise.all(
    params.getAll("trace").map(async (name) => ({
      name,
      buffer: await (await fetch(name)).arrayBuffer(),
    })),
  );
  // Malformed: each would replace the files if it were acted on.
  post("open");
  post({ type: "open" });
  post({ type: "open", files: "x" });
  post({ type: "open", files: [{ name: 5, buffer: files[0].buffer.slice(0) }] });
  post({ type: "open", files: [{ name: "a_n1.pb", buffer: "not a buffer" }] });
  post({ type: "open", files: [], view: { tab: "nope" } });
  post({ type: "bogus" });
  post({ type: "open", files, view: { tab: "scaling" } }, files.map((f) => f.buffer));
  window.posted = true;
}

// Called by the test after the first `loaded`: the same traces again plus one that is no
// trace, which must give an `error` naming it and then `loaded` with the three.
window.openAgainWithJunk = async () => {
  const files = await Promise.all(
    params.getAll("trace").map(async (name) => ({
      name,
      buffer: await (await fetch(name)).arrayBuffer(),
    })),
  );
  files.push({ name: "junk_n5.bin", buffer: new TextEncoder().encode("not a trace at all").buffer });
  frame.contentWindow.postMessage({ type: "open", files }, app.origin, files.map((f) => f.buffer));
};
