//! Getting files into the app: the drop zone (files and whole folders, traversed with
//! `webkitGetAsEntry`), the `multiple` file picker, a folder picker (`webkitdirectory`), and
//! the demo (the site's own `demo/index.json` and the traces it lists, fetched by relative
//! URL), and the traces a link names (`?trace=URL`, [`load_link`]: fetched with the body
//! streamed, each failure naming the URL and the cause). Every path ends in [`super::send_file`], so dropped, picked and demo files are handled
//! alike.

use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{spawn_local, JsFuture};
use web_sys::{
    DragEvent, File, FileSystemDirectoryEntry, FileSystemDirectoryReader, FileSystemEntry,
    FileSystemFileEntry, HtmlInputElement,
};

use std::cell::RefCell;
use std::collections::BTreeMap;

use super::{add_file_row, clear_files, fail_row, send_file, AppState, FileRow, Status};
use crate::session::link::{parse_query, Link};
use crate::session::FileId;

/// Upper bound on files taken from one dropped folder tree (protects against dropping `/`).
const MAX_FOLDER_FILES: usize = 5000;

/// Hands `file` to the worker under `name`: the handle only (the worker reads the file in
/// chunks; the page never holds its bytes).
fn ingest(state: AppState, name: String, file: File) {
    super::persist::dropped(&name, &file);
    let row = add_file_row(state, name, file.size());
    send_file(state, &row, file.into());
}

/// Files of one pick ingested per task ([`ingest_list`]): the page renders each slice's rows
/// before it takes the next, instead of 200 rows in one task (460–540 ms on the 2-core VM,
/// 2026-12-05, `benchmark_browser_scale` part `many`).
const INGEST_PER_TASK: usize = 16;

/// Ingests every file of a picker's list, named by its path inside a picked folder
/// (`webkitRelativePath`) when there is one, else by its name; [`INGEST_PER_TASK`] files per
/// task, in the list's order.
fn ingest_list(state: AppState, list: Option<web_sys::FileList>) {
    let Some(list) = list else { return };
    let files: Vec<(String, File)> = (0..list.length().min(MAX_FOLDER_FILES as u32))
        .filter_map(|i| list.get(i))
        .map(|f| {
            let rel = js_sys::Reflect::get(&f, &JsValue::from_str("webkitRelativePath"))
                .ok()
                .and_then(|v| v.as_string())
                .filter(|p| !p.is_empty());
            (rel.unwrap_or_else(|| f.name()), f)
        })
        .collect();
    ingest_in_slices(state, files);
}

/// Ingests the first [`INGEST_PER_TASK`] of `files` now and the rest from the next task on.
fn ingest_in_slices(state: AppState, mut files: Vec<(String, File)>) {
    let rest = files.split_off(files.len().min(INGEST_PER_TASK));
    for (name, f) in files {
        ingest(state, name, f);
    }
    if !rest.is_empty() {
        // `setTimeout` 0: a new task, after the page has rendered this slice's rows.
        set_timeout(
            move || ingest_in_slices(state, rest),
            std::time::Duration::ZERO,
        );
    }
}

fn js_text(v: &JsValue) -> String {
    v.as_string()
        .or_else(|| {
            js_sys::Reflect::get(v, &JsValue::from_str("message"))
                .ok()
                .and_then(|m| m.as_string())
        })
        .unwrap_or_else(|| "unknown error".into())
}

/// The entries of a directory (all batches of `readEntries`).
async fn read_dir(reader: &FileSystemDirectoryReader) -> Vec<FileSystemEntry> {
    let mut out = Vec::new();
    loop {
        let p = js_sys::Promise::new(&mut |res, rej| {
            if reader
                .read_entries_with_callback_and_callback(&res, &rej)
                .is_err()
            {
                let _ = rej.call0(&JsValue::NULL);
            }
        });
        let Ok(batch) = JsFuture::from(p).await else {
            break;
        };
        let batch: js_sys::Array = batch.unchecked_into();
        if batch.length() == 0 || out.len() > MAX_FOLDER_FILES {
            break;
        }
        out.extend(batch.iter().map(|e| e.unchecked_into::<FileSystemEntry>()));
    }
    out
}

