//! The web worker's state machine, independent of the browser so it is tested natively.
//!
//! The worker holds one [`Session`]: every imported file keeps only its
//! [`TrialProfile`](crate::analysis::scaling::TrialProfile) (the [`Model`](crate::model::Model)
//! is dropped right after import to save memory) plus a summary for the trial table. The app
//! sends [`ToWorker`] messages and receives [`FromWorker`] messages; both are serde types that
//! cross the worker boundary through `serde-wasm-bindgen` (file bytes travel separately, as a
//! transferred `ArrayBuffer`).
//!
//! Protocol: the worker posts [`FromWorker::Ready`] once its handler is installed; for each
//! file the app sends an import (id, name, bytes) and gets [`FromWorker::Progress`] messages
//! followed by exactly one [`FromWorker::Imported`] or [`FromWorker::ImportFailed`]; an
//! [`AnalyseRequest`] is answered by one [`FromWorker::Analysed`] (or
//! [`FromWorker::AnalyseFailed`] for a bad input pattern). Analyses follow
//! `../shared/reference/scaling.md` through [`crate::analysis::scaling::run`].

use serde::{Deserialize, Serialize};

use crate::analysis::collective_memory::{self as cm, RankSeries};
use crate::analysis::scaling::{
    self, compile_input_regex, input_from_name, Metric, Params, Report, Trial, TrialProfile,
};
use crate::formats::{self, ImportOptions};
use crate::plot::downsample::lttb_series;

/// Identifies one dropped file for the lifetime of a session (assigned by the app).
pub type FileId = u32;

/// One import diagnostic, as shown in the per-file diagnostics panel.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DiagnosticView {
    /// Stable machine name, e.g. `end_without_begin`.
    pub kind: String,
    /// `info`, `warning`, `data_loss` or `error`.
    pub severity: String,
    pub count: u64,
    /// Byte offset in the decompressed stream of the first occurrence.
    pub first_offset: Option<u64>,
    /// Packet/event index of the first occurrence.
    pub first_index: Option<u64>,
    pub message: String,
}

/// What the trial table shows about one imported file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ImportSummary {
    pub id: FileId,
    /// File name (or relative path inside a dropped folder) as given.
    pub name: String,
    /// Size as dropped, bytes.
    pub size_bytes: u64,
    /// Size after decompression, bytes.
    pub decompressed_bytes: u64,
    /// `perfetto_proto` or `chrome_json`.
    pub format: String,
    /// `none`, `gzip` or `zlib`.
    pub compression: String,
    /// `sha256:` + 64 hex digits.
    pub artifact_id: String,
    /// The first 12 hex digits of the artifact id.
    pub artifact_id_short: String,
    /// Slices imported.
    pub slices: u64,
    /// Counter series imported.
    pub counters: u64,
    /// Semantic frames (matched) in the trial profile.
    pub frames: u64,
    pub diagnostics: Vec<DiagnosticView>,
    /// True when a diagnostic reports data loss (frames it lacks count as missing).
    pub data_loss: bool,
    /// The input parsed from the file name with [`scaling::DEFAULT_INPUT_PATTERN`].
    pub default_input: Option<f64>,
}

/// Per-trial settings edited in the trial table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrialSettings {
    pub id: FileId,
    /// The user's input value; `None` = take it from the file name with the request's pattern.
    pub input_override: Option<f64>,
    /// Variant label; empty means `default`.
    pub variant: String,
    /// Excluded whole (e.g. a warm-up trial).
    pub excluded: bool,
}

/// An analysis request: the settings of every trial to include, the metric and the input
/// pattern (a regex with one capture group, see [`scaling::compile_input_regex`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AnalyseRequest {
    /// Increasing number chosen by the app; echoed so stale answers can be ignored.
    pub seq: u64,
    pub settings: Vec<TrialSettings>,
    pub metric: Metric,
    pub pattern: String,
}

