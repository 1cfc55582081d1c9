//! The page-side end of the worker connection, and the one place that restarts the worker.
//!
//! Files are imported by the pool of import workers ([`super::pool`]); the session worker
//! receives each one prepared ([`ToWorker::AddPrepared`]). Every message that changes the
//! session (prepared files, removals, pin commands, the test hook) is kept in a *journal*.
//! When the session worker dies — its panic hook posts [`FromWorker::Crashed`], or it traps
//! without a panic (out of memory) and only its `error` event fires — the file it was adding
//! is marked failed (`"<file>: the importer crashed: <message>"`) and dropped from the journal,
//! a new worker is started, and the journal is replayed into it (the other files are added
//! again as they were prepared), so one file's crash costs that file only. Requests that change
//! nothing (analyses) are asked again once the replay is queued.
//!
//! The worker handles messages in order, so the file it was adding when it died is the one its
//! panic hook names, else the oldest one sent to it and not yet answered.

use std::cell::RefCell;

use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::spawn_local;
use web_sys::{Blob, MessageEvent, Worker};

use super::{AppState, FileRow, Status};
use crate::session::{FileId, FromWorker, ToWorker};

/// Crashes in a row that no import can be blamed for (an analysis crashed) before the page
/// gives up restarting the worker.
const MAX_UNBLAMED_CRASHES: u32 = 3;

/// A session-changing message, kept for replay into a new worker.
struct Journaled {
    msg: ToWorker,
    /// The prepared file of an [`ToWorker::AddPrepared`] (as the import worker posted it).
    payload: Option<JsValue>,
}

/// A message waiting to be posted (an import carries its file's `Blob` handle).
struct Pending {
    js: JsValue,
    import: Option<FileId>,
}

#[derive(Default)]
struct Bridge {
    worker: Option<Worker>,
    /// Incremented for every new worker; events of an older one are ignored.
    generation: u32,
    ready: bool,
    /// A replay into a new worker is being prepared; posts wait in `queue`.
    restarting: bool,
    queue: Vec<Pending>,
    /// Imports posted to the current worker and not answered yet, in posting order.
    unanswered: Vec<FileId>,
    journal: Vec<Journaled>,
    unblamed_crashes: u32,
    /// The worker cannot be (re)started; no more work can be sent.
    stopped: bool,
}

thread_local! {
    static BRIDGE: RefCell<Bridge> = RefCell::new(Bridge::default());
}

fn to_js(msg: &ToWorker) -> Option<JsValue> {
    serde_wasm_bindgen::to_value(msg).ok()
}

/// True when the worker cannot be used any more (it could not be started, or it crashed
/// `MAX_UNBLAMED_CRASHES` times in a row outside any import).
pub fn stopped() -> bool {
    BRIDGE.with(|b| b.borrow().stopped)
}

fn post_pending(p: Pending) {
    BRIDGE.with(|b| {
        let mut b = b.borrow_mut();
        if !b.ready || b.restarting {
            b.queue.push(p);
            return;
        }
        let Some(w) = b.worker.as_ref() else { return };
        match w.post_message(&p.js) {
            Ok(()) => b.unanswered.extend(p.import),
            Err(e) => web_sys::console::error_1(&e),
        }
    });
}

/// Posts a message without bytes (queued until the worker is ready). Session-changing
/// messages are journaled for a restart.
pub fn post(msg: &ToWorker) {
    match msg {
        ToWorker::Remove { id } => super::pool::cancel(*id),
        ToWorker::Clear => super::pool::cancel_all(),
        _ => {}
    }
    let Some(js) = to_js(msg) else { return };
    BRIDGE.with(|b| {
        let mut b = b.borrow_mut();
        match msg {
            ToWorker::Remove { id } => {
                // Without a pin command after it, a removed import needs no replay.
                let at = b
                    .journal
                    .iter()
                    .position(|j| matches!(j.msg, ToWorker::AddPrepared { id: i, .. } if i == *id));
                let pinned_after = at.is_some_and(|at| b.journal[at..].iter().any(is_pin));
                match at {
                    Some(at) if !pinned_after => {
                        b.journal.remove(at);
                    }
                    _ => b.journal.push(Journaled {
                        msg: msg.clone(),
                        payload: None,
                    }),
                }
            }
            ToWorker::Clear if !b.journal.iter().any(is_pin) => {
                b.journal
                    .retain(|j| matches!(j.msg, ToWorker::TestHook { .. }));
            }
            ToWorker::Clear
            | ToWorker::PinWarmMedians(_)
            | ToWorker::PinKeys { .. }
            | ToWorker::ClearPins(_)
            | ToWorker::TestHook { .. } => b.journal.push(Journaled {
                msg: msg.clone(),
                payload: None,
            }),
            _ => {}
        }
    });
    post_pending(Pending { js, import: None });
}

