//! The static report: one self-contained HTML file (inline SVG plots, tables, the import
//! reports, the parameters and artifact ids; no external resource, no script needed to read
//! it) for CI artifacts and docs — `trialscope report --html` writes it. Pure text output over
//! a [`Workspace`] and the analyses' reports; every text from a trace is escaped
//! ([`svg::escape`]), never markup.

pub mod export;
pub mod files;
pub mod hotspot;
pub mod svg;
pub mod svg_compare;

use std::fmt::Write;

use crate::analysis::collective_memory as cm;
use crate::analysis::{compile_triage, scaling};
use crate::plot::{format_value, ScatterOptions};
use crate::workspace::{Content, Workspace};
use svg::escape;

/// What one report shows. Each analysis is optional (a section is left out when `None`).
pub struct HtmlReport<'a> {
    /// The page title.
    pub title: String,
    /// How the report was made (e.g. the command line), shown verbatim (escaped).
    pub command: String,
    /// The loaded files: the file table and the import reports come from here.
    pub workspace: &'a Workspace,
    pub scaling: Option<&'a scaling::Report>,
    pub triage: Option<&'a compile_triage::Report>,
    pub memory: Option<&'a cm::Report>,
    /// Hotspot rows listed (the plots: the first `plots` of them).
    pub top: usize,
    pub plots: usize,
}

const STYLE: &str = "body{font:14px/1.45 system-ui,sans-serif;max-width:1100px;margin:2em auto;\
padding:0 1em;color:#222}table{border-collapse:collapse;margin:.5em 0 1em}th,td{border-bottom:\
1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}td.num,th.num{text-align:right;white-space:nowrap;\
font-variant-numeric:tabular-nums}td.id{word-break:break-all;min-width:12em;max-width:16em}code,.id{font-family:ui-monospace,monospace;font-size:12px}\
.muted{color:#666}.warn{color:#a40}figure{display:inline-block;margin:0 1em 1em 0;max-width:100%}\
figcaption{font-size:12px;color:#555;max-width:560px}svg{max-width:100%;height:auto}";

/// Renders the report as one HTML document (UTF-8 text).
pub fn html(r: &HtmlReport<'_>) -> String {
    let mut o = String::new();
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{}</title><style>{STYLE}</style></head><body>\n<h1>{}</h1>\n\
         <p class=\"muted\">Made by trialscope {} with <code>{}</code>. Every number below was \
         computed on this machine from the files listed; nothing was uploaded.</p>\n",
        escape(&r.title),
        escape(&r.title),
        env!("CARGO_PKG_VERSION"),
        escape(&r.command)
    );
    files(&mut o, r.workspace);
    if let Some(s) = r.scaling {
        scaling_section(&mut o, s, r.top, r.plots);
    }
    if let Some(t) = r.triage {
        triage_section(&mut o, t);
    }
    if let Some(m) = r.memory {
        memory_section(&mut o, m);
    }
    o.push_str("</body></html>\n");
    o
}

fn num(o: &mut String, v: impl std::fmt::Display) {
    let _ = write!(o, "<td class=\"num\">{v}</td>");
}

fn cell(o: &mut String, v: &str) {
    let _ = write!(o, "<td>{}</td>", escape(v));
}

fn head(o: &mut String, cols: &[&str]) {
    o.push_str("<table><thead><tr>");
    for c in cols {
        let class = if c.starts_with('#') {
            " class=\"num\""
        } else {
            ""
        };
        let _ = write!(o, "<th{class}>{}</th>", escape(c.trim_start_matches('#')));
    }
    o.push_str("</tr></thead><tbody>");
}

