//! "Keep my session" (README "Keep my session (opt-in)"): off by default; when the user turns
//! it on, the files they dropped or picked (their `File`s, as IndexedDB stores Blobs) and the
//! view (the URL hash of [`super::viewstate`]) are kept in this browser's IndexedDB database
//! `trialscope`, so a reload (or a later visit) restores the session. Files a link or the demo
//! loaded are not kept (the link or the demo brings them back). "Forget everything" deletes the
//! database and turns keeping off. The choice itself is the `localStorage` item
//! `trialscope.keep-session` (`1`), so a visit that never opted in opens no database.
//!
//! Storage errors (IndexedDB or `localStorage` unavailable, a quota exceeded, a failed write)
//! are shown as a message next to the toggle and never stop the app.

use std::cell::RefCell;

use js_sys::{Array, Object, Promise, Reflect};
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{spawn_local, JsFuture};
use web_sys::{File, IdbDatabase, IdbRequest, IdbTransactionMode};

use super::{add_file_row, clear_files, send_file, AppState};

const DB: &str = "trialscope";
const FILES: &str = "files";
const VIEW: &str = "view";
const FLAG: &str = "trialscope.keep-session";

/// The toggle's state and the storage message.
type Ui = (RwSignal<bool>, RwSignal<Option<String>>);

thread_local! {
    /// Files dropped or picked in this page (name → File), kept when the user turns keeping on.
    static DROPPED: RefCell<Vec<(String, File)>> = const { RefCell::new(Vec::new()) };
    /// The last view written to the database.
    static LAST_VIEW: RefCell<Option<String>> = const { RefCell::new(None) };
    /// The toggle and the message (set by [`start`]).
    static UI: RefCell<Option<Ui>> = const { RefCell::new(None) };
}

fn js_text(v: &JsValue) -> String {
    v.as_string()
        .or_else(|| {
            let name = Reflect::get(v, &"name".into()).ok()?.as_string()?;
            let msg = Reflect::get(v, &"message".into())
                .ok()
                .and_then(|m| m.as_string())
                .unwrap_or_default();
            Some(format!("{name}: {msg}"))
        })
        .unwrap_or_else(|| "unknown error".into())
}

fn storage() -> Result<web_sys::Storage, String> {
    web_sys::window()
        .ok_or("no window")?
        .local_storage()
        .map_err(|e| js_text(&e))?
        .ok_or_else(|| "localStorage is not available".to_string())
}

/// Whether the user turned keeping on (false when `localStorage` cannot be read).
fn enabled() -> bool {
    storage()
        .ok()
        .and_then(|s| s.get_item(FLAG).ok().flatten())
        .is_some_and(|v| v == "1")
}

fn message(text: Option<String>) {
    UI.with(|u| {
        if let Some((_, m)) = *u.borrow() {
            m.set(text);
        }
    });
}

fn storage_error(what: &str, e: String) {
    message(Some(format!(
        "Could not {what} in this browser's storage ({e}); the app works on without keeping the session."
    )));
}

/// Resolves with the request's result once it succeeds (rejects with its error).
async fn done(req: &IdbRequest) -> Result<JsValue, String> {
    let p = Promise::new(&mut |res, rej| {
        let r = req.clone();
        let ok = Closure::once_into_js(move |_: web_sys::Event| {
            let _ = res.call1(&JsValue::NULL, &r.result().unwrap_or(JsValue::UNDEFINED));
        });
        let r = req.clone();
        let err = Closure::once_into_js(move |_: web_sys::Event| {
            let e = r
                .error()
                .ok()
                .flatten()
                .map_or(JsValue::from_str("request failed"), JsValue::from);
            let _ = rej.call1(&JsValue::NULL, &e);
        });
        req.set_onsuccess(Some(ok.unchecked_ref()));
        req.set_onerror(Some(err.unchecked_ref()));
    });
    JsFuture::from(p).await.map_err(|e| js_text(&e))
}

/// Resolves when `tx` commits (rejects when it aborts, e.g. on a quota error).
async fn committed(tx: &web_sys::IdbTransaction) -> Result<(), String> {
    let p = Promise::new(&mut |res, rej| {
        let ok = Closure::once_into_js(move |_: web_sys::Event| {
            let _ = res.call0(&JsValue::NULL);
        });
        let t = tx.clone();
        let err = Closure::once_into_js(move |_: web_sys::Event| {
            let e = t
                .error()
                .map_or(JsValue::from_str("transaction aborted"), JsValue::from);
            let _ = rej.call1(&JsValue::NULL, &e);
        });
        tx.set_oncomplete(Some(ok.unchecked_ref()));
        tx.set_onabort(Some(err.unchecked_ref()));
    });
    JsFuture::from(p).await.map(|_| ()).map_err(|e| js_text(&e))
}