fn is_pin(j: &Journaled) -> bool {
    matches!(
        j.msg,
        ToWorker::PinWarmMedians(_) | ToWorker::PinKeys { .. } | ToWorker::ClearPins(_)
    )
}

/// Builds the message that adds a prepared file, carrying the import worker's result.
fn add_message(id: FileId, name: &str, payload: &JsValue) -> Option<JsValue> {
    let js = to_js(&ToWorker::AddPrepared {
        id,
        name: name.to_string(),
    })?;
    js_sys::Reflect::set(&js, &JsValue::from_str("prepared"), payload).ok()?;
    Some(js)
}

/// Hands a file to the import pool ([`super::pool`]): `source` is the dropped `File` (or a
/// `Blob` of fetched bytes), which an import worker reads in chunks.
pub fn post_import(row: &FileRow, source: Blob) {
    super::pool::submit(row.id, row.name.clone(), source);
}

/// Adds a file an import worker prepared to the session (journaled: a restarted session worker
/// gets the same prepared file again, without importing it again).
pub fn post_prepared(id: FileId, name: &str, payload: JsValue) {
    let Some(js) = add_message(id, name, &payload) else {
        return;
    };
    BRIDGE.with(|b| {
        b.borrow_mut().journal.push(Journaled {
            msg: ToWorker::AddPrepared {
                id,
                name: name.to_string(),
            },
            payload: Some(payload),
        })
    });
    post_pending(Pending {
        js,
        import: Some(id),
    });
}

/// Handles the bridge's part of a worker message (readiness, crashes, answered imports);
/// returns the message when the app should see it too.
fn on_message(state: AppState, generation: u32, msg: FromWorker) -> Option<FromWorker> {
    if BRIDGE.with(|b| b.borrow().generation) != generation {
        return None;
    }
    match &msg {
        FromWorker::Ready => {
            let flush = BRIDGE.with(|b| {
                let mut b = b.borrow_mut();
                b.ready = true;
                if b.restarting {
                    Vec::new()
                } else {
                    std::mem::take(&mut b.queue)
                }
            });
            flush.into_iter().for_each(post_pending);
            None
        }
        FromWorker::Crashed { id, message } => {
            crashed(state, *id, message);
            None
        }
        FromWorker::Imported { summary, .. } => answered(summary.id, msg),
        FromWorker::RecordsImported { summary } => answered(summary.id, msg),
        FromWorker::TelemetryImported { summary } => answered(summary.id, msg),
        FromWorker::AggregateImported { summary } => answered(summary.id, msg),
        FromWorker::ImportFailed { id, .. } | FromWorker::PinsLoaded { id, .. } => {
            answered(*id, msg)
        }
        _ => Some(msg),
    }
}

fn answered(id: FileId, msg: FromWorker) -> Option<FromWorker> {
    BRIDGE.with(|b| {
        let mut b = b.borrow_mut();
        b.unanswered.retain(|&u| u != id);
        b.unblamed_crashes = 0;
    });
    Some(msg)
}

/// The current worker died with `message`; `id` is the file its panic hook named.
fn crashed(state: AppState, id: Option<FileId>, message: &str) {
    let (blamed, give_up) = BRIDGE.with(|b| {
        let mut b = b.borrow_mut();
        if let Some(w) = b.worker.take() {
            w.terminate();
        }
        b.generation += 1;
        b.ready = false;
        b.queue.clear();
        let blamed = id.or_else(|| b.unanswered.first().copied());
        b.unanswered.clear();
        let mut name = None;
        if let Some(id) = blamed {
            b.unblamed_crashes = 0;
            if let Some(at) = b
                .journal
                .iter()
                .position(|j| matches!(j.msg, ToWorker::AddPrepared { id: i, .. } if i == id))
            {
                if let ToWorker::AddPrepared { name: n, .. } = b.journal.remove(at).msg {
                    name = Some(n);
                }
            }
        } else {
            b.unblamed_crashes += 1;
        }
        let give_up = b.unblamed_crashes >= MAX_UNBLAMED_CRASHES;
        if give_up {
            b.stopped = true;
            b.journal.clear();
        }
        (blamed.map(|id| (id, name)), give_up)
    });
    if let Some((id, name)) = blamed {
        let row = state
            .files
            .with_untracked(|f| f.iter().find(|r| r.id == id).cloned());
        if let Some(r) = &row {
            r.status.set(Status::Failed(format!(
                "{}: the importer crashed: {message}",
                r.name
            )));
        } else if let Some(name) = name {
            web_sys::console::error_1(&JsValue::from_str(&format!(
                "{name}: the importer crashed: {message}"
            )));
        }
    } else {
        state.analysis_error.set(Some(format!(
            "The background worker crashed during an analysis ({message}); it was restarted."
        )));
    }
    if give_up {
        stop(state);
        return;
    }
    restart(state);
}