fn files(o: &mut String, ws: &Workspace) {
    o.push_str("<h2>Files</h2>\n");
    head(
        o,
        &[
            "file",
            "kind",
            "#size",
            "#decompressed",
            "rank",
            "host",
            "diagnostics",
            "artifact id",
        ],
    );
    for e in ws.entries() {
        o.push_str("<tr>");
        cell(o, e.name());
        let kind = match &e.content {
            Content::Trace(t) => format!("trace ({})", t.format.as_str()),
            Content::Records(r) => format!("compile records ({})", r.file.records.len()),
            Content::Pins { count } => format!("pins ({count})"),
            Content::Telemetry(t) => format!("memory telemetry ({} records)", t.records),
            Content::Aggregate(a) => format!("aggregate table {}", a.piece.table),
        };
        cell(o, &kind);
        num(o, format_value(e.source.size_bytes as f64, "bytes"));
        num(o, format_value(e.source.decompressed_bytes as f64, "bytes"));
        cell(o, &e.facts.rank.map_or(String::new(), |r| r.to_string()));
        cell(o, e.facts.hostname.as_deref().unwrap_or(""));
        let diags = e.diagnostics();
        let text = if diags.is_empty() {
            "none".to_string()
        } else {
            diags
                .iter()
                .map(|d| format!("{} ×{} ({})", d.kind.as_str(), d.count, d.severity.as_str()))
                .collect::<Vec<_>>()
                .join(", ")
        };
        cell(o, &text);
        let _ = write!(
            o,
            "<td class=\"id\">{}</td></tr>",
            escape(&e.source.artifact_id)
        );
    }
    o.push_str("</tbody></table>\n");
    if !ws.failed().is_empty() {
        o.push_str("<p class=\"warn\">Files that could not be read:</p><ul>");
        for f in ws.failed() {
            let _ = write!(o, "<li>{}</li>", escape(&f.message));
        }
        o.push_str("</ul>\n");
    }
    if !ws.skipped().is_empty() {
        o.push_str("<p class=\"muted\">Skipped in the folders given (not traces, records or telemetry):</p><ul>");
        for f in ws.skipped() {
            let _ = write!(o, "<li>{}</li>", escape(&f.message));
        }
        o.push_str("</ul>\n");
    }
}

fn scaling_section(o: &mut String, s: &scaling::Report, top: usize, plots: usize) {
    let _ = write!(
        o,
        "<h2>Scaling</h2>\n<p>Metric <b>{}</b> ({}); {} trials, {} hypotheses tested, {} \
         significant (BH q &lt; 0.05). Evidence: <b>{}</b> — {}.</p>\n<p class=\"muted\">{}</p>\n",
        s.metric.as_str(),
        escape(&s.unit),
        s.trials.len(),
        s.tested_hypotheses,
        s.significant,
        s.evidence_status.as_str(),
        escape(&s.evidence_reasons.join("; ")),
        escape(&s.range_statement)
    );
    for w in &s.warnings {
        let _ = writeln!(o, "<p class=\"warn\">{}</p>", escape(w));
    }
    head(
        o,
        &[
            "trial",
            "#input",
            "variant",
            "environment",
            "status",
            "artifact id",
        ],
    );
    for t in &s.trials {
        o.push_str("<tr>");
        cell(o, &t.path);
        num(o, t.input.map_or("–".into(), |v| format_value(v, "")));
        cell(o, &t.variant);
        cell(o, &t.environment);
        let status = match (&t.exclusion_reason, t.data_loss) {
            (Some(r), _) => format!("excluded: {r}"),
            (None, true) => "used (data loss reported)".into(),
            (None, false) => "used".into(),
        };
        cell(o, &status);
        let _ = write!(o, "<td class=\"id\">{}</td></tr>", escape(&t.artifact_id));
    }
    o.push_str("</tbody></table>\n");
    head(
        o,
        &[
            "#",
            "frame",
            "category",
            "#median at the smallest → largest input",
            "#ρ",
            "#q",
            "#trials",
            "best fit",
        ],
    );
    for (i, h) in s.hotspots.iter().take(top).enumerate() {
        o.push_str("<tr>");
        num(o, i + 1);
        let _ = write!(
            o,
            "<td>{}<br><span class=\"id muted\">{}</span></td>",
            escape(&h.name),
            escape(&h.semantic_frame_id)
        );
        cell(o, &h.category);
        let span = match (h.points.first(), h.points.last()) {
            (Some(a), Some(b)) => format!(
                "{} → {}",
                format_value(a.median, &h.unit),
                format_value(b.median, &h.unit)
            ),
            _ => "–".into(),
        };
        num(o, span);
        num(o, format!("{:.3}", h.spearman_rho));
        num(o, format!("{:.2e}", h.q_value));
        num(o, h.trials);
        cell(o, h.fit.as_ref().map_or("–", |f| f.best.as_str()));
        o.push_str("</tr>");
    }
    o.push_str("</tbody></table>\n");
    if s.hotspots.len() > top {
        let _ = writeln!(
            o,
            "<p class=\"muted\">{} more tested frames not listed.</p>",
            s.hotspots.len() - top
        );
    }
    for h in s.hotspots.iter().take(plots) {
        let title = hotspot::hotspot_title(h);
        let Some(sc) = hotspot::hotspot_scatter(s, h, ScatterOptions::default()) else {
            continue;
        };
        let _ = write!(
            o,
            "<figure>{}<figcaption><b>{}</b><br>{}",
            svg::scatter(&sc, &title),
            escape(&title),
            escape(&hotspot::fit_caption(h))
        );
        if let Some(p) = hotspot::power_caption(h) {
            let _ = write!(o, "<br>{}", escape(&p));
        }
        o.push_str("</figcaption></figure>\n");
    }
}

