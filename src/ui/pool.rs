//! The import pool: up to [`MAX_IMPORT_WORKERS`] Web Workers (one per core the browser reports;
//! files under 128 KiB go only to one per core less one, leaving a core to the session worker
//! and the page: [`crate::session::schedule::pool_size`]) that load dropped files in parallel. Each
//! takes one file at a time ([`ToWorker::Prepare`] with the file's `Blob` handle), reads it in
//! chunks, reduces it to what the workspace keeps ([`crate::workspace::prepare`]) and answers
//! [`FromWorker::Prepared`]; the result goes on, unread, to the session worker
//! ([`super::bridge::post_prepared`]), which derives the facts across files — in drop
//! order, whichever worker finishes first (`release`), so the web app lists the files as the
//! CLI lists its arguments. A worker that starts while no file waits is first sent
//! [`ToWorker::WarmUp`] (a small generated import, so its first real file runs optimised
//! code; `trialscope:warmup` mark).
//!
//! A wasm memory never shrinks: an import worker keeps the heap its largest file needed until
//! it ends. So once a worker's memory has grown past [`RECYCLE_ABOVE_BYTES`] (it says how much
//! in [`FromWorker::Prepared`]), the pool ends it right after handing its result on and starts
//! a fresh one in its slot (the path a crashed worker takes), and the tab gets that memory back.
//! Each hand-over leaves a `performance` mark on the page, `trialscope:prepared` with the
//! file, the worker's wasm memory, the size of the handed-over result and whether the worker
//! was replaced (read by `tests/it/browser_scale.rs`).
//!
//! Scheduling: files go to the workers in the order they were dropped (a large-files-only worker
//! takes the first large file queued). A batch picked at once
//! is queued whole before the first file is handed out ([`submit`] defers the hand-out to a
//! microtask). Not largest first: a largest-first trial (session 7) measured no gain (a worker
//! idled 62–110 ms of a 12 s import). Whatever the hand-out order, the results reach the
//! session worker in drop order (`release`), since the web app's report must equal the CLI's
//! for the same files in the same order (tests/it/browser_exports.rs). Each finished file leaves a
//! `trialscope:job` mark (slot, start and end in `performance.now()` ms, size) from which the
//! benchmarks compute each worker's busy and idle time.
//!
//! One file's crash costs that file only: when an import worker panics (its hook posts
//! [`FromWorker::Crashed`]) or traps (only its `error` event fires), the file it held is marked
//! failed, naming it, and a new worker takes its place; the queue goes on.

use std::cell::RefCell;
use std::collections::VecDeque;

use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Blob, MessageEvent, Worker};

use super::{AppState, Status};
use crate::session::schedule::{self, LargeWorkerStart, PoolSize};
use crate::session::{FileId, FromWorker, ToWorker};

/// Most import workers, whatever the core count (each holds one file's model while it works).
pub const MAX_IMPORT_WORKERS: usize = 4;

/// An import worker whose wasm memory grew past this (bytes) is replaced by a fresh one once
/// its result is handed on (256 MiB: a fresh worker starts with a few MiB; the 18 demo trials
/// stay below it, a 200 MB trace goes far above it).
pub const RECYCLE_ABOVE_BYTES: f64 = 256.0 * 1024.0 * 1024.0;

/// One file waiting for, or held by, an import worker.
struct Job {
    id: FileId,
    name: String,
    blob: Blob,
    /// The blob's size as dropped, bytes (its `trialscope:job` mark).
    bytes: f64,
    /// `performance.now()` when a worker was given the file (ms; 0 while queued).
    sent_ms: f64,
}

struct Slot {
    worker: Option<Worker>,
    /// Incremented for every new worker in this slot; events of an older one are ignored.
    generation: u32,
    ready: bool,
    /// Sent [`ToWorker::WarmUp`] and not yet [`FromWorker::WarmedUp`].
    warming: bool,
    busy: Option<Job>,
}

