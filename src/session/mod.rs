//! The web worker's protocol adapter, independent of the browser so it is tested natively:
//! [`ToWorker`] messages in, [`Workspace`] calls, JS-safe [`FromWorker`] views out.
//!
//! The worker holds one [`Session`], which holds one [`Workspace`] (the same engine every CLI
//! subcommand uses, so both front ends give the same reports). Protocol: the worker posts
//! [`FromWorker::Ready`] once its handler is installed; for each file the app sends an import
//! (id, name, bytes) and gets [`FromWorker::Progress`] messages followed by exactly one answer
//! saying what the file was: [`FromWorker::Imported`] (a trace: a trial row),
//! [`FromWorker::RecordsImported`], [`FromWorker::PinsLoaded`],
//! [`FromWorker::TelemetryImported`], or [`FromWorker::ImportFailed`] — so records, pins and
//! telemetry never become trial rows. Facts derived across files that change for earlier files
//! come as [`FromWorker::Updated`] ([`Session::take_updates`]). An [`AnalyseRequest`] is
//! answered by [`FromWorker::Analysed`] / [`FromWorker::AnalyseFailed`], a [`MemoryRequest`] by
//! [`FromWorker::MemoryAnalysed`] / [`FromWorker::MemoryFailed`], a [`TriageRequest`] (and the
//! pin commands) by [`FromWorker::Triaged`].

pub mod compare;
pub mod link;
pub mod progress;
mod protocol;
pub mod schedule;
mod views;
pub mod viewstate;
pub mod wire;

pub use protocol::*;

use crate::model::compile_record::FullKey;
use crate::workspace::{Content, Workspace};

/// The worker's state: one workspace.
#[derive(Default)]
pub struct Session {
    ws: Workspace,
}

impl Session {
    /// An empty session.
    pub fn new() -> Self {
        Self::default()
    }

    /// The workspace behind the session.
    pub fn workspace(&self) -> &Workspace {
        &self.ws
    }

    /// Number of imported traces (trial rows).
    pub fn len(&self) -> usize {
        self.ws
            .entries()
            .iter()
            .filter(|e| matches!(e.content, Content::Trace(_)))
            .count()
    }

    /// True when no trace is imported.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Loads one file into the workspace and says what it was (see the module doc). `progress`
    /// receives fractions in [0, 1]. Importing an id again replaces the earlier file.
    pub fn import(
        &mut self,
        id: FileId,
        name: &str,
        bytes: &[u8],
        progress: &mut dyn FnMut(f64),
    ) -> FromWorker {
        self.import_source(id, name, &bytes, progress)
    }

    /// [`Session::import`] reading the file in chunks from `src` (the worker reads a dropped
    /// `File` this way: the whole file is never in memory).
    pub fn import_source(
        &mut self,
        id: FileId,
        name: &str,
        src: &dyn crate::formats::ByteSource,
        progress: &mut dyn FnMut(f64),
    ) -> FromWorker {
        let out = match self.ws.add_source(id, name, src, progress) {
            Ok(e) => views::answer(e),
            Err(f) => FromWorker::ImportFailed {
                id,
                name: f.name.clone(),
                message: f.message.clone(),
            },
        };
        progress(1.0);
        out
    }

    /// Adds a file an import worker prepared ([`crate::workspace::prepare`]) and says what it
    /// was, as [`Session::import`] does.
    pub fn add_prepared(
        &mut self,
        id: FileId,
        name: &str,
        prepared: Result<crate::workspace::Prepared, String>,
    ) -> FromWorker {
        match self.ws.add_prepared(id, name, prepared) {
            Ok(e) => views::answer(e),
            Err(f) => FromWorker::ImportFailed {
                id,
                name: f.name.clone(),
                message: f.message.clone(),
            },
        }
    }

    /// Forgets file `id` (imported or failed). Facts derived from its siblings are derived
    /// again (see [`Session::take_updates`]). Pins stay.
    pub fn remove(&mut self, id: FileId) {
        self.ws.remove(id);
    }

