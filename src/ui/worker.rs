//! The Web Worker side: owns one [`Session`], decodes [`ToWorker`] messages (a file arrives as
//! its `File`/`Blob` handle in the message's `blob` field and is read here in 8 MiB slices, so
//! neither the page nor the worker ever holds it whole), and posts [`FromWorker`]
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
use crate::workspace::wire;

thread_local! {
    static SESSION: RefCell<Session> = RefCell::new(Session::new());
    /// The file being imported, for the panic hook.
    static IMPORTING: Cell<Option<FileId>> = const { Cell::new(None) };
    /// File names of the test hook ([`ToWorker::TestHook`]): (panic on, abort on).
    static TEST_HOOK: RefCell<(Vec<String>, Vec<String>, Vec<String>)> =
        const { RefCell::new((Vec::new(), Vec::new(), Vec::new())) };
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
            let blob = js_sys::Reflect::get(&data, &JsValue::from_str("blob"))
                .ok()
                .and_then(|b| b.dyn_into::<web_sys::Blob>().ok());
            let Some(blob) = blob else {
                post(&FromWorker::ImportFailed {
                    id,
                    message: format!("{name}: the file did not reach the worker"),
                    name,
                });
                return;
            };
            IMPORTING.with(|c| c.set(Some(id)));
            test_hook(&name);
            let started = js_sys::Date::now();
            let mut last = -1.0;
            let mut progress = |f: f64| {
                // At most ~50 progress messages per file.
                if f - last >= 0.02 || f >= 1.0 {
                    last = f;
                    post(&FromWorker::Progress { id, fraction: f });
                }
            };
            let src = BlobSource::new(blob, None);
            let mut out =
                SESSION.with(|s| s.borrow_mut().import_source(id, &name, &src, &mut progress));
            if let FromWorker::Imported { import_ms, .. } = &mut out {
                *import_ms = js_sys::Date::now() - started;
            }
            IMPORTING.with(|c| c.set(None));
            post(&out);
            post_updates();
        }
        ToWorker::Prepare { id, name } => {
            let blob = js_sys::Reflect::get(&data, &JsValue::from_str("blob"))
                .ok()
                .and_then(|b| b.dyn_into::<web_sys::Blob>().ok());
            let Some(blob) = blob else {
                let e = format!("{name}: the file did not reach the worker");
                return post_prepared(id, name, Err(e));
            };
            IMPORTING.with(|c| c.set(Some(id)));
            test_hook(&name);
            let mut last = -1.0;
            // A file under `PROGRESS_MIN_BYTES` is done before a bar would show it moving.
            let tracked = blob.size() >= PROGRESS_MIN_BYTES;
            let mut progress = |f: f64| {
                if tracked && (f - last >= 0.02 || f >= 1.0) {
                    last = f;
                    post(&FromWorker::Progress { id, fraction: f });
                }
            };
            // Web Crypto hashes the file on the browser's own thread while the import runs;
            // the import reads the bytes read for it instead of the `Blob` again.
            let (digest, whole) = web_crypto_digest(&blob).unzip();
            let src = BlobSource::new(blob, whole);
            let opts = crate::formats::LoadOptions {
                hash: digest.is_none(),
                ..Default::default()
            };
            let loaded = crate::formats::load_from(&name, &src, &opts, &mut progress);
            IMPORTING.with(|c| c.set(None));
            let Some(digest) = digest else {
                let prepared = loaded.map(crate::workspace::keep);
                return post_prepared(id, name, prepared.map_err(|e| e.to_string()));
            };
            wasm_bindgen_futures::spawn_local(async move {
                let artifact_id = match wasm_bindgen_futures::JsFuture::from(digest).await {
                    Ok(d) => crate::formats::hex_id(&js_sys::Uint8Array::new(&d).to_vec()),
                    // (Not expected once `digest` started; the file is hashed here then.)
                    Err(_) => crate::formats::artifact_id_of(&src),
                };
                IMPORTING.with(|c| c.set(Some(id)));
                let prepared = loaded.map(|mut l| {
                    l.set_artifact_id(artifact_id);
                    crate::workspace::keep(l)
                });
                IMPORTING.with(|c| c.set(None));
                post_prepared(id, name, prepared.map_err(|e| e.to_string()));
            });
        }
        ToWorker::AddPrepared { id, name } => {
            IMPORTING.with(|c| c.set(Some(id)));
            if TEST_HOOK.with(|h| h.borrow().2.contains(&name)) {
                panic!("test hook: a session crash was requested for this file");
            }
            IMPORTING.with(|c| c.set(None));
            let payload = js_sys::Reflect::get(&data, &JsValue::from_str("prepared"))
                .unwrap_or(JsValue::NULL);
            let prepared = read_prepared(&name, payload);
            let out = SESSION.with(|s| s.borrow_mut().add_prepared(id, &name, prepared));
            post(&out);
            post_updates();
        }
        ToWorker::Analyse(req) => {
            let out = SESSION.with(|s| s.borrow().analyse(&req));
            // A large report goes in parts, each read by the page in a task of its own.
            for part in wire_split(out) {
                post(&part);
            }
        }
        ToWorker::Memory(req) => {
            let out = SESSION.with(|s| s.borrow().analyse_memory(&req));
            post(&out);
        }
        ToWorker::Compare(req) => post(&SESSION.with(|s| s.borrow().compare(&req))),
        ToWorker::Flame(req) => post(&SESSION.with(|s| s.borrow().flame(&req))),
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
        ToWorker::Export { what, settings } => {
            post(&SESSION.with(|s| export(s.borrow().workspace(), what, settings.as_ref())))
        }
        ToWorker::TestHook {
            panic_on,
            abort_on,
            session_panic_on,
        } => {
            TEST_HOOK.with(|h| *h.borrow_mut() = (panic_on, abort_on, session_panic_on));
        }
        ToWorker::WarmUp => {
            let started = js_sys::Date::now();
            warm_up();
            post(&FromWorker::WarmedUp {
                ms: js_sys::Date::now() - started,
            });
        }
    }
}