#[derive(Default)]
struct Pool {
    slots: Vec<Slot>,
    /// How many workers there are and which take small files.
    size: Option<PoolSize>,
    queue: VecDeque<Job>,
    state: Option<AppState>,
    /// The test hook ([`ToWorker::TestHook`]), sent to every import worker when it starts.
    hook: Option<ToWorker>,
    /// A [`dispatch`] is scheduled for the end of the current task.
    dispatch_pending: bool,
    /// The submitted files not yet handed to the session worker, in submit (drop) order, and
    /// the results that arrived ahead of an earlier file ([`release`]).
    order: VecDeque<FileId>,
    done: Vec<(FileId, String, JsValue)>,
    /// A [`dispatch_when_idle`] is scheduled.
    idle_start_pending: bool,
}

thread_local! {
    static POOL: RefCell<Pool> = RefCell::new(Pool::default());
}

/// Starts the pool's workers (the count from `navigator.hardwareConcurrency`).
pub fn start(state: AppState, hook: Option<ToWorker>) {
    let cores = web_sys::window()
        .map(|w| w.navigator().hardware_concurrency())
        .unwrap_or(2.0);
    let size = schedule::pool_size(cores, MAX_IMPORT_WORKERS);
    let n = size.workers;
    POOL.with(|p| {
        let mut p = p.borrow_mut();
        p.state = Some(state);
        p.size = Some(size);
        p.hook = hook;
        for _ in 0..n {
            p.slots.push(Slot {
                worker: None,
                generation: 0,
                ready: false,
                warming: false,
                busy: None,
            });
        }
    });
    // The large-files-only workers start later (`dispatch`,
    // `schedule::start_large_files_worker`): when files wait for them, else once the pool has
    // stayed idle. Started and warmed up at once, they took CPU from 200 small trials picked
    // during the start (README "Crash isolation and parallel import").
    for i in 0..size.small_file_workers {
        spawn(i);
    }
}

/// Queues a file for import. The hand-out runs at the end of the current task (a microtask),
/// so every file of a batch added in one go is queued before the first is handed out.
pub fn submit(id: FileId, name: String, blob: Blob) {
    let schedule = POOL.with(|p| {
        let mut p = p.borrow_mut();
        let bytes = blob.size();
        p.order.push_back(id);
        p.queue.push_back(Job {
            id,
            name,
            blob,
            bytes,
            sent_ms: 0.0,
        });
        !std::mem::replace(&mut p.dispatch_pending, true)
    });
    if schedule {
        wasm_bindgen_futures::spawn_local(async {
            POOL.with(|p| p.borrow_mut().dispatch_pending = false);
            dispatch();
        });
    }
}

/// Forgets file `id`: taken from the queue, or — when a worker holds it — its result is
/// dropped when it arrives.
pub fn cancel(id: FileId) {
    POOL.with(|p| {
        let mut p = p.borrow_mut();
        p.queue.retain(|j| j.id != id);
        p.order.retain(|o| *o != id);
        p.done.retain(|d| d.0 != id);
        for s in &mut p.slots {
            if s.busy.as_ref().is_some_and(|j| j.id == id) {
                // The worker finishes; `on_message` finds no job for the answer and drops it.
                s.busy = None;
            }
        }
    });
    release();
}

/// Forgets every queued and running import.
pub fn cancel_all() {
    POOL.with(|p| {
        let mut p = p.borrow_mut();
        p.queue.clear();
        p.order.clear();
        p.done.clear();
        for s in &mut p.slots {
            s.busy = None;
        }
    });
}

