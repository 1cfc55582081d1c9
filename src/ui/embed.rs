//! Embedding the app in another page (`?embed=1`, README "Embed it in a page"): the chrome
//! (drop zone, tabs) is hidden, and the parent frame drives the app with `postMessage`.
//!
//! Protocol (each message a plain object with a string `type`):
//!
//! * parent → app `{type: "ping"}`; app → parent `{type: "pong"}` (the parent pings until the
//!   app has started and answers).
//! * parent → app `{type: "open", files: [{name, buffer}], view: {tab, input}}` — `name` a
//!   non-empty string, `buffer` an `ArrayBuffer`, `view` optional (`tab` one of `scaling`,
//!   `triage`, `memory`; `input` the input pattern). It replaces the files loaded so far.
//! * app → parent `{type: "error", file, message}` for each file that cannot be read, then
//!   `{type: "loaded", files, hotspots}` (files imported, hotspot rows of the report) once every
//!   file of the `open` has finished and the report covers them.
//!
//! Only messages from the parent frame are read, and only when their shape is valid: anything
//! else is ignored and logged to the console. Answers go to the parent only, addressed to the
//! origin of the message being answered (`event.origin`), never `*`.

use std::cell::RefCell;
use std::collections::BTreeSet;

use js_sys::{Array, ArrayBuffer, Object, Reflect};
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::MessageEvent;

use super::{add_file_row, clear_files, send_file, AppState, Status, Tab};
use crate::session::FileId;

/// Most files one `open` may carry.
const MAX_FILES: u32 = 5000;

/// The `open` being answered: its files, the origin to answer and what was already told.
struct Batch {
    ids: Vec<FileId>,
    origin: String,
    reported: BTreeSet<FileId>,
    done: bool,
}

thread_local! {
    static BATCH: RefCell<Option<Batch>> = const { RefCell::new(None) };
}

/// A valid `open` message.
struct Open {
    files: Vec<(String, ArrayBuffer)>,
    tab: Option<Tab>,
    input: Option<String>,
}