/// No worker can be used: files in flight are marked failed and the page says to reload.
fn stop(state: AppState) {
    BRIDGE.with(|b| {
        let mut b = b.borrow_mut();
        b.stopped = true;
        b.restarting = false;
        b.queue.clear();
    });
    state.files.with_untracked(|f| {
        for r in f {
            if matches!(
                r.status.get_untracked(),
                Status::Reading | Status::Importing(_)
            ) {
                r.status.set(Status::Failed(format!(
                    "{}: the background worker stopped (a bug in trialscope)",
                    r.name
                )));
            }
        }
    });
    super::analysis_stopped(state);
    state.analysis_error.set(Some(
        "The background worker stopped unexpectedly; reload the page to continue.".into(),
    ));
}

/// Starts a new worker and replays the journal into it (the files read again from their
/// handles), then asks the analyses again.
fn restart(state: AppState) {
    BRIDGE.with(|b| b.borrow_mut().restarting = true);
    if !spawn(state) {
        stop(state);
        return;
    }
    let generation = BRIDGE.with(|b| b.borrow().generation);
    let entries: Vec<(ToWorker, Option<JsValue>)> = BRIDGE.with(|b| {
        b.borrow()
            .journal
            .iter()
            .map(|j| (j.msg.clone(), j.payload.clone()))
            .collect()
    });
    spawn_local(async move {
        let mut replay = Vec::with_capacity(entries.len());
        for (msg, source) in entries {
            match (&msg, source) {
                (ToWorker::AddPrepared { id, name }, Some(payload)) => {
                    match add_message(*id, name, &payload) {
                        Some(js) => replay.push(Pending {
                            js,
                            import: Some(*id),
                        }),
                        None => fail_id(
                            state,
                            *id,
                            format!("{name}: could not be sent again after a crash"),
                        ),
                    }
                }
                _ => {
                    if let Some(js) = to_js(&msg) {
                        replay.push(Pending { js, import: None });
                    }
                }
            }
        }
        let flush = BRIDGE.with(|b| {
            let mut b = b.borrow_mut();
            if b.generation != generation {
                // It crashed again meanwhile; that restart replays.
                return None;
            }
            let posted_meanwhile = std::mem::take(&mut b.queue);
            replay.extend(posted_meanwhile);
            b.restarting = false;
            if b.ready {
                Some(replay)
            } else {
                b.queue = replay;
                Some(Vec::new())
            }
        });
        let Some(flush) = flush else { return };
        flush.into_iter().for_each(post_pending);
        super::worker_restarted(state);
    });
}

fn fail_id(state: AppState, id: FileId, message: String) {
    if let Some(r) = state
        .files
        .with_untracked(|f| f.iter().find(|r| r.id == id).cloned())
    {
        r.status.set(Status::Failed(message));
    }
}

thread_local! {
    /// The worker module compiled on the page ([`compile_worker_module`]), started by the first
    /// worker and sent to every worker after it.
    static WORKER_MODULE: RefCell<Option<js_sys::Promise>> = const { RefCell::new(None) };
}

/// The worker's files as this page's build names them: `worker_loader-<h>.js` (which loads
/// `worker-<h>.js`) and `worker-<h>_bg.wasm`, `<h>` being the 16 hex digits of the SHA-256
/// of the three files that `.ci/hash-worker` (a Trunk `post_build` hook, Trunk.toml) writes
/// into index.html's `<meta name="trialscope-worker" content="<h>">` and the files' names.
///
/// Trunk does not hash a worker's names; a plain `worker_bg.wasm` is cached by the browser
/// (GitHub Pages: `max-age=600`), so a page reloaded just after a deploy could run the
/// previous deploy's worker beside the new app. Content-addressed names make that
/// impossible: a new worker has new names. Without the meta (or with anything but 16
/// lower-case hex digits in it, as boot.js and the service worker also require), the plain
/// names Trunk writes.
struct WorkerFiles {
    /// The Web Worker's script (`www/worker_loader.js`, renamed).
    loader: String,
    /// The worker module.
    wasm: String,
}