/// Hands the prepared results to the session worker in submit (drop) order, so the workspace —
/// which keeps files in the order they are added — lists them as the CLI does its arguments,
/// whichever import worker finishes first: a result waits for every earlier file's, or for
/// that file to leave (crashed, cancelled).
fn release() {
    let ready = POOL.with(|p| {
        let mut p = p.borrow_mut();
        let p = &mut *p;
        let mut ready = Vec::new();
        while let Some(&front) = p.order.front() {
            if let Some(k) = p.done.iter().position(|d| d.0 == front) {
                ready.push(p.done.remove(k));
            } else if p.queue.iter().any(|j| j.id == front)
                || p.slots
                    .iter()
                    .any(|s| s.busy.as_ref().is_some_and(|j| j.id == front))
            {
                break;
            }
            p.order.pop_front();
        }
        ready
    });
    for (id, name, payload) in ready {
        super::bridge::post_prepared(id, &name, payload);
    }
}

/// Hands queued files to idle, ready workers, in queue (drop) order; a worker that takes
/// large files only ([`schedule::may_take`]) gets the first large one queued, and is started
/// when [`schedule::start_large_files_worker`] says so.
fn dispatch() {
    dispatch_with(false);
}

/// [`dispatch`], [`schedule::IDLE_START_MS`] after a dispatch that found the pool idle: a
/// large-files-only worker starts now if the pool is still idle.
fn dispatch_when_idle() {
    POOL.with(|p| p.borrow_mut().idle_start_pending = false);
    dispatch_with(true);
}

/// [`dispatch`]; `idle_waited`: the pool was idle [`schedule::IDLE_START_MS`] ago.
fn dispatch_with(idle_waited: bool) {
    let (unstarted, wait): (Vec<usize>, bool) = POOL.with(|p| {
        let p = p.borrow();
        let Some(size) = p.size else {
            return (Vec::new(), false);
        };
        let started = || p.slots.iter().filter(|s| s.generation > 0);
        let idle =
            p.queue.is_empty() && started().all(|s| s.ready && !s.warming && s.busy.is_none());
        let all_busy = started().all(|s| s.busy.is_some());
        let mut wait = false;
        let now = (0..p.slots.len())
            .filter(|&i| p.slots[i].generation == 0)
            .filter(|&i| {
                let takes = p
                    .queue
                    .iter()
                    .filter(|j| schedule::may_take(size, i, j.bytes))
                    .count();
                match schedule::start_large_files_worker(idle, takes, all_busy) {
                    LargeWorkerStart::Now => true,
                    LargeWorkerStart::WhenIdle if idle_waited => true,
                    LargeWorkerStart::WhenIdle => {
                        wait = true;
                        false
                    }
                    LargeWorkerStart::No => false,
                }
            })
            .collect();
        (now, wait)
    });
    for i in unstarted {
        spawn(i);
    }
    let schedule_idle_start =
        wait && POOL.with(|p| !std::mem::replace(&mut p.borrow_mut().idle_start_pending, true));
    if schedule_idle_start {
        set_timeout(
            dispatch_when_idle,
            std::time::Duration::from_millis(u64::from(schedule::IDLE_START_MS)),
        );
    }
    POOL.with(|p| {
        let mut p = p.borrow_mut();
        let p = &mut *p;
        let Some(size) = p.size else {
            return;
        };
        for (i, s) in p.slots.iter_mut().enumerate() {
            if !s.ready || s.busy.is_some() || s.worker.is_none() {
                continue;
            }
            if p.queue.is_empty() {
                return;
            }
            let Some(k) = p
                .queue
                .iter()
                .position(|j| schedule::may_take(size, i, j.bytes))
            else {
                continue;
            };
            let Some(mut job) = p.queue.remove(k) else {
                continue;
            };
            let Some(w) = s.worker.as_ref() else {
                p.queue.insert(k, job);
                continue;
            };
            let msg = serde_wasm_bindgen::to_value(&ToWorker::Prepare {
                id: job.id,
                name: job.name.clone(),
            })
            .ok()
            .filter(|m| js_sys::Reflect::set(m, &JsValue::from_str("blob"), &job.blob).is_ok());
            job.sent_ms = super::now_ms();
            match msg.map(|m| w.post_message(&m)) {
                Some(Ok(())) => s.busy = Some(job),
                _ => p.queue.insert(k, job),
            }
        }
    });
}