/// Messages from the app to the worker (file bytes travel beside the message, see module doc).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToWorker {
    /// Import the file whose bytes accompany this message.
    Import {
        id: FileId,
        name: String,
    },
    Analyse(AnalyseRequest),
    /// Run the rank memory analysis (collective-memory.md) over the imported files.
    Memory(MemoryRequest),
    /// Forget one file.
    Remove {
        id: FileId,
    },
    /// Forget every file.
    Clear,
}

/// Messages from the worker to the app.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FromWorker {
    /// The worker's handler is installed; work may be sent.
    Ready,
    /// Import progress of one file, fraction in [0, 1].
    Progress { id: FileId, fraction: f64 },
    /// The file imported; `import_ms` is the worker's wall time for decompress + parse +
    /// profile, in milliseconds (measured by the worker, 0 natively).
    Imported {
        summary: ImportSummary,
        import_ms: f64,
    },
    /// The file could not be read; `message` names the file and the problem.
    ImportFailed {
        id: FileId,
        name: String,
        message: String,
    },
    /// The answer to [`AnalyseRequest`] `seq`: effective input per file id, and the report.
    Analysed {
        seq: u64,
        inputs: Vec<(FileId, Option<f64>)>,
        report: Box<Report>,
    },
    /// The request could not be run (e.g. an invalid input pattern).
    AnalyseFailed { seq: u64, message: String },
    /// The answer to [`MemoryRequest`] `seq`.
    MemoryAnalysed { seq: u64, view: Box<MemoryView> },
    /// The memory request could not be run (an unknown preset or knob, an invalid value).
    MemoryFailed { seq: u64, message: String },
}

/// A rank memory analysis request: a preset (`low`, `medium`, `high`) and knob overrides
/// (`(knob, value)`, see [`cm::Params::with_override`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MemoryRequest {
    /// Increasing number chosen by the app; echoed so stale answers can be ignored.
    pub seq: u64,
    pub preset: String,
    pub overrides: Vec<(String, String)>,
}

/// Points kept per drawn memory series (largest-triangle-three-buckets; drawing only).
pub const MEMORY_DRAW_POINTS: usize = 1500;
/// Markers kept per drawn lane (the first ones in time; the rest are counted).
pub const MEMORY_DRAW_MARKERS: usize = 4000;

/// A memory series thinned for drawing: times in ns on the report's aligned timeline, bytes.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DrawSeries {
    pub ts_ns: Vec<i64>,
    pub bytes: Vec<f64>,
}

/// The hidden-memory gap band for drawing: at each kept time, allocator-reserved (`lo`) and
/// device-used (`hi`) bytes.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DrawBand {
    pub ts_ns: Vec<i64>,
    pub lo: Vec<f64>,
    pub hi: Vec<f64>,
}

/// One rank's lane of the memory view (same order as the report's `ranks`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MemoryLane {
    pub rank: u32,
    /// File name.
    pub label: String,
    pub device_used: Option<DrawSeries>,
    pub allocator_reserved: Option<DrawSeries>,
    pub allocator_allocated: Option<DrawSeries>,
    /// Present only with both device-used and allocator-reserved series.
    pub gap: Option<DrawBand>,
    /// Collective markers `[start_ns, end_ns]` on the aligned timeline.
    pub markers: Vec<(i64, i64)>,
    /// Markers not drawn (beyond [`MEMORY_DRAW_MARKERS`]).
    pub markers_hidden: usize,
}

/// What the memory view draws: one lane per rank and the attribution report.
///
/// Every time in the view (lanes, report intervals, `trace_start_ns` = 0) is relative to
/// `origin_ns`, the job's earliest record, and clamped to ±(2^53 − 1) ns: the view crosses the
/// worker boundary as JavaScript numbers, which hold integers exactly only up to 2^53
/// (epoch-based nanoseconds do not fit).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MemoryView {
    /// The job's earliest record on the aligned timeline, ns, as decimal text.
    pub origin_ns: String,
    pub lanes: Vec<MemoryLane>,
    pub report: cm::Report,
}

/// Largest integer a JavaScript number holds exactly.
const JS_SAFE: i64 = (1 << 53) - 1;

fn js_safe(v: i64) -> i64 {
    v.clamp(-JS_SAFE, JS_SAFE)
}

