//! Download buttons (README "Exports"): the hotspot table, the triage findings and the memory
//! intervals as CSV ([`crate::report::export`], as the CLI's `--csv`) and JSON (the report's
//! serde form, as the CLI's `--json` prints it), and the scatter plot as SVG
//! ([`crate::report::svg::scatter`]) and PNG (that SVG drawn into a canvas). Each click builds
//! the file from the report the page holds and saves it through an `<a download>` of a Blob
//! URL; nothing leaves the browser.

use leptos::prelude::*;
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::{AppState, Status};
use crate::analysis::scaling::Report;
use crate::session::{ExportKind, MemoryView, ToWorker};

/// Saves `blob` as `file_name` (a temporary `<a download>` of its object URL).
fn save_blob(blob: &web_sys::Blob, file_name: &str) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(blob) else {
        return;
    };
    if let Ok(a) = doc.create_element("a") {
        let a: web_sys::HtmlAnchorElement = a.unchecked_into();
        a.set_href(&url);
        a.set_download(file_name);
        a.click();
    }
    // Released once the browser has started the download.
    let release = Closure::once_into_js(move || {
        let _ = web_sys::Url::revoke_object_url(&url);
    });
    if let Some(w) = web_sys::window() {
        let _ = w
            .set_timeout_with_callback_and_timeout_and_arguments_0(release.unchecked_ref(), 60_000);
    }
}

/// Saves `text` as `file_name` with MIME type `mime`.
pub fn save_text(text: &str, file_name: &str, mime: &str) {
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    if let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts) {
        save_blob(&blob, file_name);
    }
}

/// A download button: `make` gives the file's text when there is something to save.
pub fn button(
    testid: &'static str,
    label: &'static str,
    file_name: &'static str,
    mime: &'static str,
    make: impl Fn() -> Option<String> + 'static,
) -> impl IntoView {
    view! {
        <button
            class="small"
            data-testid=testid
            on:click=move |_| {
                if let Some(text) = make() {
                    save_text(&text, file_name, mime);
                }
            }
        >
            {label}
        </button>
    }
}

/// The scaling report as `trialscope scaling --json` prints it: its serde form, each trial
/// with its file's `format` and `diagnostics`.
pub fn scaling_json(state: AppState, report: &Report) -> String {
    let mut value = serde_json::to_value(report).unwrap_or(Value::Null);
    let files = state.files.get_untracked();
    if let Some(trials) = value.get_mut("trials").and_then(Value::as_array_mut) {
        for t in trials {
            let path = t
                .get("path")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            let summary = files.iter().find_map(|r| match r.status.get_untracked() {
                Status::Imported(s) if r.name == path => Some(s),
                _ => None,
            });
            if let (Some(obj), Some(s)) = (t.as_object_mut(), summary) {
                obj.insert("format".into(), s.format.clone().into());
                obj.insert(
                    "diagnostics".into(),
                    serde_json::to_value(&s.diagnostics).unwrap_or(Value::Null),
                );
            }
        }
    }
    format!("{value}\n")
}

/// The memory report as `trialscope memory --json` prints it: the preset, the timeline's
/// origin and the report's fields.
pub fn memory_json(preset: &str, v: &MemoryView) -> String {
    let mut value = serde_json::to_value(&v.report).unwrap_or(Value::Null);
    if let Some(obj) = value.as_object_mut() {
        obj.insert("preset".into(), preset.into());
        obj.insert("origin_ns".into(), v.origin_ns.clone().into());
    }
    serde_json::to_string_pretty(&value).unwrap_or_default() + "\n"
}

/// Draws `svg` (with its `width`/`height`) into a canvas and saves it as a PNG. The SVG goes
/// in as a `data:` URL (the page's `img-src` allows `data:`), so the canvas stays untainted.
pub fn save_png(svg: String, width: u32, height: u32, file_name: &'static str) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Ok(img) = web_sys::HtmlImageElement::new() else {
        return;
    };
    let src = format!(
        "data:image/svg+xml;charset=utf-8,{}",
        String::from(js_sys::encode_uri_component(&svg))
    );
    let img2 = img.clone();
    let onload = Closure::once_into_js(move || {
        let Ok(canvas) = doc.create_element("canvas") else {
            return;
        };
        let canvas: web_sys::HtmlCanvasElement = canvas.unchecked_into();
        canvas.set_width(width.max(1));
        canvas.set_height(height.max(1));
        let Some(ctx) = canvas
            .get_context("2d")
            .ok()
            .flatten()
            .map(|c| c.unchecked_into::<web_sys::CanvasRenderingContext2d>())
        else {
            return;
        };
        // A white ground: the SVG's own background may be transparent.
        ctx.set_fill_style_str("#ffffff");
        ctx.fill_rect(0.0, 0.0, f64::from(width), f64::from(height));
        let _ = ctx.draw_image_with_html_image_element(&img2, 0.0, 0.0);
        let done = Closure::once_into_js(move |blob: Option<web_sys::Blob>| {
            if let Some(b) = blob {
                save_blob(&b, file_name);
            }
        });
        let _ = canvas.to_blob_with_type(done.unchecked_ref(), "image/png");
    });
    img.set_onload(Some(onload.unchecked_ref()));
    img.set_src(&src);
}

