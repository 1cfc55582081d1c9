//! Getting files into the app: the drop zone (files and whole folders, traversed with
//! `webkitGetAsEntry`), the `multiple` file picker, a folder picker (`webkitdirectory`), and
//! the demo (the site's own `demo/index.json` and the traces it lists, fetched by relative
//! URL). Every path ends in [`super::send_file`], so dropped, picked and demo files are handled
//! alike.

use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{spawn_local, JsFuture};
use web_sys::{
    DragEvent, File, FileSystemDirectoryEntry, FileSystemDirectoryReader, FileSystemEntry,
    FileSystemFileEntry, HtmlInputElement,
};

use super::{add_file_row, clear_files, fail_row, send_file, AppState};

/// Upper bound on files taken from one dropped folder tree (protects against dropping `/`).
const MAX_FOLDER_FILES: usize = 5000;

/// Hands `file` to the worker under `name`: the handle only (the worker reads the file in
/// chunks; the page never holds its bytes).
fn ingest(state: AppState, name: String, file: File) {
    let row = add_file_row(state, name, file.size());
    send_file(&row, file.into());
}

/// Ingests every file of a picker's list, named by its path inside a picked folder
/// (`webkitRelativePath`) when there is one, else by its name.
fn ingest_list(state: AppState, list: Option<web_sys::FileList>) {
    let Some(list) = list else { return };
    for i in 0..list.length().min(MAX_FOLDER_FILES as u32) {
        if let Some(f) = list.get(i) {
            let rel = js_sys::Reflect::get(&f, &JsValue::from_str("webkitRelativePath"))
                .ok()
                .and_then(|v| v.as_string())
                .filter(|p| !p.is_empty());
            let name = rel.unwrap_or_else(|| f.name());
            ingest(state, name, f);
        }
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

/// True unless the page URL says `demo=0` (the demo loads on first visit).
pub fn demo_wanted() -> bool {
    let search = web_sys::window()
        .and_then(|w| w.location().search().ok())
        .unwrap_or_default();
    !search
        .trim_start_matches('?')
        .split('&')
        .any(|kv| kv == "demo=0" || kv == "demo=false")
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
/// every file listed through the same path as dropped files.
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
        state.demo_status.set(Some(format!(
            "demo: {} Chromium trials of a DOM-building benchmark at 6 input sizes",
            names.len()
        )));
        for name in names {
            let row = add_file_row(state, name.clone(), 0.0);
            match fetch_bytes(&format!("demo/{name}")).await {
                Ok(buf) => {
                    let buf: js_sys::ArrayBuffer = buf.unchecked_into();
                    // The fetched bytes as a Blob: what the worker reads, and what is sent
                    // again to a restarted worker.
                    match web_sys::Blob::new_with_buffer_source_sequence(&js_sys::Array::of1(&buf))
                    {
                        Ok(blob) => send_file(&row, blob),
                        Err(e) => fail_row(state, &row, format!("{name}: {}", js_text(&e))),
                    }
                }
                Err(e) => fail_row(
                    state,
                    &row,
                    format!("{name}: could not fetch the demo file: {e}"),
                ),
            }
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