/// Files smaller than this (bytes as dropped) post no [`FromWorker::Progress`] while they are
/// prepared: 1 MiB. Each message is a task on the page and a row drawn again, for a file
/// that takes a few ms (200 picked trials of 3.6 KB: 1–2 messages each).
const PROGRESS_MIN_BYTES: f64 = (1u64 << 20) as f64;

/// Files up to this size as dropped are hashed with Web Crypto ([`web_crypto_digest`]):
/// 64 MiB, which takes the 59 MB Chromium trace and every demo trial, while the 1 GB traces
/// (and anything above the limit) are hashed by the `sha2` crate on the import's stream, so
/// the worker never holds a larger file whole.
const WEB_CRYPTO_MAX_BYTES: f64 = (64u64 << 20) as f64;

/// Starts the SHA-256 of `blob` with Web Crypto (`crypto.subtle.digest`), which the browser
/// computes off this thread and with the CPU's SHA instructions: in V8's wasm the `sha2`
/// crate hashes ~400 MB/s, a sixth of the import's time for an uncompressed 59 MB trace.
/// Reads the file whole (up to [`WEB_CRYPTO_MAX_BYTES`]; digest takes one buffer). `None`
/// when the file is larger or empty, or Web Crypto is missing (a page served over plain
/// HTTP from another host is no secure context) or fails to start: the import hashes then.
/// Else the digest's promise and the bytes read, for the import to read too
/// ([`BlobSource::new`]): each `FileReaderSync` read is a round trip to the browser's own
/// process (~4–8 ms each for 200 picked 3.6 KB trials on the 2-core VM, 2026-12-05).
fn web_crypto_digest(blob: &web_sys::Blob) -> Option<(js_sys::Promise, js_sys::Uint8Array)> {
    let size = blob.size();
    if size <= 0.0 || size > WEB_CRYPTO_MAX_BYTES {
        return None;
    }
    let subtle = js_sys::Reflect::get(&scope(), &JsValue::from_str("crypto"))
        .ok()
        .and_then(|c| js_sys::Reflect::get(&c, &JsValue::from_str("subtle")).ok())
        .and_then(|s| s.dyn_into::<web_sys::SubtleCrypto>().ok())?;
    let whole = web_sys::FileReaderSync::new()
        .ok()?
        .read_as_array_buffer(blob)
        .ok()?;
    let digest = subtle
        .digest_with_str_and_buffer_source("SHA-256", &whole)
        .ok()?;
    Some((digest, js_sys::Uint8Array::new(&whole)))
}