async fn entry_file(entry: &FileSystemFileEntry) -> Option<File> {
    let p = js_sys::Promise::new(&mut |res, rej| {
        entry.file_with_callback_and_callback(&res, &rej);
    });
    JsFuture::from(p).await.ok().map(|f| f.unchecked_into())
}

/// Walks dropped entries depth-first and ingests every file (named by its path inside the
/// dropped folder, without the leading `/`), in name order per folder.
async fn walk(state: AppState, roots: Vec<FileSystemEntry>) {
    let mut stack: Vec<FileSystemEntry> = roots.into_iter().rev().collect();
    let mut taken = 0usize;
    while let Some(e) = stack.pop() {
        if taken >= MAX_FOLDER_FILES {
            break;
        }
        if e.is_directory() {
            let dir: FileSystemDirectoryEntry = e.unchecked_into();
            let mut children = read_dir(&dir.create_reader()).await;
            children.sort_by_key(|c| std::cmp::Reverse(c.name()));
            stack.extend(children);
        } else if e.is_file() {
            let name = e.full_path().trim_start_matches('/').to_string();
            let name = if name.is_empty() { e.name() } else { name };
            let fe: FileSystemFileEntry = e.unchecked_into();
            if let Some(f) = entry_file(&fe).await {
                taken += 1;
                ingest(state, name, f);
            }
        }
    }
}

fn on_drop(state: AppState, ev: DragEvent) {
    ev.prevent_default();
    let Some(dt) = ev.data_transfer() else { return };
    // Entries must be taken synchronously, while the drop event is being dispatched.
    let items = dt.items();
    let mut roots = Vec::new();
    for i in 0..items.length() {
        if let Some(item) = items.get(i) {
            if item.kind() == "file" {
                if let Ok(Some(entry)) = item.webkit_get_as_entry() {
                    roots.push(entry);
                }
            }
        }
    }
    if !roots.is_empty() {
        spawn_local(walk(state, roots));
        return;
    }
    if let Some(list) = dt.files() {
        for i in 0..list.length() {
            if let Some(f) = list.get(i) {
                ingest(state, f.name(), f);
            }
        }
    }
}

/// The page's link ([`crate::session::link`]): what `?trace=`, `?demo=`, `?input=` and
/// `?embed=` ask for.
pub fn page_link() -> Link {
    let search = web_sys::window()
        .and_then(|w| w.location().search().ok())
        .unwrap_or_default();
    parse_query(&search)
}

thread_local! {
    /// The absolute URL each file opened by link was fetched from, to name it in errors.
    static SOURCES: RefCell<BTreeMap<FileId, String>> = const { RefCell::new(BTreeMap::new()) };
}

/// The URL file `id` was fetched from, when it was opened by `?trace=`.
pub fn source_url(id: FileId) -> Option<String> {
    SOURCES.with(|s| s.borrow().get(&id).cloned())
}

/// Opens every `?trace=` of `link`, one after another (each streams into a Blob that goes to
/// the import pool like a dropped file).
pub fn load_link(state: AppState, link: &Link) {
    let traces = link.traces.clone();
    if traces.is_empty() {
        return;
    }
    let rows: Vec<_> = traces
        .iter()
        .map(|t| {
            let row = add_file_row(state, name_of_url(&t.url), 0.0);
            row.status.set(Status::Fetching(None));
            if let Some(v) = &t.variant {
                row.variant.set(v.clone());
            }
            row
        })
        .collect();
    spawn_local(async move {
        for (t, row) in traces.iter().zip(rows) {
            fetch_trace(state, &t.url, &row).await;
        }
    });
}

/// The file name a trace URL is shown under (its last path segment, decoded; the input is read
/// from it), or the URL itself when it has none.
fn name_of_url(url: &str) -> String {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    let last = path.rsplit('/').next().unwrap_or("");
    let name = crate::session::link::decode_component(&last.replace('+', "%2B"));
    if name.trim().is_empty() {
        url.to_string()
    } else {
        name
    }
}

