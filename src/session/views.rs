//! Workspace state → the JS-safe views the app shows: trial-table summaries, record-file and
//! telemetry summaries, the triage view, the memory view (series thinned for drawing).

use std::collections::BTreeSet;

use super::protocol::*;
use crate::analysis::collective_memory::{self as cm, RankSeries};
use crate::analysis::compile_triage;
use crate::analysis::scaling::{self, compile_input_regex, input_from_name};
use crate::formats::records::{self, ExcludedRecord};
use crate::model::compile_record::{CacheState, CompileRecord};
use crate::model::facts::{base_name, RankSource};
use crate::model::Diagnostic;
use crate::plot::downsample::lttb_series;
use crate::workspace::{js_safe, Content, Entry, MemoryOutcome, Workspace};

/// The answer to an import: what the file was.
pub(super) fn answer(e: &Entry) -> FromWorker {
    match &e.content {
        Content::Trace(_) => match import_summary(e) {
            Some(summary) => FromWorker::Imported {
                summary: Box::new(summary),
                import_ms: 0.0,
            },
            None => FromWorker::ImportFailed {
                id: e.id,
                name: e.name().to_string(),
                message: format!("{}: the workspace lost the imported file", e.name()),
            },
        },
        Content::Records(r) => FromWorker::RecordsImported {
            summary: RecordFileSummary {
                id: e.id,
                name: e.name().to_string(),
                records: r.file.records.len() as u64,
                other_kind: r.file.other_kind_count(),
                malformed: r.file.malformed_count(),
            },
        },
        Content::Pins { count } => FromWorker::PinsLoaded {
            id: e.id,
            name: e.name().to_string(),
            pins: *count,
        },
        Content::Aggregate(_) => match piece_summary(e) {
            Some(summary) => FromWorker::AggregateImported { summary },
            None => FromWorker::ImportFailed {
                id: e.id,
                name: e.name().to_string(),
                message: format!("{}: the workspace lost the aggregate file", e.name()),
            },
        },
        Content::Telemetry(t) => FromWorker::TelemetryImported {
            summary: TelemetrySummary {
                id: e.id,
                name: e.name().to_string(),
                size_bytes: e.source.size_bytes,
                records: t.records,
                ranks: t.parts.iter().map(|p| p.memory.rank).collect(),
                bad_lines: t.bad_lines.clone(),
                diagnostics: t
                    .diagnostics
                    .entries()
                    .iter()
                    .map(diagnostic_view)
                    .collect(),
            },
        },
    }
}

/// The summary of an aggregate piece entry (`None` for other kinds).
pub(super) fn piece_summary(e: &Entry) -> Option<PieceSummary> {
    let Content::Aggregate(a) = &e.content else {
        return None;
    };
    Some(PieceSummary {
        id: e.id,
        name: e.name().to_string(),
        table: a.piece.table.clone(),
        key: a.piece.key.clone(),
        rows: a.piece.row_count,
        note: a.note.clone().unwrap_or_default(),
    })
}

/// What every aggregate file of `ws` is now ([`FromWorker::Aggregates`]).
pub(super) fn aggregate_states(ws: &Workspace) -> Vec<AggregateState> {
    ws.aggregate_ids()
        .iter()
        .filter_map(|&id| {
            if let Some(e) = ws.entry(id) {
                return match &e.content {
                    Content::Trace(_) => {
                        import_summary(e).map(|s| AggregateState::Trial(Box::new(s)))
                    }
                    _ => piece_summary(e).map(AggregateState::Piece),
                };
            }
            ws.failed()
                .iter()
                .find(|f| f.id == id)
                .map(|f| AggregateState::Failed {
                    id,
                    name: f.name.clone(),
                    message: f.message.clone(),
                })
        })
        .collect()
}

/// The trial-table summary of a trace entry (`None` for other kinds).
pub(super) fn import_summary(e: &Entry) -> Option<ImportSummary> {
    let t = e.trace()?;
    let hex = e
        .source
        .artifact_id
        .strip_prefix("sha256:")
        .unwrap_or(&e.source.artifact_id);
    let default_input = compile_input_regex(scaling::DEFAULT_INPUT_PATTERN)
        .ok()
        .and_then(|re| input_from_name(base_name(e.name()), &re));
    let diagnostics: Vec<DiagnosticView> = e.diagnostics().iter().map(diagnostic_view).collect();
    Some(ImportSummary {
        id: e.id,
        name: e.name().to_string(),
        size_bytes: e.source.size_bytes,
        decompressed_bytes: e.source.decompressed_bytes,
        format: t.format.as_str().to_string(),
        compression: e.source.compression.as_str().to_string(),
        artifact_id_short: hex.chars().take(12).collect(),
        artifact_id: e.source.artifact_id.clone(),
        slices: t.counts.slices,
        counters: t.counts.counters,
        frames: t.counts.frames,
        data_loss: diagnostics
            .iter()
            .any(|d| d.severity >= crate::model::Severity::DataLoss),
        diagnostics,
        default_input,
        events: t.counts.events,
        tracks: t.counts.tracks,
        rank: e.facts.rank,
        rank_assigned: e.facts.rank_source == Some(RankSource::Assigned),
        world_size: t.info.world_size,
        backend: t.info.backend.clone(),
        hostname: e.facts.hostname.clone(),
        hostname_from_siblings: e.facts.hostname_from_siblings,
    })
}

/// One diagnostic as the panels show it.
pub(super) fn diagnostic_view(d: &Diagnostic) -> DiagnosticView {
    d.clone()
}