fn draw_series(s: &Option<cm::Series>, offset: i64) -> Option<DrawSeries> {
    let s = s.as_ref()?;
    let ts: Vec<i64> = s
        .ts_ns
        .iter()
        .map(|t| js_safe(t.saturating_add(offset)))
        .collect();
    let (ts_ns, bytes) = lttb_series(&ts, &s.value, MEMORY_DRAW_POINTS);
    Some(DrawSeries { ts_ns, bytes })
}

fn draw_lane(label: &str, rank: u32, s: &RankSeries, offset: i64) -> MemoryLane {
    let gap = match (&s.device_used, &s.allocator_reserved) {
        (Some(u), Some(r)) => {
            let ts: Vec<i64> = u
                .ts_ns
                .iter()
                .map(|t| js_safe(t.saturating_add(offset)))
                .collect();
            let lo: Vec<f64> = u
                .ts_ns
                .iter()
                .map(|&t| r.value_at(t).unwrap_or(0.0))
                .collect();
            let gap: Vec<f64> = u
                .value
                .iter()
                .zip(&lo)
                .map(|(u, r)| (u - r).max(0.0))
                .collect();
            let idx = crate::plot::downsample::lttb(
                &ts.iter().map(|&t| t as f64).collect::<Vec<_>>(),
                &gap,
                MEMORY_DRAW_POINTS,
            );
            Some(DrawBand {
                ts_ns: idx.iter().map(|&i| ts[i]).collect(),
                lo: idx.iter().map(|&i| lo[i]).collect(),
                hi: idx.iter().map(|&i| u.value[i]).collect(),
            })
        }
        _ => None,
    };
    MemoryLane {
        rank,
        label: label.to_string(),
        device_used: draw_series(&s.device_used, offset),
        allocator_reserved: draw_series(&s.allocator_reserved, offset),
        allocator_allocated: draw_series(&s.allocator_allocated, offset),
        gap,
        markers: s
            .markers
            .iter()
            .take(MEMORY_DRAW_MARKERS)
            .map(|m| {
                (
                    js_safe(m.start_ns.saturating_add(offset)),
                    js_safe(m.end_ns.saturating_add(offset)),
                )
            })
            .collect(),
        markers_hidden: s.markers.len().saturating_sub(MEMORY_DRAW_MARKERS),
    }
}

struct Entry {
    summary: ImportSummary,
    profile: TrialProfile,
    /// Memory series, markers and phases for the rank memory view.
    memory: RankSeries,
}

/// The imported trials of one browser session.
#[derive(Default)]
pub struct Session {
    entries: Vec<Entry>,
    /// Names of files that failed to import (listed in every report).
    failed: Vec<(FileId, String)>,
}

impl Session {
    /// An empty session.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of imported trials.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when no trial is imported.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Imports one file and keeps its profile. Returns [`FromWorker::Imported`] or
    /// [`FromWorker::ImportFailed`] (the message starts with the file name). `progress`
    /// receives fractions in [0, 1]. Importing an id again replaces the earlier file.
    pub fn import(
        &mut self,
        id: FileId,
        name: &str,
        bytes: &[u8],
        progress: &mut dyn FnMut(f64),
    ) -> FromWorker {
        self.remove(id);
        let artifact = match formats::import_with(name, bytes, &ImportOptions::default(), progress)
        {
            Ok(a) => a,
            Err(e) => {
                self.failed.push((id, name.to_string()));
                return FromWorker::ImportFailed {
                    id,
                    name: name.to_string(),
                    message: e.to_string(),
                };
            }
        };
        let profile = scaling::profile(&artifact.artifact_id, &artifact.model);
        let m = &artifact.model;
        let default_input = compile_input_regex(scaling::DEFAULT_INPUT_PATTERN)
            .ok()
            .and_then(|re| input_from_name(base_name(name), &re));
        let diagnostics = m
            .diagnostics
            .entries()
            .iter()
            .map(|d| DiagnosticView {
                kind: d.kind.clone(),
                severity: serde_json::to_value(d.severity)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_else(|| format!("{:?}", d.severity)),
                count: d.count,
                first_offset: d.first_offset,
                first_index: d.first_index,
                message: d.message.clone(),
            })
            .collect();
        let hex = artifact
            .artifact_id
            .strip_prefix("sha256:")
            .unwrap_or(&artifact.artifact_id);
        let summary = ImportSummary {
            id,
            name: name.to_string(),
            size_bytes: artifact.size_bytes,
            decompressed_bytes: m.stats.decompressed_bytes,
            format: artifact.format.as_str().to_string(),
            compression: format!("{:?}", artifact.compression).to_lowercase(),
            artifact_id_short: hex.chars().take(12).collect(),
            artifact_id: artifact.artifact_id.clone(),
            slices: m.slices.len() as u64,
            counters: m.counters.len() as u64,
            frames: profile.frames.len() as u64,
            diagnostics,
            data_loss: m.diagnostics.has_data_loss(),
            default_input,
        };
        let memory = cm::series_from_model(&artifact.model, &cm::Mapping::default());
        // The model is dropped here: only the profile, the memory series and the summary stay.
        drop(artifact);
        self.entries.push(Entry {
            summary: summary.clone(),
            profile,
            memory,
        });
        FromWorker::Imported {
            summary,
            import_ms: 0.0,
        }
    }

