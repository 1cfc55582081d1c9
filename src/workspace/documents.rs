//! Reports as the JSON documents the CLI prints (`--json`) — built here, over the workspace,
//! so that a test can build the same document from the web worker's report and compare.

use serde_json::{json, Value};

use super::{Content, Workspace};
use crate::analysis::compile_triage::Report;
use crate::formats::records;
use crate::model::compile_record::{FullKey, RecordLocation};

impl Workspace {
    /// The excluded rows of every loaded record file, in drop order: (other kind, malformed).
    pub fn excluded_records(&self) -> (Vec<records::ExcludedRecord>, Vec<records::ExcludedRecord>) {
        let mut other_kind = Vec::new();
        let mut malformed = Vec::new();
        for e in &self.entries {
            if let Content::Records(f) = &e.content {
                other_kind.extend(f.file.other_kind.iter().cloned());
                malformed.extend(f.file.malformed.iter().cloned());
            }
        }
        (other_kind, malformed)
    }

    /// What the record files counted but did not list ([`crate::formats::limits`]): other-kind
    /// entries, malformed entries, and good records past the per-file record limit.
    pub fn excluded_unlisted(&self) -> (u64, u64, u64) {
        let mut n = (0, 0, 0);
        for e in &self.entries {
            if let Content::Records(f) = &e.content {
                n.0 += f.file.other_kind_unlisted;
                n.1 += f.file.malformed_unlisted;
                n.2 += f.file.records_over_limit;
            }
        }
        n
    }

    /// The compile triage report as `trialscope triage --json` prints it: stable field names,
    /// no internal tuples — `params`, `pins`, `warm_rows`, `history_rows`,
    /// `rows_without_timestamp`, `findings[]` (`key`, `key_text`, `location` with
    /// `file`/`index`/`line`/`text`, `timestamp`, `observed_s`, `pinned_s`, `ratio` (null when
    /// not finite), `classification`, `evidence`, `action`, `actionable`), `unpinned[]`,
    /// `counts`, `unpinned_counts`, `actionable`, `next_action`, `excluded` (`other_kind`,
    /// `malformed`, `incomplete`, and `unlisted` counts past the listing limit) and
    /// `failed_files`.
    pub fn triage_document(&self, rep: &Report) -> Value {
        triage_document(self, rep)
    }
}

fn key_json(k: &FullKey) -> Value {
    json!({
        "cell": k.cell,
        "transform": k.transform,
        "hardware": k.hardware,
        "hostname": k.hostname,
        "jax_version": k.jax_version,
        "precision": k.precision,
        "cache_state": k.cache_state.as_str(),
    })
}

fn loc_json(l: &RecordLocation) -> Value {
    json!({ "file": l.file, "index": l.index, "line": l.line, "text": l.to_string() })
}

fn excluded_json(v: &[records::ExcludedRecord]) -> Value {
    Value::Array(
        v.iter()
            .map(|e| json!({ "location": loc_json(&e.location), "reason": e.reason }))
            .collect(),
    )
}

pub(super) fn triage_document(ws: &Workspace, rep: &Report) -> Value {
    let (other_kind, malformed) = ws.excluded_records();
    let unlisted = ws.excluded_unlisted();
    let findings: Vec<Value> = rep
        .findings
        .iter()
        .map(|f| {
            json!({
                "key": key_json(&f.key),
                "key_text": f.key_text,
                "location": loc_json(&f.location),
                "timestamp": f.timestamp,
                "observed_s": f.observed_s,
                "pinned_s": f.pinned_s,
                "ratio": if f.ratio.is_finite() { json!(f.ratio) } else { Value::Null },
                "classification": f.classification.as_str(),
                "evidence": f.evidence,
                "action": f.action,
                "actionable": f.actionable,
            })
        })
        .collect();
    let unpinned: Vec<Value> = rep
        .unpinned
        .iter()
        .map(|u| {
            json!({
                "key": key_json(&u.key),
                "key_text": u.key_text,
                "classification": u.classification.as_str(),
                "differs_in": u.differs_in,
                "rows": u.rows,
            })
        })
        .collect();
    let incomplete: Vec<records::ExcludedRecord> = rep
        .incomplete
        .iter()
        .map(|s| records::ExcludedRecord {
            location: s.location.clone(),
            reason: s.reason.clone(),
        })
        .collect();
    json!({
        "params": rep.params,
        "pins": rep.pins,
        "warm_rows": rep.warm_rows,
        "history_rows": rep.history_rows,
        "rows_without_timestamp": rep.rows_without_timestamp,
        "findings": findings,
        "unpinned": unpinned,
        "counts": rep.counts,
        "unpinned_counts": rep.unpinned_counts,
        "actionable": rep.actionable,
        "next_action": rep.next_action,
        "excluded": {
            "other_kind": excluded_json(&other_kind),
            "malformed": excluded_json(&malformed),
            "incomplete": excluded_json(&incomplete),
            "unlisted": { "other_kind": unlisted.0, "malformed": unlisted.1,
                          "records_over_limit": unlisted.2 },
        },
        "failed_files": ws.failed_names(),
    })
}