/// The triage view: the report with the pins in force, coverage, excluded rows, chart points.
pub(super) fn triage_view(ws: &Workspace, req: &TriageRequest) -> TriageView {
    let recs = ws.compile_records(&req.fills);
    let pins = ws.pins();
    let report = compile_triage::run(&recs, pins, &req.params);
    let drift: BTreeSet<String> = report
        .findings
        .iter()
        .map(|f| f.location.to_string())
        .collect();
    let mut warm_keys = BTreeSet::new();
    let mut points = Vec::new();
    for r in &recs {
        let (Some(k), Some(s)) = (r.full_key(), r.compile_s) else {
            continue;
        };
        if !s.is_finite() {
            continue;
        }
        let loc = r.location.to_string();
        if k.cache_state == CacheState::Warm {
            warm_keys.insert(k.clone());
        }
        points.push(ChartPoint {
            series: series_of(&k),
            cold: k.cache_state == CacheState::Cold,
            unix_s: r.timestamp.as_ref().map(|t| t.unix_ns as f64 / 1e9),
            compile_s: s,
            drift: drift.contains(&loc),
            location: loc,
        });
    }
    let keys_pinned = warm_keys
        .iter()
        .filter(|k| pins.iter().any(|p| &p.key == *k))
        .count() as u64;
    let excluded = |v: &[ExcludedRecord]| -> Vec<ExcludedView> {
        v.iter()
            .map(|e| ExcludedView {
                location: e.location.to_string(),
                reason: e.reason.clone(),
            })
            .collect()
    };
    let mut other_kind = Vec::new();
    let mut malformed = Vec::new();
    let mut sources = Vec::new();
    let mut needs_fill = false;
    for e in ws.entries() {
        let (trace, n) = match &e.content {
            Content::Trace(t) if !t.compile_records.is_empty() => (true, t.compile_records.len()),
            Content::Records(f) => {
                other_kind.extend(excluded(&f.file.other_kind));
                malformed.extend(excluded(&f.file.malformed));
                (false, f.file.records.len())
            }
            _ => continue,
        };
        let mine: Vec<CompileRecord> = recs
            .iter()
            .filter(|r| r.location.file == e.name())
            .cloned()
            .collect();
        let unknown: Vec<String> = compile_triage::unknown_fields(&mine)
            .into_iter()
            .map(str::to_string)
            .collect();
        needs_fill |= trace && !unknown.is_empty();
        sources.push(TriageSource {
            id: e.id,
            name: e.name().to_string(),
            trace,
            records: n as u64,
            unknown_fields: unknown,
        });
    }
    let series_pins = pins
        .iter()
        .filter(|p| p.key.cache_state == CacheState::Warm)
        .map(|p| (series_of(&p.key), p.compile_s))
        .collect();
    // The document `trialscope triage --json` prints, for the app's "findings JSON" download.
    let document_json = serde_json::to_string_pretty(&ws.triage_document(&report))
        .map(|t| t + "\n")
        .unwrap_or_default();
    TriageView {
        document_json,
        pins_json: records::pins_to_json(pins),
        pins: pins
            .iter()
            .map(|p| PinView {
                key_text: p.key.to_string(),
                key: p.key.clone(),
                compile_s: p.compile_s,
                source: p.source.clone(),
                source_timestamp: p.source_timestamp.as_ref().map(|t| t.text.clone()),
            })
            .collect(),
        sources,
        other_kind,
        malformed,
        keys_pinned,
        keys_unpinned: warm_keys.len() as u64 - keys_pinned,
        points,
        series_pins,
        needs_fill,
        report,
    }
}

/// The memory view: the workspace's report (already relative to `origin_ns`) and one thinned
/// lane per rank.
pub(super) fn memory_view(o: MemoryOutcome) -> MemoryView {
    let lanes = o
        .lanes
        .iter()
        .map(|&(i, shift)| {
            let inp = &o.inputs[i];
            draw_lane(&inp.label, inp.rank, &inp.series, shift)
        })
        .collect();
    MemoryView {
        origin_ns: o.origin_ns.to_string(),
        lanes,
        report: o.report,
        sources: o.sources,
    }
}

fn draw_series(s: &Option<cm::Series>, offset: i64) -> Option<DrawSeries> {
    let s = s.as_ref()?;
    let ts: Vec<i64> = s
        .ts_ns
        .iter()
        .map(|t| js_safe(t.saturating_add(offset)))
        .collect();
    let (ts_ns, value) = lttb_series(&ts, &s.value, MEMORY_DRAW_POINTS);
    Some(DrawSeries {
        name: s.name.clone(),
        ts_ns,
        value,
    })
}

fn draw_lane(label: &str, rank: u32, s: &RankSeries, offset: i64) -> MemoryLane {
    let gap = match (&s.kinds.device_used, &s.kinds.allocator_reserved) {
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
            let b = crate::plot::memory::gap_band(&ts, &u.value, &lo, MEMORY_DRAW_POINTS);
            Some(DrawBand {
                ts_ns: b.ts_ns,
                lo: b.lo,
                hi: b.hi,
            })
        }
        _ => None,
    };
    MemoryLane {
        rank,
        label: label.to_string(),
        device_used: draw_series(&s.kinds.device_used, offset),
        allocator_reserved: draw_series(&s.kinds.allocator_reserved, offset),
        allocator_allocated: draw_series(&s.kinds.allocator_allocated, offset),
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