    /// Forgets file `id` (imported or failed).
    pub fn remove(&mut self, id: FileId) {
        self.entries.retain(|e| e.summary.id != id);
        self.failed.retain(|(f, _)| *f != id);
    }

    /// Forgets every file.
    pub fn clear(&mut self) {
        self.entries.clear();
        self.failed.clear();
    }

    /// Runs the scaling analysis over the imported trials (in import order). A trial without
    /// settings in `req` keeps its defaults (input from the name, variant `default`, included).
    /// Returns [`FromWorker::Analysed`], or [`FromWorker::AnalyseFailed`] when the pattern is
    /// not a regex with exactly one capture group.
    pub fn analyse(&self, req: &AnalyseRequest) -> FromWorker {
        let re = match compile_input_regex(&req.pattern) {
            Ok(re) => re,
            Err(message) => {
                return FromWorker::AnalyseFailed {
                    seq: req.seq,
                    message,
                }
            }
        };
        let mut inputs = Vec::with_capacity(self.entries.len());
        let trials: Vec<Trial> = self
            .entries
            .iter()
            .map(|e| {
                let s = req.settings.iter().find(|s| s.id == e.summary.id);
                let input = s
                    .and_then(|s| s.input_override)
                    .or_else(|| input_from_name(base_name(&e.summary.name), &re));
                inputs.push((e.summary.id, input));
                let variant = s
                    .map(|s| s.variant.trim())
                    .filter(|v| !v.is_empty())
                    .unwrap_or("default");
                Trial {
                    path: e.summary.name.clone(),
                    input,
                    variant: variant.to_string(),
                    environment: String::new(),
                    excluded: s.is_some_and(|s| s.excluded),
                    profile: e.profile.clone(),
                }
            })
            .collect();
        let params = Params {
            metric: req.metric,
            ..Params::default()
        };
        let mut report = scaling::run(&trials, &params);
        let failed: Vec<String> = self.failed.iter().map(|(_, n)| n.clone()).collect();
        report.record_failed_imports(&failed);
        FromWorker::Analysed {
            seq: req.seq,
            inputs,
            report: Box::new(report),
        }
    }
}