/// Opens (creating on first use) the database with its two stores: `files` (name → `{name,
/// file}`) and `view` (`"hash"` → the view's hash).
async fn open() -> Result<IdbDatabase, String> {
    let factory = web_sys::window()
        .ok_or("no window")?
        .indexed_db()
        .map_err(|e| js_text(&e))?
        .ok_or("IndexedDB is not available")?;
    let req = factory.open_with_u32(DB, 1).map_err(|e| js_text(&e))?;
    let r = req.clone();
    let upgrade = Closure::once_into_js(move |_: web_sys::Event| {
        if let Ok(db) = r.result().map(|d| d.unchecked_into::<IdbDatabase>()) {
            let _ = db.create_object_store(FILES);
            let _ = db.create_object_store(VIEW);
        }
    });
    req.set_onupgradeneeded(Some(upgrade.unchecked_ref()));
    Ok(done(&req).await?.unchecked_into())
}

async fn put(store: &str, key: &str, value: &JsValue) -> Result<(), String> {
    let db = open().await?;
    let tx = db
        .transaction_with_str_and_mode(store, IdbTransactionMode::Readwrite)
        .map_err(|e| js_text(&e))?;
    let s = tx.object_store(store).map_err(|e| js_text(&e))?;
    let req = s
        .put_with_key(value, &JsValue::from_str(key))
        .map_err(|e| js_text(&e))?;
    done(&req).await?;
    let r = committed(&tx).await;
    db.close();
    r
}

async fn delete(store: &str, key: &str) -> Result<(), String> {
    let db = open().await?;
    let tx = db
        .transaction_with_str_and_mode(store, IdbTransactionMode::Readwrite)
        .map_err(|e| js_text(&e))?;
    let s = tx.object_store(store).map_err(|e| js_text(&e))?;
    s.delete(&JsValue::from_str(key)).map_err(|e| js_text(&e))?;
    let r = committed(&tx).await;
    db.close();
    r
}

async fn keep_file(name: String, file: File) {
    let v = Object::new();
    let _ = Reflect::set(&v, &"name".into(), &JsValue::from_str(&name));
    let _ = Reflect::set(&v, &"file".into(), &file);
    if let Err(e) = put(FILES, &name, &v).await {
        storage_error(&format!("keep {name}"), e);
    }
}

/// A file was dropped or picked: remembered for this page, and kept when keeping is on.
pub fn dropped(name: &str, file: &File) {
    DROPPED.with(|d| {
        let mut d = d.borrow_mut();
        d.retain(|(n, _)| n != name);
        d.push((name.to_string(), file.clone()));
    });
    if enabled() {
        spawn_local(keep_file(name.to_string(), file.clone()));
    }
}

/// A file was removed from the page: no longer kept.
pub fn removed(name: &str) {
    DROPPED.with(|d| d.borrow_mut().retain(|(n, _)| n != name));
    if enabled() {
        let name = name.to_string();
        spawn_local(async move {
            if let Err(e) = delete(FILES, &name).await {
                storage_error(&format!("forget {name}"), e);
            }
        });
    }
}

/// Every file was removed from the page.
pub fn cleared() {
    let names: Vec<String> = DROPPED.with(|d| d.borrow().iter().map(|(n, _)| n.clone()).collect());
    for n in names {
        removed(&n);
    }
}

/// The view's hash changed ([`super::viewstate`]): kept when keeping is on.
pub fn view_changed(hash: &str) {
    let same = LAST_VIEW.with(|l| l.borrow().as_deref() == Some(hash));
    if same || !enabled() {
        return;
    }
    LAST_VIEW.with(|l| *l.borrow_mut() = Some(hash.to_string()));
    let hash = hash.to_string();
    spawn_local(async move {
        if let Err(e) = put(VIEW, "hash", &JsValue::from_str(&hash)).await {
            storage_error("keep the view", e);
        }
    });
}