    /// Forgets every file. Pins stay (they move only on an explicit command).
    pub fn clear(&mut self) {
        self.ws.clear();
    }

    /// The summary of imported trace `id`, as it is now.
    pub fn summary(&self, id: FileId) -> Option<ImportSummary> {
        self.ws.entry(id).and_then(views::import_summary)
    }

    /// [`FromWorker::Updated`] with the current summaries of the earlier traces whose derived
    /// facts changed since the last call (by an import or a removal), in import order; `None`
    /// when none changed. The worker posts it after each import and removal.
    pub fn take_updates(&mut self) -> Option<FromWorker> {
        let ids = self.ws.take_changed();
        let summaries: Vec<ImportSummary> = ids
            .iter()
            .filter_map(|&id| self.ws.entry(id).and_then(views::import_summary))
            .collect();
        (!summaries.is_empty()).then_some(FromWorker::Updated { summaries })
    }

    /// [`FromWorker::Aggregates`] with what every aggregate file is now, when an aggregate
    /// file arrived or left since the last call (`None` otherwise). The worker posts it after
    /// each import and removal, after [`Session::take_updates`].
    pub fn take_aggregates(&mut self) -> Option<FromWorker> {
        self.ws
            .take_aggregates_changed()
            .then(|| FromWorker::Aggregates {
                states: views::aggregate_states(&self.ws),
            })
    }

    /// Number of pins in force.
    pub fn pin_count(&self) -> usize {
        self.ws.pins().len()
    }

    /// Replaces the pins with the warm medians of every loaded record, then runs
    /// [`Session::triage`].
    pub fn pin_warm_medians(&mut self, req: &TriageRequest) -> FromWorker {
        self.ws.pin_warm_medians(&req.fills);
        self.triage(req)
    }

    /// Pins (or explicitly re-pins) `keys` to the warm medians of their loaded rows; other
    /// pins stay. Then runs [`Session::triage`].
    pub fn pin_keys(&mut self, keys: &[FullKey], req: &TriageRequest) -> FromWorker {
        self.ws.pin_keys(keys, &req.fills);
        self.triage(req)
    }

    /// Forgets every pin ("no pins"), then runs [`Session::triage`].
    pub fn clear_pins(&mut self, req: &TriageRequest) -> FromWorker {
        self.ws.set_pins(Vec::new());
        self.triage(req)
    }

    /// Runs the compile triage over every loaded record with the pins in force, and gathers
    /// the view: coverage, excluded rows, chart points.
    pub fn triage(&self, req: &TriageRequest) -> FromWorker {
        FromWorker::Triaged {
            seq: req.seq,
            view: Box::new(views::triage_view(&self.ws, req)),
        }
    }

    /// Runs the scaling analysis over the imported trials (in import order). Returns
    /// [`FromWorker::Analysed`], or [`FromWorker::AnalyseFailed`] when the pattern is not a
    /// regex with exactly one capture group.
    pub fn analyse(&self, req: &AnalyseRequest) -> FromWorker {
        match self.ws.scaling(&req.request) {
            Ok(o) => FromWorker::Analysed {
                seq: req.seq,
                inputs: o.inputs,
                report: Box::new(o.report),
            },
            Err(message) => FromWorker::AnalyseFailed {
                seq: req.seq,
                message,
            },
        }
    }

    /// Runs the rank memory analysis over the imported files and thins the series for
    /// drawing. Returns [`FromWorker::MemoryAnalysed`], or [`FromWorker::MemoryFailed`] naming
    /// a bad preset or knob.
    pub fn analyse_memory(&self, req: &MemoryRequest) -> FromWorker {
        match self.ws.memory(&req.request) {
            Ok(o) => FromWorker::MemoryAnalysed {
                seq: req.seq,
                view: Box::new(views::memory_view(o)),
            },
            Err(message) => FromWorker::MemoryFailed {
                seq: req.seq,
                message,
            },
        }
    }
}

#[cfg(test)]
mod tests;