/// Fetches `url` (resolved against the page) with its body streamed chunk by chunk (the row
/// shows the fraction when the server sends a length), then hands the Blob to the pool. Every
/// failure names the URL and the cause.
async fn fetch_trace(state: AppState, url: &str, row: &FileRow) {
    let Some(w) = web_sys::window() else { return };
    let here = w.location().href().unwrap_or_default();
    let abs = match web_sys::Url::new_with_base(url, &here) {
        Ok(u) if u.protocol() == "http:" || u.protocol() == "https:" => u,
        Ok(u) => {
            let why = format!(
                "{url}: only http: and https: links are opened, not {}",
                u.protocol()
            );
            return fail_row(state, row, why);
        }
        Err(_) => return fail_row(state, row, format!("{url}: not a valid URL")),
    };
    let href = abs.href();
    SOURCES.with(|s| s.borrow_mut().insert(row.id, href.clone()));
    let cross = abs.origin() != w.location().origin().unwrap_or_default();
    let init = web_sys::RequestInit::new();
    init.set_mode(web_sys::RequestMode::Cors);
    // No cookies or credentials go with a trace request, whatever the origin.
    init.set_credentials(web_sys::RequestCredentials::Omit);
    let resp = match JsFuture::from(w.fetch_with_str_and_init(&href, &init)).await {
        Ok(r) => r.unchecked_into::<web_sys::Response>(),
        Err(e) if cross => {
            let why = format!(
                "{href}: CORS refused — the server must send Access-Control-Allow-Origin \
                 (or it could not be reached: {})",
                js_text(&e)
            );
            return fail_row(state, row, why);
        }
        Err(e) => {
            let why = format!("{href}: the server could not be reached: {}", js_text(&e));
            return fail_row(state, row, why);
        }
    };
    if !resp.ok() {
        let text = resp.status_text();
        let why = format!("{href}: HTTP {} {text}", resp.status())
            .trim_end()
            .to_string();
        return fail_row(state, row, why);
    }
    let total = resp
        .headers()
        .get("content-length")
        .ok()
        .flatten()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|n| *n > 0.0);
    let chunks = js_sys::Array::new();
    if let Some(body) = resp.body() {
        let reader: web_sys::ReadableStreamDefaultReader = body.get_reader().unchecked_into();
        let mut got = 0.0;
        loop {
            let step = match JsFuture::from(reader.read()).await {
                Ok(s) => s,
                Err(e) => {
                    let why = format!("{href}: the download broke off: {}", js_text(&e));
                    return fail_row(state, row, why);
                }
            };
            let done = js_sys::Reflect::get(&step, &JsValue::from_str("done"))
                .ok()
                .and_then(|d| d.as_bool())
                .unwrap_or(true);
            if done {
                break;
            }
            if let Ok(v) = js_sys::Reflect::get(&step, &JsValue::from_str("value")) {
                let chunk: js_sys::Uint8Array = v.unchecked_into();
                got += f64::from(chunk.length());
                chunks.push(&chunk);
                row.status
                    .set(Status::Fetching(total.map(|t| (got / t).min(1.0))));
            }
        }
    }
    match web_sys::Blob::new_with_u8_array_sequence(&chunks) {
        Ok(blob) => send_file(state, row, blob),
        Err(e) => fail_row(state, row, format!("{href}: {}", js_text(&e))),
    }
}

async fn fetch_bytes(url: &str) -> Result<JsValue, String> {
    let w = web_sys::window().ok_or("no window")?;
    let resp = JsFuture::from(w.fetch_with_str(url))
        .await
        .map_err(|e| js_text(&e))?;
    let resp: web_sys::Response = resp.unchecked_into();
    if !resp.ok() {
        return Err(format!("HTTP {}", resp.status()));
    }
    JsFuture::from(resp.array_buffer().map_err(|e| js_text(&e))?)
        .await
        .map_err(|e| js_text(&e))
}