/// Creates the worker of slot `i` (a new generation).
fn spawn(i: usize) {
    let Some(state) = POOL.with(|p| p.borrow().state) else {
        return;
    };
    let worker = match super::bridge::new_worker() {
        Ok(w) => w,
        Err(e) => {
            web_sys::console::error_1(&e);
            return;
        }
    };
    let generation = POOL.with(|p| {
        let mut p = p.borrow_mut();
        let s = &mut p.slots[i];
        s.generation += 1;
        s.ready = false;
        s.warming = false;
        s.generation
    });
    let handler = Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| {
        let data = ev.data();
        super::bridge::mark_message(&data);
        let Ok(msg) = super::bridge::decode(data.clone()) else {
            return;
        };
        on_message(state, i, generation, msg, &data);
    });
    worker.set_onmessage(Some(handler.as_ref().unchecked_ref()));
    handler.forget();
    let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |ev: web_sys::Event| {
        ev.prevent_default();
        let message = js_sys::Reflect::get(&ev, &JsValue::from_str("message"))
            .ok()
            .and_then(|m| m.as_string())
            .filter(|m| !m.is_empty())
            .unwrap_or_else(|| "the worker stopped".to_string());
        crashed(state, i, generation, &message);
    });
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    on_error.forget();
    POOL.with(|p| p.borrow_mut().slots[i].worker = Some(worker));
}

fn current(i: usize, generation: u32) -> bool {
    POOL.with(|p| p.borrow().slots.get(i).map(|s| s.generation) == Some(generation))
}

fn on_message(state: AppState, i: usize, generation: u32, msg: FromWorker, data: &JsValue) {
    if !current(i, generation) {
        return;
    }
    match msg {
        FromWorker::Ready => {
            let hook = POOL.with(|p| {
                let mut p = p.borrow_mut();
                p.slots[i].ready = true;
                p.hook.clone()
            });
            if let Some(h) = hook.and_then(|h| serde_wasm_bindgen::to_value(&h).ok()) {
                POOL.with(|p| {
                    if let Some(w) = &p.borrow().slots[i].worker {
                        let _ = w.post_message(&h);
                    }
                });
            }
            // Warm a new worker up while nothing waits (a file that waits warms it anyway);
            // a file handed out meanwhile queues behind the warm-up in the worker.
            let warm = serde_wasm_bindgen::to_value(&ToWorker::WarmUp).ok();
            POOL.with(|p| {
                let mut p = p.borrow_mut();
                let p = &mut *p;
                let s = &mut p.slots[i];
                if let (true, Some(w), Some(m)) = (p.queue.is_empty(), &s.worker, &warm) {
                    s.warming = w.post_message(m).is_ok();
                }
            });
            dispatch();
        }
        FromWorker::WarmedUp { ms } => {
            POOL.with(|p| p.borrow_mut().slots[i].warming = false);
            mark_warm_up(i, ms);
            dispatch();
        }
        FromWorker::Progress { .. } => super::on_message(state, msg),
        FromWorker::Prepared {
            id,
            name,
            wasm_memory_bytes,
        } => {
            let held = POOL.with(|p| {
                let mut p = p.borrow_mut();
                let s = &mut p.slots[i];
                match s.busy.take() {
                    Some(j) if j.id == id => Some((j.sent_ms, j.bytes)),
                    other => {
                        s.busy = other;
                        None
                    }
                }
            });
            let replace = wasm_memory_bytes > RECYCLE_ABOVE_BYTES;
            if let Some((sent_ms, bytes)) = held {
                // The import worker's wall time for this file (read, decompress, parse,
                // reduce, serialize): the page's import throughput figure.
                let now = super::now_ms();
                let ms = now - sent_ms;
                state.timing.update(|t| t.import_ms += ms);
                mark_job(i, sent_ms, now, bytes, &name);
                let payload = js_sys::Reflect::get(data, &JsValue::from_str("prepared"))
                    .unwrap_or(JsValue::NULL);
                mark_handover(&name, wasm_memory_bytes, &payload, replace);
                POOL.with(|p| p.borrow_mut().done.push((id, name.clone(), payload)));
                release();
            }
            if replace {
                // Its memory goes back to the tab (also when its file was removed meanwhile);
                // the queue goes on once the new worker is ready.
                replace_worker(i);
                return;
            }
            dispatch();
        }
        FromWorker::Crashed { message, .. } => crashed(state, i, generation, &message),
        _ => {}
    }
}