fn worker_files() -> WorkerFiles {
    let hash = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| {
            d.query_selector("meta[name=\"trialscope-worker\"]")
                .ok()
                .flatten()
        })
        .and_then(|m| m.get_attribute("content"))
        .filter(|h| h.len() == 16 && h.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')));
    match hash {
        Some(h) => WorkerFiles {
            loader: format!("./worker_loader-{h}.js"),
            wasm: format!("./worker-{h}_bg.wasm"),
        },
        None => WorkerFiles {
            loader: "./worker_loader.js".into(),
            wasm: "./worker_bg.wasm".into(),
        },
    }
}

/// Starts a Web Worker on the worker loader (`www/worker_loader.js`, named as in
/// [`worker_files`]) and sends it, as its first message, `{module}`: the worker module
/// (`worker-<h>_bg.wasm`) compiled once on the page, which it instantiates instead of
/// compiling its own (`{}` when that compile failed: the worker then fetches and compiles
/// the module itself).
///
/// One compiled module for the session worker and every import worker, replacements
/// included: the code V8 optimises for one worker (TurboFan, after the import worker's
/// warm-up) serves all of them. Each compiling its own, V8 shares the compile only when it
/// finds the same bytes in its process-wide cache; a new user's run of the demo benchmark
/// (2026-12-07, `tools/bench/wasm_tierup.sh`) had the import worker started at the pick
/// compile the import's hot functions again, 1.6 s of TurboFan on the 2-core VM.
/// Errors: the browser refused to start the worker (e.g. Web Workers blocked).
pub(super) fn new_worker() -> Result<Worker, JsValue> {
    let files = worker_files();
    let worker = Worker::new(&files.loader)?;
    let module = WORKER_MODULE.with(|m| {
        m.borrow_mut()
            .get_or_insert_with(|| compile_worker_module(&files.wasm))
            .clone()
    });
    let to = worker.clone();
    spawn_local(async move {
        let msg = js_sys::Object::new();
        if let Ok(module) = wasm_bindgen_futures::JsFuture::from(module).await {
            let _ = js_sys::Reflect::set(&msg, &JsValue::from_str("module"), &module);
        }
        let _ = to.post_message(&msg);
    });
    Ok(worker)
}

/// `WebAssembly.compileStreaming(fetch(url))`: the worker module at `url`, compiled off the
/// main thread (a rejected promise without a window, or when the response is not
/// `application/wasm`).
fn compile_worker_module(url: &str) -> js_sys::Promise {
    match web_sys::window() {
        Some(w) => js_sys::WebAssembly::compile_streaming(&w.fetch_with_str(url)),
        None => js_sys::Promise::reject(&JsValue::from_str("no window")),
    }
}

/// Creates a worker for the current generation; false when the browser refuses.
fn spawn(state: AppState) -> bool {
    let worker = match new_worker() {
        Ok(w) => w,
        Err(e) => {
            web_sys::console::error_1(&e);
            state.analysis_error.set(Some(
                "the background worker could not be started; this browser may block Web Workers"
                    .into(),
            ));
            return false;
        }
    };
    let generation = BRIDGE.with(|b| b.borrow().generation);
    let handler = Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| {
        mark_message(&ev.data());
        let msg = match decode(ev.data()) {
            Ok(m) => m,
            Err(e) => {
                web_sys::console::error_1(&JsValue::from_str(&format!(
                    "app: unreadable worker message: {e}"
                )));
                return;
            }
        };
        // The app's part in the next task: the first report's decoding (5–13 ms) and its
        // view's first build (10 ms) were one task, most of it V8 compiling the code on first
        // use (`compile_decoder`), with the session and import workers busy beside it
        // (Chromium traces, 2026-12-05). Timeouts run in order, so messages are handled in the
        // order they came.
        if let Some(msg) = on_message(state, generation, msg) {
            set_timeout(
                move || super::on_message(state, msg),
                std::time::Duration::ZERO,
            );
        }
    });
    worker.set_onmessage(Some(handler.as_ref().unchecked_ref()));
    handler.forget();
    // A trap without a panic message (out of memory, an abort) shows only here.
    let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |ev: web_sys::Event| {
        ev.prevent_default();
        if BRIDGE.with(|b| b.borrow().generation) != generation {
            return;
        }
        let message = js_sys::Reflect::get(&ev, &JsValue::from_str("message"))
            .ok()
            .and_then(|m| m.as_string())
            .filter(|m| !m.is_empty())
            .unwrap_or_else(|| "the worker stopped".to_string());
        crashed(state, None, &message);
    });
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    on_error.forget();
    BRIDGE.with(|b| b.borrow_mut().worker = Some(worker));
    true
}