impl Session {
    /// Runs the rank memory analysis (`../shared/reference/collective-memory.md`) over the
    /// imported files, one rank per file (rank from the content, else the file name, else the
    /// smallest free number with a warning), and thins the series for drawing. Returns
    /// [`FromWorker::MemoryAnalysed`], or [`FromWorker::MemoryFailed`] naming a bad preset or
    /// knob.
    pub fn analyse_memory(&self, req: &MemoryRequest) -> FromWorker {
        let failed = |message: String| FromWorker::MemoryFailed {
            seq: req.seq,
            message,
        };
        let preset: cm::Preset = match req.preset.parse() {
            Ok(p) => p,
            Err(e) => return failed(e.to_string()),
        };
        let mut params = cm::Params::preset(preset);
        for (k, v) in &req.overrides {
            params = match params.with_override(k, v) {
                Ok(p) => p,
                Err(e) => return failed(e.to_string()),
            };
        }
        let items: Vec<(String, RankSeries)> = self
            .entries
            .iter()
            .map(|e| (base_name(&e.summary.name).to_string(), e.memory.clone()))
            .collect();
        let (inputs, mut warnings) = cm::resolve_ranks(items);
        let mut report = cm::run(&inputs, &params);
        warnings.append(&mut report.warnings);
        report.warnings = warnings;
        for (_, name) in &self.failed {
            report.warnings.push(format!(
                "{name}: could not be imported; not in the memory view"
            ));
        }
        // Lanes in the report's rank order: (rank, input index), as `cm::run` sorts.
        let mut order: Vec<usize> = (0..inputs.len()).collect();
        order.sort_by_key(|&i| (inputs[i].rank, i));
        let origin = report.trace_start_ns.unwrap_or(0);
        let lanes = order
            .iter()
            .zip(&report.ranks)
            .map(|(&i, r)| {
                draw_lane(
                    &inputs[i].label,
                    inputs[i].rank,
                    &inputs[i].series,
                    r.offset_ns.saturating_sub(origin),
                )
            })
            .collect();
        for iv in &mut report.intervals {
            iv.start_ns = js_safe(iv.start_ns.saturating_sub(origin));
            iv.end_ns = js_safe(iv.end_ns.saturating_sub(origin));
        }
        for r in &mut report.ranks {
            r.offset_ns = js_safe(r.offset_ns);
        }
        let p = &mut report.params;
        p.min_gap_bytes = p.min_gap_bytes.min(JS_SAFE as u64);
        p.marker_window_ns = js_safe(p.marker_window_ns);
        p.interval_padding_ns = js_safe(p.interval_padding_ns);
        p.synchrony_window_ns = js_safe(p.synchrony_window_ns);
        report.clock.skew_ns = js_safe(report.clock.skew_ns);
        report.trace_start_ns = report.trace_start_ns.map(|_| 0);
        FromWorker::MemoryAnalysed {
            seq: req.seq,
            view: Box::new(MemoryView {
                origin_ns: origin.to_string(),
                lanes,
                report,
            }),
        }
    }
}