/// `width` and `height` of an SVG document's root element (defaults when absent).
pub fn svg_size(svg: &str) -> (u32, u32) {
    let head = &svg[..svg.find('>').unwrap_or(svg.len())];
    let attr = |name: &str| -> Option<u32> {
        let at = head.find(&format!(" {name}=\""))? + name.len() + 3;
        let rest = &head[at..];
        let v = &rest[..rest.find('"')?];
        v.trim_end_matches("px")
            .parse::<f64>()
            .ok()
            .map(|f| f.ceil() as u32)
    };
    (attr("width").unwrap_or(640), attr("height").unwrap_or(400))
}

/// An "SVG" and a "PNG" download button for a plot: `make` gives the plot as a standalone SVG
/// document (built when clicked, from what the page shows then); the PNG is that SVG drawn
/// into a canvas ([`save_png`]).
pub fn plot_buttons(
    testids: [&'static str; 2],
    file_names: [&'static str; 2],
    make: impl Fn() -> Option<String> + Clone + 'static,
) -> impl IntoView {
    let for_png = make.clone();
    view! {
        {button(testids[0], "SVG", file_names[0], "image/svg+xml", make)}
        " "
        <button
            class="small"
            data-testid=testids[1]
            on:click=move |_| {
                if let Some(svg) = for_png() {
                    let (w, h) = svg_size(&svg);
                    save_png(svg, w, h, file_names[1]);
                }
            }
        >
            "PNG"
        </button>
    }
}

thread_local! {
    /// Why the last workspace download could not be made (shown by [`WorkspaceDownloads`]).
    static EXPORT_ERROR: RwSignal<Option<String>> = RwSignal::new(None);
}

/// The worker's answer to a [`ToWorker::Export`]: saves the file, or shows why it could not
/// be made.
pub fn exported(_state: AppState, what: ExportKind, text: Result<String, String>) {
    let error = EXPORT_ERROR.with(|e| *e);
    match text {
        Ok(text) => {
            error.set(None);
            match what {
                ExportKind::Report => save_text(&text, "trialscope-report.html", "text/html"),
                ExportKind::FileReports => {
                    save_text(&text, "file-reports.json", "application/json")
                }
            }
        }
        Err(e) => error.set(Some(e)),
    }
}

/// "Download report" (the HTML file of `trialscope report --html` for the loaded files) and
/// "file reports (JSON)" (what `trialscope inspect --json` prints for them): both built by the
/// worker from its workspace with the CLI's own functions.
#[component]
pub fn WorkspaceDownloads() -> impl IntoView {
    let state = expect_context::<AppState>();
    let error = EXPORT_ERROR.with(|e| *e);
    // A memo: the buttons change only when the first file arrives or the last one leaves,
    // not on every progress message.
    let none = Memo::new(move |_| {
        !state.files.with(|f| {
            f.iter()
                .any(|r| matches!(r.status.get(), Status::Imported(_)))
        })
    });
    let ask = move |what: ExportKind| {
        let settings = crate::session::ExportSettings {
            input_pattern: state.pattern.get_untracked(),
            metric: state.metric.get_untracked(),
            preset: state.memory_preset.get_untracked(),
        };
        super::post_to_worker(&ToWorker::Export {
            what,
            settings: Some(settings),
        })
    };
    view! {
        <p class="exports workspace-downloads">
            <button
                class="small"
                data-testid="download-report"
                title="one self-contained HTML file, as trialscope report --html writes it"
                disabled=move || none.get()
                on:click=move |_| ask(ExportKind::Report)
            >
                "Download report"
            </button>
            " "
            <button
                class="small"
                data-testid="export-file-reports-json"
                title="the per-file import reports, as trialscope inspect --json prints them"
                disabled=move || none.get()
                on:click=move |_| ask(ExportKind::FileReports)
            >
                "file reports (JSON)"
            </button>
            {move || error.get().map(|e| view! { <span class="error" data-testid="export-error">{e}</span> })}
        </p>
    }
}