fn triage_section(o: &mut String, t: &compile_triage::Report) {
    let _ = write!(
        o,
        "<h2>Compile triage</h2>\n<p>{} pins, {} warm rows; <b>{} actionable</b>. {}</p>\n",
        t.pins,
        t.warm_rows,
        t.actionable,
        escape(&t.next_action)
    );
    head(o, &["class", "#findings", "#unpinned keys"]);
    for (c, n) in &t.counts {
        o.push_str("<tr>");
        cell(o, c);
        num(o, n);
        num(o, t.unpinned_counts.get(c).copied().unwrap_or(0));
        o.push_str("</tr>");
    }
    o.push_str("</tbody></table>\n");
    if !t.findings.is_empty() {
        head(
            o,
            &[
                "key",
                "record",
                "#observed s",
                "#pinned s",
                "#ratio",
                "class",
                "action",
            ],
        );
        for f in &t.findings {
            o.push_str("<tr>");
            cell(o, &f.key_text);
            cell(o, &f.location.to_string());
            num(o, format!("{:.2}", f.observed_s));
            num(o, format!("{:.2}", f.pinned_s));
            num(o, format!("{:.2}×", f.ratio));
            cell(o, f.classification.as_str());
            cell(o, &f.action);
            o.push_str("</tr>");
        }
        o.push_str("</tbody></table>\n");
    }
}

/// The memory report's clock skew (`cm::Report::clock`, ns) as text: milliseconds to three
/// places (`11.723 ms`), or — when it reached the bound every front end clamps it to
/// ([`crate::workspace::JS_SAFE`] ns, about 104 days), as with files whose clocks have
/// different origins (a boot-time clock beside a Unix-epoch one) — `over 104 days (clamped)`,
/// never the clamp's own digits.
pub fn skew_text(skew_ns: i64) -> String {
    if skew_ns >= crate::workspace::JS_SAFE {
        "over 104 days (clamped)".to_string()
    } else {
        format!("{:.3} ms", skew_ns as f64 / 1e6)
    }
}