/// Posts the answer to [`ToWorker::Prepare`]: the prepared file in its compact binary form
/// (a `Uint8Array` or a `Blob`, [`prepared_payload`]) beside [`FromWorker::Prepared`].
fn post_prepared(id: FileId, name: String, prepared: Result<crate::workspace::Prepared, String>) {
    let payload = prepared_payload(&name, &prepared);
    drop(prepared);
    let done = FromWorker::Prepared {
        id,
        name,
        wasm_memory_bytes: wasm_memory_bytes(),
    };
    let Ok(msg) = serde_wasm_bindgen::to_value(&done) else {
        return;
    };
    if js_sys::Reflect::set(&msg, &JsValue::from_str("prepared"), &payload).is_ok() {
        if let Err(e) = scope().post_message(&msg) {
            web_sys::console::error_1(&e);
        }
    }
}

/// Bytes of the generated trace an import worker imports when it starts ([`warm_up`]): about
/// 20 k packets, enough for V8 to tier up the hot code.
const WARM_UP_BYTES: u64 = 1_000_000;

/// [`ToWorker::WarmUp`]: the whole path of a dropped file ([`crate::workspace::prepare`] and
/// the hand-over's encoding) over a generated Chromium-like trace of [`WARM_UP_BYTES`], its
/// result dropped; nothing is posted but the answer.
fn warm_up() {
    let mut trace = Vec::with_capacity(WARM_UP_BYTES as usize + (64 << 10));
    if crate::formats::perfetto::synthetic::write_chromium_like(&mut trace, WARM_UP_BYTES).is_err()
    {
        return;
    }
    let name = "warm-up.pftrace";
    let opts = crate::formats::LoadOptions::default();
    let prepared = crate::workspace::prepare(name, &trace.as_slice(), &opts, &mut |_| {});
    drop(trace);
    drop(prepared_payload(name, &prepared));
}

/// Results up to this size (bytes of the wire form) are handed over as a `Uint8Array`, not a
/// `Blob`: 256 KiB. A `Blob` is made, sliced and read through the browser's own process, about
/// 3–5 ms a call on the 2-core VM (200 picked trials: 3 such calls a file, 2026-12-05), while
/// a small array is copied with the message (the worker's, the page's and the session
/// worker's copies live until their collections) and held by the page's journal (the 200
/// picked 3.6 KB trials' are a few KB each). At 1 MiB the 18 demo trials' results (0.4–0.9 MB
/// each since the kept counters are packed) crossed as arrays: the tab's peak was ~45 MB
/// higher than at 256 KiB, where they cross as `Blob`s, for no faster table
/// (docs/benchmarks.md, session 35).
const SMALL_HANDOVER_BYTES: usize = 1 << 18;

/// The import worker's result in its wire form ([`crate::workspace::wire`]: postcard of
/// `Result<Prepared, String>`): a `Uint8Array` up to [`SMALL_HANDOVER_BYTES`], else a `Blob`
/// encoded in [`wire::CHUNK_BYTES`] pieces that are copied out to the `Blob`'s parts as they
/// fill, so this worker never holds the whole encoding. A `Blob` crosses `postMessage` as a
/// handle: neither the page nor the journal ([`super::bridge`]) ever holds a large result as
/// an object graph — as a structured clone, a 200 MB trace's call tree took the page's thread
/// 18 s (`tests/it/browser_scale.rs`).
///
/// Each piece becomes a `Blob` of its own straight from this worker's memory, and the result
/// is the `Blob` of those: the bytes are copied once, not first into a JavaScript
/// `Uint8Array` per piece and then all at once into the `Blob` (the 1 GB Perfetto trace's
/// 146.9 MB hand-over made the tab grow by ~170 MB before the worker was replaced).
fn prepared_payload(name: &str, prepared: &Result<crate::workspace::Prepared, String>) -> JsValue {
    let encode = |p: &Result<crate::workspace::Prepared, String>| {
        let parts = js_sys::Array::new();
        // The first piece while it may be the only one and is small. (`encode_chunks` emits
        // full `CHUNK_BYTES` pieces before the last, so a small first piece is the only one;
        // the branch below that wraps it in a `Blob` keeps the result whole regardless.)
        let mut small: Option<js_sys::Uint8Array> = None;
        let mut whole = true;
        let mut push = |bytes: &js_sys::Uint8Array| match web_sys::Blob::new_with_u8_array_sequence(
            &js_sys::Array::of1(bytes),
        ) {
            Ok(b) => {
                parts.push(&b);
            }
            Err(_) => whole = false,
        };
        wire::encode_chunks(p, wire::CHUNK_BYTES, &mut |piece| {
            if parts.length() == 0 && small.is_none() && piece.len() <= SMALL_HANDOVER_BYTES {
                small = Some(js_sys::Uint8Array::from(piece));
                return;
            }
            if let Some(first) = small.take() {
                push(&first);
            }
            // SAFETY: the view into wasm memory is read (copied) by the `Blob` constructor
            // right here; nothing between its making and that call allocates in Rust, so the
            // memory cannot grow and detach it.
            push(&unsafe { js_sys::Uint8Array::view(piece) });
        })
        .map(|_| {
            if let Some(small) = small {
                return Some(JsValue::from(small));
            }
            if !whole {
                return None;
            }
            // One piece is the `Blob` itself: no second `Blob` around it.
            if parts.length() == 1 {
                Some(parts.get(0))
            } else {
                web_sys::Blob::new_with_blob_sequence(&parts)
                    .ok()
                    .map(JsValue::from)
            }
        })
    };
    encode(prepared)
        .or_else(|e| {
            encode(&Err(format!(
                "{name}: the import could not be handed over: {e}"
            )))
        })
        .ok()
        .flatten()
        .unwrap_or(JsValue::NULL)
}

