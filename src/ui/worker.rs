//! The Web Worker side: owns one [`Session`], decodes [`ToWorker`] messages (file bytes arrive
//! as a transferred `ArrayBuffer` in the message's `buffer` field), and posts [`FromWorker`]
//! messages back through `serde-wasm-bindgen`. Import, decompression, parsing and analysis all
//! run here, off the page's thread.
//!
//! A panic posts [`FromWorker::Crashed`] (naming the file being imported) before the trap, so
//! the page can fail that file only and replace the worker (see [`super::bridge`]).

use std::cell::{Cell, RefCell};

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

use crate::session::{FileId, FromWorker, Session, ToWorker};

thread_local! {
    static SESSION: RefCell<Session> = RefCell::new(Session::new());
    /// The file being imported, for the panic hook.
    static IMPORTING: Cell<Option<FileId>> = const { Cell::new(None) };
    /// File names of the test hook ([`ToWorker::TestHook`]): (panic on, abort on).
    static TEST_HOOK: RefCell<(Vec<String>, Vec<String>)> = const { RefCell::new((Vec::new(), Vec::new())) };
}

fn scope() -> DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

fn post(msg: &FromWorker) {
    match serde_wasm_bindgen::to_value(msg) {
        Ok(v) => {
            if let Err(e) = scope().post_message(&v) {
                web_sys::console::error_1(&e);
            }
        }
        Err(e) => web_sys::console::error_1(&JsValue::from_str(&format!(
            "worker: cannot serialize a message: {e}"
        ))),
    }
}

/// Installs the worker's message handler and posts [`FromWorker::Ready`].
pub fn start_worker() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        let payload = info.payload();
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".to_string());
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        post(&FromWorker::Crashed {
            id: IMPORTING.with(Cell::get),
            message: format!("{what}{at}"),
        });
    }));
    let handler = Closure::<dyn FnMut(MessageEvent)>::new(|ev: MessageEvent| handle(ev.data()));
    scope().set_onmessage(Some(handler.as_ref().unchecked_ref()));
    handler.forget();
    post(&FromWorker::Ready);
}

fn handle(data: JsValue) {
    let msg: ToWorker = match serde_wasm_bindgen::from_value(data.clone()) {
        Ok(m) => m,
        Err(e) => {
            web_sys::console::error_1(&JsValue::from_str(&format!(
                "worker: unreadable message: {e}"
            )));
            return;
        }
    };
    match msg {
        ToWorker::Import { id, name } => {
            let buffer = js_sys::Reflect::get(&data, &JsValue::from_str("buffer"))
                .ok()
                .and_then(|b| b.dyn_into::<js_sys::ArrayBuffer>().ok());
            let Some(buffer) = buffer else {
                post(&FromWorker::ImportFailed {
                    id,
                    message: format!("{name}: the file's bytes did not reach the worker"),
                    name,
                });
                return;
            };
            IMPORTING.with(|c| c.set(Some(id)));
            test_hook(&name);
            // One copy into wasm memory; the ArrayBuffer is released with the message.
            let bytes = js_sys::Uint8Array::new(&buffer).to_vec();
            drop(buffer);
            let started = js_sys::Date::now();
            let mut last = -1.0;
            let mut progress = |f: f64| {
                // At most ~20 progress messages per file.
                if f - last >= 0.05 || f >= 1.0 {
                    last = f;
                    post(&FromWorker::Progress { id, fraction: f });
                }
            };
            let mut out = SESSION.with(|s| s.borrow_mut().import(id, &name, &bytes, &mut progress));
            drop(bytes);
            if let FromWorker::Imported { import_ms, .. } = &mut out {
                *import_ms = js_sys::Date::now() - started;
            }
            IMPORTING.with(|c| c.set(None));
            post(&out);
            post_updates();
        }
        ToWorker::Analyse(req) => {
            let out = SESSION.with(|s| s.borrow().analyse(&req));
            post(&out);
        }
        ToWorker::Memory(req) => {
            let out = SESSION.with(|s| s.borrow().analyse_memory(&req));
            post(&out);
        }
        ToWorker::Remove { id } => {
            SESSION.with(|s| s.borrow_mut().remove(id));
            post_updates();
        }
        ToWorker::Clear => SESSION.with(|s| s.borrow_mut().clear()),
        ToWorker::Triage(req) => post(&SESSION.with(|s| s.borrow().triage(&req))),
        ToWorker::PinWarmMedians(req) => {
            post(&SESSION.with(|s| s.borrow_mut().pin_warm_medians(&req)))
        }
        ToWorker::PinKeys { keys, request } => {
            post(&SESSION.with(|s| s.borrow_mut().pin_keys(&keys, &request)))
        }
        ToWorker::ClearPins(req) => post(&SESSION.with(|s| s.borrow_mut().clear_pins(&req))),
        ToWorker::TestHook { panic_on, abort_on } => {
            TEST_HOOK.with(|h| *h.borrow_mut() = (panic_on, abort_on));
        }
    }
}

/// **Test hook** ([`ToWorker::TestHook`], sent only for a page opened with `?testhook=…`):
/// crashes the worker on a file of a chosen name, by a panic or by an abort without a panic
/// message (a bare trap, as when memory runs out). Inert when no hook was sent.
fn test_hook(name: &str) {
    let (panic, abort) = TEST_HOOK.with(|h| {
        let h = h.borrow();
        (h.0.iter().any(|n| n == name), h.1.iter().any(|n| n == name))
    });
    if abort {
        std::process::abort();
    }
    if panic {
        panic!("test hook: a crash was requested for this file");
    }
}

/// Posts [`FromWorker::Updated`] when files of a drop changed each other's facts (a host from
/// sibling names, an assigned rank).
fn post_updates() {
    if let Some(u) = SESSION.with(|s| s.borrow_mut().take_updates()) {
        post(&u);
    }
}