/// Fetches `demo/index.json` (`{"files": ["name", …]}`, names relative to `demo/`) and loads
/// every file listed through the same path as dropped files (downloaded in parallel).
pub fn load_demo(state: AppState) {
    state.demo_status.set(Some("loading the demo…".into()));
    spawn_local(async move {
        let index = match fetch_bytes("demo/index.json").await {
            Ok(b) => js_sys::Uint8Array::new(&b).to_vec(),
            Err(e) => {
                state
                    .demo_status
                    .set(Some(format!("the demo could not be loaded: {e}")));
                return;
            }
        };
        let names: Vec<String> = serde_json::from_slice::<serde_json::Value>(&index)
            .ok()
            .and_then(|v| {
                v.get("files")?.as_array().map(|a| {
                    a.iter()
                        .filter_map(|s| s.as_str())
                        .filter(|s| !s.contains("..") && !s.contains(':') && !s.starts_with('/'))
                        .map(str::to_string)
                        .collect()
                })
            })
            .unwrap_or_default();
        // A demo file already listed (imported or on its way) is not added again: the same
        // trial twice would count twice in every statistic. One that failed is tried again.
        let listed: std::collections::BTreeSet<String> = state.files.with_untracked(|f| {
            f.iter()
                .filter(|r| !r.status.with_untracked(|s| matches!(s, Status::Failed(_))))
                .map(|r| r.name.clone())
                .collect()
        });
        let total = names.len();
        let names: Vec<String> = names.into_iter().filter(|n| !listed.contains(n)).collect();
        if names.is_empty() {
            state.demo_status.set(Some(format!(
                "demo: its {total} trials are already loaded (\"Clear\" removes them)"
            )));
            return;
        }
        state.demo_status.set(Some(format!(
            "demo: {} Chromium trials of a DOM-building benchmark at 6 input sizes",
            names.len()
        )));
        // Every row first (the batch's count is right from the start), then the downloads
        // at once: each file goes to the import pool as soon as its bytes are in, so the
        // first imports overlap the other downloads.
        let rows: Vec<FileRow> = names
            .into_iter()
            .map(|name| add_file_row(state, name, 0.0))
            .collect();
        for row in rows {
            spawn_local(async move {
                let name = row.name.clone();
                match fetch_bytes(&format!("demo/{name}")).await {
                    Ok(buf) => {
                        let buf: js_sys::ArrayBuffer = buf.unchecked_into();
                        // The fetched bytes as a Blob: what the worker reads, and what is
                        // sent again to a restarted worker.
                        match web_sys::Blob::new_with_buffer_source_sequence(&js_sys::Array::of1(
                            &buf,
                        )) {
                            Ok(blob) => send_file(state, &row, blob),
                            Err(e) => fail_row(state, &row, format!("{name}: {}", js_text(&e))),
                        }
                    }
                    Err(e) => fail_row(
                        state,
                        &row,
                        format!("{name}: could not fetch the demo file: {e}"),
                    ),
                }
            });
        }
    });
}

/// The drop zone with the file picker and the demo / clear buttons.
#[component]
pub fn DropZone() -> impl IntoView {
    let state = expect_context::<AppState>();
    let hover = RwSignal::new(false);
    view! {
        <section
            id="dropzone"
            data-testid="dropzone"
            class:hover=move || hover.get()
            on:dragover=move |ev: DragEvent| {
                ev.prevent_default();
                hover.set(true);
            }
            on:dragleave=move |_| hover.set(false)
            on:drop=move |ev: DragEvent| {
                hover.set(false);
                on_drop(state, ev);
            }
        >
            <p>
                <strong>"Drop trace files or folders here"</strong>
                " (Perfetto .pftrace/.pb, Chrome JSON, gzip). One file per trial; the trial's input is read from its name."
            </p>
            <label class="picker">
                "or choose files: "
                <input
                    id="file-input"
                    data-testid="file-input"
                    type="file"
                    multiple
                    on:change=move |ev| {
                        let input: HtmlInputElement = event_target(&ev);
                        ingest_list(state, input.files());
                        input.set_value("");
                    }
                />
            </label>
            <label class="picker">
                "or a folder: "
                <input
                    id="folder-input"
                    data-testid="folder-input"
                    type="file"
                    prop:webkitdirectory=true
                    on:change=move |ev| {
                        let input: HtmlInputElement = event_target(&ev);
                        ingest_list(state, input.files());
                        input.set_value("");
                    }
                />
            </label>
            <button data-testid="load-demo" on:click=move |_| load_demo(state)>
                "Load demo"
            </button>
            <button data-testid="clear" on:click=move |_| clear_files(state)>
                "Clear"
            </button>
            <span class="demo-status" data-testid="demo-status">
                {move || state.demo_status.get()}
            </span>
        </section>
    }
}
