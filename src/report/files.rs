//! The per-file import reports as `trialscope inspect --json` prints them (and the web app's
//! "file reports (JSON)" download): per trace, what the file is (`format`, `compression`,
//! `artifact_id`, sizes), what was imported (`events`, `tracks`, `slices`, `counters`,
//! `frames`), the facts (`rank`, `world_size`, `hostname`) and `diagnostics[]`. One function,
//! so the CLI and the app cannot drift apart.

use serde::Serialize;

use crate::formats::Compression;
use crate::model::Diagnostic;
use crate::workspace::{Entry, Workspace};

/// The import report of one trace.
#[derive(Clone, Debug, Serialize)]
pub struct FileReport<'a> {
    /// The file's name as the workspace holds it (the path given to the CLI, the dropped
    /// file's name in the app).
    pub path: &'a str,
    pub format: &'static str,
    pub compression: Compression,
    pub artifact_id: &'a str,
    /// Size as read and after decompression, bytes.
    pub size_bytes: u64,
    pub decompressed_bytes: u64,
    pub events: u64,
    pub tracks: u64,
    pub slices: u64,
    pub counters: u64,
    pub frames: u64,
    pub rank: Option<u32>,
    pub world_size: Option<u32>,
    pub hostname: Option<&'a str>,
    pub diagnostics: Vec<Diagnostic>,
}

/// The report of one trace entry (`None` for other kinds of file: records, pins, telemetry).
pub fn file_report(e: &Entry) -> Option<FileReport<'_>> {
    let t = e.trace()?;
    Some(FileReport {
        path: e.name(),
        format: t.format.as_str(),
        compression: e.source.compression,
        artifact_id: &e.source.artifact_id,
        size_bytes: e.source.size_bytes,
        decompressed_bytes: e.source.decompressed_bytes,
        events: t.counts.events,
        tracks: t.counts.tracks,
        slices: t.counts.slices,
        counters: t.counts.counters,
        frames: t.counts.frames,
        rank: e.facts.rank,
        world_size: e.facts.world_size,
        hostname: e.facts.hostname.as_deref(),
        diagnostics: e.diagnostics(),
    })
}

/// Every trace of `ws`, in the workspace's order, as the pretty-printed JSON array
/// `trialscope inspect --json` prints (with a final newline).
pub fn file_reports_json(ws: &Workspace) -> Result<String, serde_json::Error> {
    let all: Vec<FileReport<'_>> = ws.entries().iter().filter_map(file_report).collect();
    Ok(serde_json::to_string_pretty(&all)? + "\n")
}