/// The worker of slot `i` died: its file fails, naming it; a new worker takes the slot.
fn crashed(state: AppState, i: usize, generation: u32, message: &str) {
    if !current(i, generation) {
        return;
    }
    let job = POOL.with(|p| {
        let mut p = p.borrow_mut();
        let s = &mut p.slots[i];
        s.ready = false;
        let job = s.busy.take();
        if let Some(j) = &job {
            p.order.retain(|o| *o != j.id);
        }
        job
    });
    release();
    if let Some(job) = job {
        let row = state
            .files
            .with_untracked(|f| f.iter().find(|r| r.id == job.id).cloned());
        if let Some(r) = row {
            r.status.set(Status::Failed(format!(
                "{}: the importer crashed: {message}",
                job.name
            )));
        }
    }
    replace_worker(i);
}

/// Ends the worker of slot `i` (its memory goes back to the tab) and starts a new one there;
/// events of the old one are ignored from now on (a new generation).
fn replace_worker(i: usize) {
    POOL.with(|p| {
        let mut p = p.borrow_mut();
        let s = &mut p.slots[i];
        if let Some(w) = s.worker.take() {
            w.terminate();
        }
        s.ready = false;
    });
    spawn(i);
}

/// Leaves the `trialscope:job` mark of one finished file: `slot=<i> start=<ms> end=<ms>
/// bytes=<size as dropped> file=<name>` (`performance.now()` ms from the hand-out to the
/// answer), from which the benchmarks compute each worker's busy and idle time.
fn mark_job(slot: usize, start_ms: f64, end_ms: f64, bytes: f64, name: &str) {
    let text = format!(
        "trialscope:job slot={slot} start={start_ms:.1} end={end_ms:.1} bytes={bytes} file={name}"
    );
    if let Some(p) = web_sys::window().and_then(|w| w.performance()) {
        let _ = p.mark(&text);
    }
}

/// Leaves the `trialscope:warmup slot=<i> ms=<wall ms>` mark of one import worker's warm-up
/// ([`ToWorker::WarmUp`]; a measurement for the benchmarks, nothing is shown).
fn mark_warm_up(slot: usize, ms: f64) {
    if let Some(p) = web_sys::window().and_then(|w| w.performance()) {
        let _ = p.mark(&format!("trialscope:warmup slot={slot} ms={ms:.1}"));
    }
}

/// Leaves the `trialscope:prepared` mark of one hand-over on the page's performance timeline:
/// `file=<name> wasm=<bytes> wire=<bytes> replaced=<bool>` in its `detail`-less name (a
/// measurement for the benchmarks; nothing is shown).
fn mark_handover(name: &str, wasm_bytes: f64, payload: &JsValue, replaced: bool) {
    let wire = match payload.dyn_ref::<Blob>() {
        Some(b) => b.size(),
        None => payload
            .dyn_ref::<js_sys::Uint8Array>()
            .map_or(0.0, |a| f64::from(a.length())),
    };
    let text = format!(
        "trialscope:prepared wasm={wasm_bytes} wire={wire} replaced={replaced} file={name}"
    );
    if let Some(p) = web_sys::window().and_then(|w| w.performance()) {
        let _ = p.mark(&text);
    }
}