/// Turns keeping on: the flag, then every file dropped so far and the current view.
fn turn_on(hash: String) {
    if let Err(e) = storage().and_then(|s| s.set_item(FLAG, "1").map_err(|e| js_text(&e))) {
        storage_error("turn keeping on", e);
        UI.with(|u| {
            if let Some((on, _)) = *u.borrow() {
                on.set(false);
            }
        });
        return;
    }
    message(None);
    let files: Vec<(String, File)> = DROPPED.with(|d| d.borrow().clone());
    spawn_local(async move {
        for (name, file) in files {
            keep_file(name, file).await;
        }
    });
    LAST_VIEW.with(|l| *l.borrow_mut() = None);
    view_changed(&hash);
}

/// Turns keeping off (the flag only).
fn unflag() {
    if let Ok(s) = storage() {
        let _ = s.remove_item(FLAG);
    }
}

/// Deletes everything kept and turns keeping off.
async fn forget() -> Result<(), String> {
    unflag();
    LAST_VIEW.with(|l| *l.borrow_mut() = None);
    let factory = web_sys::window()
        .ok_or("no window")?
        .indexed_db()
        .map_err(|e| js_text(&e))?
        .ok_or("IndexedDB is not available")?;
    let req = factory.delete_database(DB).map_err(|e| js_text(&e))?;
    done(&req).await.map(|_| ())
}

/// Reads the kept files back into the page (as if dropped again) and returns the kept view.
async fn restore(state: AppState) -> Result<Option<String>, String> {
    let db = open().await?;
    let tx = db
        .transaction_with_str_sequence(&Array::of2(&FILES.into(), &VIEW.into()))
        .map_err(|e| js_text(&e))?;
    let files = tx.object_store(FILES).map_err(|e| js_text(&e))?;
    let all = done(&files.get_all().map_err(|e| js_text(&e))?).await?;
    let view = tx.object_store(VIEW).map_err(|e| js_text(&e))?;
    let hash = done(&view.get(&"hash".into()).map_err(|e| js_text(&e))?)
        .await?
        .as_string();
    db.close();
    for v in Array::from(&all).iter() {
        let name = Reflect::get(&v, &"name".into())
            .ok()
            .and_then(|n| n.as_string());
        let file = Reflect::get(&v, &"file".into())
            .ok()
            .and_then(|f| f.dyn_into::<File>().ok());
        if let (Some(name), Some(file)) = (name, file) {
            DROPPED.with(|d| d.borrow_mut().push((name.clone(), file.clone())));
            let row = add_file_row(state, name, file.size());
            send_file(state, &row, file.into());
        }
    }
    LAST_VIEW.with(|l| *l.borrow_mut() = hash.clone());
    Ok(hash)
}

/// Restores a kept session (when keeping is on). The kept view applies when the page was
/// opened without a view of its own in the hash.
pub fn start(state: AppState, on: RwSignal<bool>, note: RwSignal<Option<String>>) {
    UI.with(|u| *u.borrow_mut() = Some((on, note)));
    if !enabled() {
        return;
    }
    on.set(true);
    spawn_local(async move {
        match restore(state).await {
            Ok(Some(hash)) if !hash.is_empty() => super::viewstate::adopt_if_none(state, &hash),
            Ok(_) => {}
            Err(e) => storage_error("restore the kept session", e),
        }
    });
}

/// The toggle, "forget everything", and the storage message.
#[component]
pub fn KeepSession() -> impl IntoView {
    let state = expect_context::<AppState>();
    let on = RwSignal::new(false);
    let note = RwSignal::new(None::<String>);
    start(state, on, note);
    view! {
        <section class="keep-session" data-testid="keep-session">
            <label title="Keep the files you drop and the view in this browser (IndexedDB), so a reload restores them. Nothing leaves the browser.">
                <input
                    type="checkbox"
                    data-testid="persist-toggle"
                    prop:checked=move || on.get()
                    on:change=move |ev| {
                        let checked = event_target_checked(&ev);
                        on.set(checked);
                        if checked {
                            turn_on(super::viewstate::current_hash(state));
                        } else {
                            spawn_local(async move {
                                if let Err(e) = forget().await {
                                    storage_error("forget the kept session", e);
                                }
                            });
                        }
                    }
                />
                " Keep my session in this browser"
            </label>
            " "
            <button
                class="small"
                data-testid="forget-everything"
                on:click=move |_| {
                    on.set(false);
                    unflag();
                    clear_files(state);
                    spawn_local(async move {
                        match forget().await {
                            Ok(()) => message(Some("Forgotten: nothing of this session is kept in this browser.".into())),
                            Err(e) => storage_error("forget the kept session", e),
                        }
                    });
                }
            >
                "Forget everything"
            </button>
            <span class="persist-message" data-testid="persist-message">{move || note.get()}</span>
        </section>
    }
}