/// Reads back what [`prepared_payload`] made (in the session worker, where blocking is allowed):
/// a small result from its `Uint8Array`; the `Blob` of a larger one is read in [`BLOB_CHUNK`]
/// slices straight into one buffer of its size, so the encoding is held once, in this
/// worker's memory, while it is decoded.
fn read_prepared(name: &str, payload: JsValue) -> Result<crate::workspace::Prepared, String> {
    if let Some(small) = payload.dyn_ref::<js_sys::Uint8Array>() {
        return wire::decode(&small.to_vec()).unwrap_or_else(|e| {
            Err(format!(
                "{name}: the prepared import could not be read: {e}"
            ))
        });
    }
    let blob: web_sys::Blob = payload
        .dyn_into()
        .map_err(|_| format!("{name}: the prepared import did not arrive"))?;
    let unreadable = |e: &JsValue| {
        format!(
            "{name}: the prepared import could not be read: {}",
            js_error_text(e)
        )
    };
    let reader = web_sys::FileReaderSync::new().map_err(|e| unreadable(&e))?;
    let size = blob.size();
    let mut bytes = vec![0u8; size as usize];
    let mut pos = 0.0;
    while pos < size {
        let end = (pos + BLOB_CHUNK as f64).min(size);
        let slice = blob
            .slice_with_f64_and_f64(pos, end)
            .map_err(|e| unreadable(&e))?;
        let ab = reader
            .read_as_array_buffer(&slice)
            .map_err(|e| unreadable(&e))?;
        let arr = js_sys::Uint8Array::new(&ab);
        let (at, n) = (pos as usize, arr.length() as usize);
        if n == 0 || at + n > bytes.len() {
            return Err(format!(
                "{name}: the prepared import could not be read: it changed while read"
            ));
        }
        arr.copy_to(&mut bytes[at..at + n]);
        pos += n as f64;
    }
    wire::decode(&bytes).unwrap_or_else(|e| {
        Err(format!(
            "{name}: the prepared import could not be read: {e}"
        ))
    })
}

