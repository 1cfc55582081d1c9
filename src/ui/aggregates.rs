//! Parquet aggregate files in the app (issue 12, part 4): the files of an aggregate folder
//! (`trialscope summarize --out DIR`), dropped as a folder or picked, are prepared by the import
//! pool like any file; the worker groups them by key into trials
//! ([`crate::session::FromWorker::Aggregates`]). A key's `trials` file is its trial's row in the
//! trial table (named by `trials.path`, so the input comes from it by the usual pattern); the
//! other pieces leave the trial table and are counted here, with every piece that waits for a
//! missing table or is ignored listed with its note.

use std::collections::BTreeMap;

use leptos::prelude::*;

use super::{request_analysis, AppState, Status};
use crate::session::{AggregateState, FileId, PieceSummary};

/// The aggregate pieces that are no trial row, by file id.
#[derive(Clone, Copy)]
pub struct AggregatesState {
    pub pieces: RwSignal<BTreeMap<FileId, PieceSummary>>,
}

impl AggregatesState {
    /// No pieces.
    pub fn new() -> Self {
        AggregatesState {
            pieces: RwSignal::new(BTreeMap::new()),
        }
    }
}

impl Default for AggregatesState {
    fn default() -> Self {
        Self::new()
    }
}

/// A piece that is no trial row: it leaves the trial table and is listed here.
pub fn piece_imported(state: AppState, summary: PieceSummary) {
    state.files.update(|f| f.retain(|r| r.id != summary.id));
    state.aggregates.pieces.update(|m| {
        m.insert(summary.id, summary);
    });
}

/// What every aggregate file is now: trials get their rows (renamed to `trials.path`),
/// failed or incomplete keys their message, pieces leave the trial table.
pub fn states(state: AppState, states: Vec<AggregateState>) {
    let mut pieces = BTreeMap::new();
    for s in states {
        match s {
            AggregateState::Trial(summary) => {
                rename(state, summary.id, &summary.name);
                if let Some(r) = row_of(state, summary.id) {
                    r.status
                        .set(Status::Imported(std::sync::Arc::from(summary)));
                }
            }
            AggregateState::Failed { id, name, message } => {
                rename(state, id, &name);
                if let Some(r) = row_of(state, id) {
                    r.status.set(Status::Failed(message));
                }
            }
            AggregateState::Piece(p) => {
                state.files.update(|f| f.retain(|r| r.id != p.id));
                pieces.insert(p.id, p);
            }
        }
    }
    state.aggregates.pieces.set(pieces);
    request_analysis(state);
}

fn row_of(state: AppState, id: FileId) -> Option<super::FileRow> {
    state
        .files
        .with_untracked(|f| f.iter().find(|r| r.id == id).cloned())
}

/// Names row `id` as its trial (`trials.path`) instead of the aggregate file.
fn rename(state: AppState, id: FileId, name: &str) {
    let differs = state
        .files
        .with_untracked(|f| f.iter().any(|r| r.id == id && r.name != name));
    if differs {
        state.files.update(|f| {
            if let Some(r) = f.iter_mut().find(|r| r.id == id) {
                r.name = name.to_string();
            }
        });
    }
}

/// Forgets every piece (the page's files were cleared).
pub fn forget_all(state: AppState) {
    state.aggregates.pieces.set(BTreeMap::new());
}

/// True when a piece's note says it is part of a trial (`<table> of <path>`), not a problem.
fn is_part(p: &PieceSummary) -> bool {
    p.note.starts_with(&format!("{} of ", p.table))
}

/// The aggregate pieces: counts per table, and every piece that waits or is ignored.
#[component]
pub fn AggregatePieces() -> impl IntoView {
    let state = expect_context::<AppState>();
    let pieces = state.aggregates.pieces;
    let counts = move || {
        pieces.with(|m| {
            let mut by: BTreeMap<String, usize> = BTreeMap::new();
            for p in m.values() {
                *by.entry(p.table.clone()).or_default() += 1;
            }
            by.into_iter()
                .map(|(t, n)| format!("{t} {n}"))
                .collect::<Vec<_>>()
                .join(", ")
        })
    };
    let problems = move || {
        pieces.with(|m| {
            m.values()
                .filter(|p| !is_part(p))
                .cloned()
                .collect::<Vec<_>>()
        })
    };
    view! {
        <Show when=move || pieces.with(|m| !m.is_empty())>
            <section data-testid="aggregate-pieces">
                <h2>"Parquet aggregates"</h2>
                <p data-testid="aggregate-counts">
                    {move || {
                        format!(
                            "{} aggregate table file(s) that are no trial row: {}. Each complete key's trials file is its trial's row in the trial table.",
                            pieces.with(|m| m.len()),
                            counts(),
                        )
                    }}
                </p>
                <ul data-testid="aggregate-problems">
                    <For
                        each=problems
                        key=|p| (p.id, p.note.clone())
                        children=|p| {
                            view! {
                                <li data-file=p.name.clone()>
                                    <span class="name">{p.name.clone()}</span>
                                    ": "
                                    {p.note.clone()}
                                </li>
                            }
                        }
                    />
                </ul>
            </section>
        </Show>
    }
}