/// The last path component of `name` (files dropped inside folders carry `dir/…/file`).
pub fn base_name(name: &str) -> &str {
    name.rsplit(['/', '\\']).next().unwrap_or(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CORPUS: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/corpus/chromium_scaling"
    );

    fn read(name: &str) -> Vec<u8> {
        std::fs::read(format!("{CORPUS}/{name}"))
            .expect("corpus file (../shared beside the checkout)")
    }

    #[test]
    fn imports_real_trials_and_a_corrupt_file_then_finds_the_scaling_frame() {
        let mut s = Session::new();
        let mut id = 0;
        let mut progress_seen = 0;
        for n in [1000, 4000, 16000] {
            for r in 0..2 {
                let name = format!("scaling_n{n}_r{r}.pb.gz");
                let msg = s.import(id, &format!("exp/{name}"), &read(&name), &mut |f| {
                    assert!((0.0..=1.0).contains(&f));
                    progress_seen += 1;
                });
                match msg {
                    FromWorker::Imported { summary, .. } => {
                        assert_eq!(summary.format, "perfetto_proto");
                        assert_eq!(summary.compression, "gzip");
                        assert_eq!(summary.default_input, Some(n as f64));
                        assert_eq!(summary.artifact_id_short.len(), 12);
                        assert!(summary.artifact_id.starts_with("sha256:"));
                        assert!(summary.slices > 100, "{}", summary.slices);
                        assert!(summary.decompressed_bytes > summary.size_bytes);
                    }
                    other => panic!("{other:?}"),
                }
                id += 1;
            }
        }
        assert!(progress_seen >= 6 * 2);
        let bad = s.import(
            99,
            "corrupt.pftrace",
            &[0x13, 0x37, 0x00, 0xff, 0x42],
            &mut |_| {},
        );
        match bad {
            FromWorker::ImportFailed { id, name, message } => {
                assert_eq!((id, name.as_str()), (99, "corrupt.pftrace"));
                assert!(message.starts_with("corrupt.pftrace: "), "{message}");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(s.len(), 6);

        let req = AnalyseRequest {
            seq: 7,
            settings: vec![],
            metric: Metric::Inclusive,
            pattern: scaling::DEFAULT_INPUT_PATTERN.to_string(),
        };
        let FromWorker::Analysed {
            seq,
            inputs,
            report,
        } = s.analyse(&req)
        else {
            panic!("analysis failed")
        };
        assert_eq!(seq, 7);
        assert_eq!(inputs.len(), 6);
        assert_eq!(inputs[2], (2, Some(4000.0)));
        assert_eq!(report.failed_imports, vec!["corrupt.pftrace".to_string()]);
        let h = report
            .hotspots
            .iter()
            .find(|h| h.name == "scalingBuildDom")
            .expect("scalingBuildDom is tested");
        assert!(h.spearman_rho >= 0.8, "{}", h.spearman_rho);
        assert_eq!(h.trials, 6);
        assert_eq!((h.supported_min, h.supported_max), (1000.0, 16000.0));
    }

    #[test]
    fn settings_override_inputs_exclude_trials_and_bad_patterns_fail_cleanly() {
        let mut s = Session::new();
        for (id, n) in [(1, 1000), (2, 2000), (3, 4000), (4, 8000)] {
            let name = format!("scaling_n{n}_r0.pb.gz");
            assert!(matches!(
                s.import(id, &name, &read(&name), &mut |_| {}),
                FromWorker::Imported { .. }
            ));
        }
        let req = AnalyseRequest {
            seq: 1,
            settings: vec![
                TrialSettings {
                    id: 1,
                    input_override: Some(5.0),
                    variant: String::new(),
                    excluded: false,
                },
                TrialSettings {
                    id: 4,
                    input_override: None,
                    variant: "b".into(),
                    excluded: true,
                },
            ],
            metric: Metric::Count,
            pattern: r"_n(\d+)_".into(),
        };
        let FromWorker::Analysed { inputs, report, .. } = s.analyse(&req) else {
            panic!()
        };
        assert_eq!(
            inputs,
            vec![
                (1, Some(5.0)),
                (2, Some(2000.0)),
                (3, Some(4000.0)),
                (4, Some(8000.0))
            ]
        );
        assert_eq!(report.metric, Metric::Count);
        assert!(report.trials[3].excluded);
        assert_eq!(report.trials[3].variant, "b");
        assert_eq!(report.trials[0].input, Some(5.0));
        let bad = s.analyse(&AnalyseRequest {
            pattern: "n(".into(),
            ..req.clone()
        });
        assert!(
            matches!(bad, FromWorker::AnalyseFailed { seq: 1, .. }),
            "{bad:?}"
        );
        s.remove(2);
        assert_eq!(s.len(), 3);
        s.clear();
        assert!(s.is_empty());
    }

    #[test]
    fn messages_round_trip_through_serde() {
        let m = ToWorker::Analyse(AnalyseRequest {
            seq: 3,
            settings: vec![TrialSettings {
                id: 2,
                input_override: Some(1.5),
                variant: "v".into(),
                excluded: false,
            }],
            metric: Metric::SelfTime,
            pattern: "x(\\d+)".into(),
        });
        let j = serde_json::to_string(&m).unwrap();
        assert!(j.contains("\"type\":\"analyse\""), "{j}");
        assert_eq!(serde_json::from_str::<ToWorker>(&j).unwrap(), m);
        let p = FromWorker::Progress {
            id: 1,
            fraction: 0.5,
        };
        let j = serde_json::to_string(&p).unwrap();
        assert_eq!(serde_json::from_str::<FromWorker>(&j).unwrap(), p);
        assert_eq!(base_name("a/b\\c.pb"), "c.pb");
    }
}