/// This worker's wasm memory now, bytes (`WebAssembly.Memory.buffer.byteLength`, read as a
/// number: 4 GiB does not fit the `u32` of `ArrayBuffer::byte_length`). A wasm memory never
/// shrinks, so it is also the peak so far.
fn wasm_memory_bytes() -> f64 {
    let buffer = js_sys::Reflect::get(&wasm_bindgen::memory(), &JsValue::from_str("buffer"));
    buffer
        .and_then(|b| js_sys::Reflect::get(&b, &JsValue::from_str("byteLength")))
        .ok()
        .and_then(|n| n.as_f64())
        .unwrap_or(0.0)
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

/// Bytes read from the dropped file per `FileReaderSync` call (the file is never in memory
/// whole: the importer consumes it chunk by chunk).
const BLOB_CHUNK: u64 = 8 << 20;

/// A dropped `File` (or a `Blob` of fetched bytes) as a [`trialscope::formats::ByteSource`]:
/// read in [`BLOB_CHUNK`] slices with `FileReaderSync`, which a worker may block on, or, when
/// the file was already read whole (for Web Crypto, [`web_crypto_digest`]), in slices of
/// those bytes.
struct BlobSource {
    blob: web_sys::Blob,
    /// The blob's size, bytes (read once: `Blob.size` is a call into the browser).
    size: u64,
    /// The whole file, when it was read already.
    whole: Option<js_sys::Uint8Array>,
}

impl BlobSource {
    fn new(blob: web_sys::Blob, whole: Option<js_sys::Uint8Array>) -> Self {
        let size = blob.size() as u64;
        // (A file that changed between the two reads is read from the `Blob` as before.)
        let whole = whole.filter(|w| u64::from(w.length()) == size);
        BlobSource { blob, size, whole }
    }
}

impl crate::formats::ByteSource for BlobSource {
    fn size(&self) -> u64 {
        self.size
    }
    fn open(&self) -> std::io::Result<Box<dyn std::io::Read + '_>> {
        if let Some(whole) = &self.whole {
            let fetch = move |pos: u64, len: u64, chunk: &mut Vec<u8>| -> std::io::Result<()> {
                let part = whole.subarray(pos as u32, (pos + len) as u32);
                chunk.resize(part.length() as usize, 0);
                part.copy_to(chunk);
                Ok(())
            };
            return Ok(Box::new(crate::formats::PieceReader::new(
                self.size, BLOB_CHUNK, fetch,
            )));
        }
        let reader =
            web_sys::FileReaderSync::new().map_err(|e| std::io::Error::other(js_error_text(&e)))?;
        let blob = &self.blob;
        let fetch = move |pos: u64, len: u64, chunk: &mut Vec<u8>| -> std::io::Result<()> {
            let slice = blob
                .slice_with_f64_and_f64(pos as f64, (pos + len) as f64)
                .map_err(|e| std::io::Error::other(js_error_text(&e)))?;
            let ab = reader
                .read_as_array_buffer(&slice)
                .map_err(|e| std::io::Error::other(js_error_text(&e)))?;
            let arr = js_sys::Uint8Array::new(&ab);
            chunk.resize(arr.length() as usize, 0);
            arr.copy_to(chunk);
            Ok(())
        };
        Ok(Box::new(crate::formats::PieceReader::new(
            self.size, BLOB_CHUNK, fetch,
        )))
    }
}

/// The message of a JS exception (a `DOMException`'s `message`), else its string form.
fn js_error_text(e: &JsValue) -> String {
    js_sys::Reflect::get(e, &JsValue::from_str("message"))
        .ok()
        .and_then(|m| m.as_string())
        .or_else(|| e.as_string())
        .unwrap_or_else(|| "the browser could not read the file".into())
}

/// The messages of one analysis answer ([`crate::session::wire::split_report`]).
fn wire_split(out: FromWorker) -> Vec<FromWorker> {
    crate::session::wire::split_report(out, crate::session::wire::HOTSPOTS_PER_PART)
}

/// Posts [`FromWorker::Updated`] when files of a drop changed each other's facts (a host from
/// sibling names, an assigned rank).
fn post_updates() {
    if let Some(u) = SESSION.with(|s| s.borrow_mut().take_updates()) {
        post(&u);
    }
    if let Some(a) = SESSION.with(|s| s.borrow_mut().take_aggregates()) {
        post(&a);
    }
}

/// Builds the download `what` from the session's files with the CLI's own functions
/// (`report --html` with its defaults, `inspect --json`), answered as
/// [`FromWorker::Exported`].
fn export(
    ws: &crate::workspace::Workspace,
    what: crate::session::ExportKind,
    settings: Option<&crate::session::ExportSettings>,
) -> FromWorker {
    use crate::session::ExportKind;
    let text = match what {
        ExportKind::Report => {
            let mut params = crate::report::ReportParams {
                command: "the trialscope web app (Download report)".into(),
                ..Default::default()
            };
            if let Some(s) = settings {
                params.input_pattern.clone_from(&s.input_pattern);
                params.metric = s.metric;
                params.preset.clone_from(&s.preset);
            }
            crate::report::workspace_html(ws, &params).map_err(|e| e.to_string())
        }
        ExportKind::FileReports => {
            crate::report::files::file_reports_json(ws).map_err(|e| e.to_string())
        }
    };
    FromWorker::Exported { what, text }
}