fn memory_section(o: &mut String, m: &cm::Report) {
    let _ = write!(
        o,
        "<h2>Rank memory</h2>\n<p>World size {}; ranks on {} (skew {}).</p>\n",
        m.world_size,
        if m.clock.shared_clock {
            "a shared clock"
        } else {
            "separate clocks, aligned"
        },
        if m.clock.skew_ns >= crate::workspace::JS_SAFE {
            skew_text(m.clock.skew_ns)
        } else {
            format_value(m.clock.skew_ns as f64, "ns")
        }
    );
    for w in &m.warnings {
        let _ = writeln!(o, "<p class=\"warn\">{}</p>", escape(w));
    }
    head(o, &["rank", "source", "#samples", "#markers", "series"]);
    for r in &m.ranks {
        o.push_str("<tr>");
        num(o, r.rank);
        cell(o, &r.label);
        num(o, r.samples);
        num(o, r.markers);
        cell(o, &r.series.join(", "));
        o.push_str("</tr>");
    }
    o.push_str("</tbody></table>\n");
    head(
        o,
        &[
            "rank",
            "#start (ms)",
            "#length (ms)",
            "class",
            "#confidence",
            "#peak hidden",
            "phase",
        ],
    );
    let origin = m.trace_start_ns.unwrap_or(0);
    for i in &m.intervals {
        o.push_str("<tr>");
        num(o, i.rank);
        num(o, format!("{:.3}", (i.start_ns - origin) as f64 / 1e6));
        num(o, format!("{:.3}", (i.end_ns - i.start_ns) as f64 / 1e6));
        cell(o, i.classification.as_str());
        num(o, format!("{:.2}", i.confidence));
        num(o, format_value(i.evidence.peak_gap_bytes, "bytes"));
        cell(o, i.phase.as_deref().unwrap_or(""));
        o.push_str("</tr>");
    }
    o.push_str("</tbody></table>\n");
}

/// What [`workspace_html`] runs: the flags of `trialscope report` (the app passes the
/// defaults, [`ReportParams::default`]).
#[derive(Clone, Debug)]
pub struct ReportParams {
    /// Regex whose first capture group is each trial's numeric input (scaling).
    pub input_pattern: String,
    pub metric: scaling::Metric,
    /// Memory sensitivity preset (`low`, `medium`, `high`).
    pub preset: String,
    /// Hotspot rows listed and scatter plots drawn.
    pub top: usize,
    pub plots: usize,
    /// How the report was made, shown verbatim (escaped).
    pub command: String,
}

impl Default for ReportParams {
    /// The defaults of `trialscope report`: the default input pattern, inclusive time,
    /// preset `medium`, 50 rows, 6 plots.
    fn default() -> Self {
        ReportParams {
            input_pattern: scaling::DEFAULT_INPUT_PATTERN.to_string(),
            metric: scaling::Metric::default(),
            preset: "medium".into(),
            top: 50,
            plots: 6,
            command: "trialscope report".into(),
        }
    }
}

/// The invalid parameter of a [`workspace_html`] call.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReportError {
    /// `--input-regex` does not compile or has no capture group.
    #[error("--input-regex: {0}")]
    InputPattern(String),
    /// `--preset` is not a known preset.
    #[error("--preset: {0}")]
    Preset(String),
}

/// The one self-contained HTML report ([`html`]) of everything `ws` supports, as
/// `trialscope report --html` writes it and the app's "Download report" saves it: scaling
/// when there are traces, compile triage when there are compile records (default
/// parameters, the workspace's pins), rank memory when some file has memory series.
pub fn workspace_html(ws: &Workspace, p: &ReportParams) -> Result<String, ReportError> {
    use crate::workspace::{MemoryRequest, ScalingRequest};
    scaling::compile_input_regex(&p.input_pattern).map_err(ReportError::InputPattern)?;
    let traces = ws.entries().iter().filter(|e| e.trace().is_some()).count();
    let scaling = if traces > 0 {
        let req = ScalingRequest {
            settings: Vec::new(),
            metric: p.metric,
            pattern: p.input_pattern.clone(),
        };
        Some(ws.scaling(&req).map_err(ReportError::InputPattern)?.report)
    } else {
        None
    };
    let triage = (!ws.compile_records(&[]).is_empty())
        .then(|| ws.triage(&compile_triage::Params::default(), &[]));
    let memory = ws
        .memory(&MemoryRequest {
            preset: p.preset.clone(),
            overrides: Vec::new(),
            mapping: None,
            rank_overrides: Vec::new(),
        })
        .map_err(ReportError::Preset)?;
    let memory = (!memory.report.ranks.is_empty()).then_some(memory.report);
    Ok(html(&HtmlReport {
        title: "trialscope report".into(),
        command: p.command.clone(),
        workspace: ws,
        scaling: scaling.as_ref(),
        triage: triage.as_ref(),
        memory: memory.as_ref(),
        top: p.top,
        plots: p.plots,
    }))
}