/// Starts the first worker; sends the test hook when the page URL asks for one.
pub fn start(state: AppState) {
    compile_decoder();
    if !spawn(state) {
        BRIDGE.with(|b| b.borrow_mut().stopped = true);
        return;
    }
    let hook = test_hook_from_url();
    super::pool::start(state, hook.clone());
    if let Some(hook) = hook {
        post(&hook);
    }
}

/// A worker message as the page reads it; the one decoder of both message handlers (this
/// bridge's and the import pool's), which [`compile_decoder`] compiles at start-up.
/// Errors: a message that is no [`FromWorker`].
pub(super) fn decode(data: JsValue) -> Result<FromWorker, serde_wasm_bindgen::Error> {
    serde_wasm_bindgen::from_value(data)
}

/// Runs [`decode`] once (on a `{type: "ready"}` of its own) before any worker exists, so that
/// V8 compiles it now, in the start-up task that instantiates the app, instead of in the task
/// that handles the first worker message.
///
/// V8 compiles a wasm function on its first call, on the calling thread, and the derived
/// `Deserialize for FromWorker` is the app's largest function (112 KB: every variant's
/// visitor inlined). Compiled at the first `ready`, it took 2.9–20.5 ms of the main thread
/// with the workers starting beside it on the 2-core VM (Chromium traces, 2026-12-05), and CI
/// once recorded that task at 50 ms, a long task while a picked file loaded.
fn compile_decoder() {
    let ready = js_sys::Object::new();
    if js_sys::Reflect::set(
        &ready,
        &JsValue::from_str("type"),
        &JsValue::from_str("ready"),
    )
    .is_ok()
    {
        let _ = decode(ready.into());
    }
}

/// **Test hook**: `?testhook=panic-on:<file name>` / `?testhook=abort-on:<file name>` (may be
/// repeated) makes the worker crash on that file ([`ToWorker::TestHook`]), so the browser tests
/// can prove crash isolation. Without such a query nothing is sent.
fn test_hook_from_url() -> Option<ToWorker> {
    let search = web_sys::window()?.location().search().ok()?;
    let (mut panic_on, mut abort_on, mut session_panic_on) = (Vec::new(), Vec::new(), Vec::new());
    for kv in search.trim_start_matches('?').split('&') {
        let Some(v) = kv.strip_prefix("testhook=") else {
            continue;
        };
        let v: String = js_sys::decode_uri_component(&v.replace('+', " "))
            .ok()?
            .into();
        if let Some(name) = v.strip_prefix("panic-on:") {
            panic_on.push(name.to_string());
        } else if let Some(name) = v.strip_prefix("abort-on:") {
            abort_on.push(name.to_string());
        } else if let Some(name) = v.strip_prefix("session-panic-on:") {
            session_panic_on.push(name.to_string());
        }
    }
    (!panic_on.is_empty() || !abort_on.is_empty() || !session_panic_on.is_empty()).then_some(
        ToWorker::TestHook {
            panic_on,
            abort_on,
            session_panic_on,
        },
    )
}

/// Leaves a `trialscope:msg <type>` performance mark as a worker message (other than progress)
/// starts being handled on the page, so a long main-thread task (`PerformanceObserver`
/// `longtask`, whose own attribution names no script) can be matched to the message that
/// began it (`tests/it/browser_scale.rs` prints the pairs).
pub(super) fn mark_message(data: &JsValue) {
    let kind = js_sys::Reflect::get(data, &JsValue::from_str("type"))
        .ok()
        .and_then(|t| t.as_string())
        .unwrap_or_default();
    if kind == "progress" {
        return;
    }
    if let Some(p) = web_sys::window().and_then(|w| w.performance()) {
        let _ = p.mark(&format!("trialscope:msg {kind}"));
    }
}