fn get(v: &JsValue, key: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

fn is_plain_object(v: &JsValue) -> bool {
    v.is_object() && !Array::is_array(v) && !v.is_function()
}

/// Checks the shape of an `open` message; the error says what is wrong.
fn parse_open(data: &JsValue) -> Result<Open, String> {
    let files = get(data, "files");
    if !Array::is_array(&files) {
        return Err("`files` must be an array".into());
    }
    let files: Array = files.unchecked_into();
    if files.length() > MAX_FILES {
        return Err(format!("more than {MAX_FILES} files"));
    }
    let mut out = Vec::new();
    for (i, f) in files.iter().enumerate() {
        if !is_plain_object(&f) {
            return Err(format!("files[{i}] must be an object"));
        }
        let name = get(&f, "name")
            .as_string()
            .filter(|n| !n.trim().is_empty() && n.len() <= 4096)
            .ok_or_else(|| format!("files[{i}].name must be a non-empty string"))?;
        let buffer = get(&f, "buffer");
        let buffer = buffer
            .dyn_into::<ArrayBuffer>()
            .map_err(|_| format!("files[{i}].buffer must be an ArrayBuffer"))?;
        out.push((name, buffer));
    }
    let view = get(data, "view");
    let (mut tab, mut input) = (None, None);
    if !view.is_undefined() && !view.is_null() {
        if !is_plain_object(&view) {
            return Err("`view` must be an object".into());
        }
        let t = get(&view, "tab");
        if !t.is_undefined() {
            tab = Some(match t.as_string().as_deref() {
                Some("scaling") => Tab::Scaling,
                Some("triage") => Tab::Triage,
                Some("memory") => Tab::Memory,
                _ => return Err("`view.tab` must be scaling, triage or memory".into()),
            });
        }
        let p = get(&view, "input");
        if !p.is_undefined() {
            input = Some(
                p.as_string()
                    .ok_or("`view.input` must be a string (the input pattern)")?,
            );
        }
    }
    Ok(Open {
        files: out,
        tab,
        input,
    })
}

fn ignore(why: &str) {
    web_sys::console::warn_1(&JsValue::from_str(&format!(
        "trialscope embed: ignored a message: {why}"
    )));
}

/// Posts `msg` to the parent frame, addressed to `origin`.
fn post(msg: &Object, origin: &str) {
    if let Some(parent) = web_sys::window().and_then(|w| w.parent().ok().flatten()) {
        let _ = parent.post_message(msg, origin);
    }
}

fn object(pairs: &[(&str, JsValue)]) -> Object {
    let o = Object::new();
    for (k, v) in pairs {
        let _ = Reflect::set(&o, &JsValue::from_str(k), v);
    }
    o
}

fn on_message(state: AppState, ev: MessageEvent) {
    let Some(w) = web_sys::window() else { return };
    // Only the frame that embeds the app may drive it.
    let parent = w.parent().ok().flatten().map(JsValue::from);
    let from_parent = match (ev.source(), parent) {
        (Some(src), Some(p)) => Object::is(&src, &p) && !Object::is(&p, &JsValue::from(w)),
        _ => false,
    };
    if !from_parent {
        return ignore("not from the parent frame");
    }
    let origin = ev.origin();
    if origin.is_empty() || origin == "null" {
        return ignore("the sender has an opaque origin");
    }
    let data = ev.data();
    if !is_plain_object(&data) {
        return ignore("not an object with a `type`");
    }
    match get(&data, "type").as_string().as_deref() {
        Some("ping") => post(&object(&[("type", "pong".into())]), &origin),
        Some("open") => match parse_open(&data) {
            Ok(open) => start_open(state, open, origin),
            Err(why) => ignore(&format!("`open`: {why}")),
        },
        Some(other) => ignore(&format!("unknown type {other:?}")),
        None => ignore("no string `type`"),
    }
}

fn start_open(state: AppState, open: Open, origin: String) {
    clear_files(state);
    if let Some(p) = open.input {
        state.pattern.set(p);
    }
    if let Some(t) = open.tab {
        state.tab.set(t);
    }
    let mut ids = Vec::new();
    let mut rows = Vec::new();
    for (name, buffer) in open.files {
        let row = add_file_row(state, name, f64::from(buffer.byte_length()));
        ids.push(row.id);
        rows.push((row, buffer));
    }
    BATCH.with(|b| {
        *b.borrow_mut() = Some(Batch {
            ids,
            origin,
            reported: BTreeSet::new(),
            done: false,
        })
    });
    for (row, buffer) in rows {
        match web_sys::Blob::new_with_buffer_source_sequence(&Array::of1(&buffer)) {
            Ok(blob) => send_file(state, &row, blob),
            Err(_) => super::fail_row(state, &row, format!("{}: could not be read", row.name)),
        }
    }
    check(state, None);
}

/// Tells the parent what became of the current `open`: an `error` per failed file, then
/// `loaded` once every file has finished and `report` (file ids, hotspot count) covers the
/// imported ones. Called after each import failure and each report.
pub fn check(state: AppState, report: Option<(&[FileId], usize)>) {
    BATCH.with(|b| {
        let mut b = b.borrow_mut();
        let Some(batch) = b.as_mut() else { return };
        if batch.done {
            return;
        }
        let rows = state.files.get_untracked();
        let mut imported = Vec::new();
        let mut settled = true;
        for id in &batch.ids {
            // Record, pins and telemetry files leave the trial table: they are finished.
            let Some(r) = rows.iter().find(|r| r.id == *id) else {
                continue;
            };
            match r.status.get_untracked() {
                Status::Imported(_) => imported.push(*id),
                Status::Failed(m) => {
                    if batch.reported.insert(*id) {
                        let msg = object(&[
                            ("type", "error".into()),
                            ("file", r.name.clone().into()),
                            ("message", m.into()),
                        ]);
                        post(&msg, &batch.origin);
                    }
                }
                _ => settled = false,
            }
        }
        if !settled {
            return;
        }
        let hotspots = if imported.is_empty() {
            0
        } else {
            match report {
                Some((ids, n)) if imported.iter().all(|i| ids.contains(i)) => n,
                _ => return,
            }
        };
        batch.done = true;
        let msg = object(&[
            ("type", "loaded".into()),
            ("files", JsValue::from(imported.len() as u32)),
            ("hotspots", JsValue::from(hotspots as u32)),
        ]);
        post(&msg, &batch.origin);
    });
}

/// Starts answering the parent frame's messages (only when the page is embedded).
pub fn start(state: AppState) {
    let Some(w) = web_sys::window() else { return };
    let cb = Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| {
        on_message(state, ev);
    });
    let _ = w.add_event_listener_with_callback("message", cb.as_ref().unchecked_ref());
    cb.forget();
}
