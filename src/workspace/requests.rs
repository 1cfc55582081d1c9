//! The analyses run over a workspace: each request gathers the inputs its analysis's
//! `extract` made at load time, applies the user's settings and the cross-file facts, and calls
//! the analysis's `run`. Both front ends call these, so their reports are the same.

use serde::{Deserialize, Serialize};

use super::facts::assign_missing_ranks;
use super::{Content, FileId, Workspace};
use crate::analysis::collective_memory::{self as cm, RankInput, RankSeries};
use crate::analysis::compare::{self, Side};
use crate::analysis::compile_triage;
use crate::analysis::flame::{self, FlameTree};
use crate::analysis::scaling::{self, compile_input_regex, input_from_name, Metric, Params};
use crate::model::compile_record::{CompileRecord, FullKey, KeyDefaults};
use crate::model::facts::{base_name, rank_from_file_name, RankSource};

/// Per-trial settings edited in the trial table (or given on the command line).
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

/// A scaling request: the settings of the trials (a trial without settings keeps its
/// defaults: input from the name, variant `default`, included), the metric and the input
/// pattern (a regex with one capture group, see [`scaling::compile_input_regex`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScalingRequest {
    pub settings: Vec<TrialSettings>,
    pub metric: Metric,
    pub pattern: String,
}

/// The answer to a [`ScalingRequest`]: the effective input per trial and the report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScalingOutcome {
    pub inputs: Vec<(FileId, Option<f64>)>,
    pub report: scaling::Report,
}

/// Which trials form one side of a comparison. A trial belongs to the side when any given
/// criterion matches: its id is listed, its variant label equals `variant`, or its file name
/// matches the glob `pattern` ([`glob_match`]). All criteria empty = no trial.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
pub struct SideRule {
    /// File ids on this side (the web app's drop zone, the CLI's file list).
    #[serde(default)]
    pub ids: Vec<FileId>,
    /// A variant label (the trial table's variant column; compared trimmed).
    #[serde(default)]
    pub variant: Option<String>,
    /// A glob over the file name as loaded (with its folder part, if any): `*` any run of
    /// characters, `?` one character; a pattern without `/` is matched against the base name.
    #[serde(default)]
    pub pattern: Option<String>,
}

/// A comparison request (issue 13): the per-trial settings (variant, excluded; the input is
/// ignored), the rule of each side, the parameters, and whether to build the flame trees.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CompareRequest {
    #[serde(default)]
    pub settings: Vec<TrialSettings>,
    pub baseline: SideRule,
    pub candidate: SideRule,
    #[serde(default)]
    pub params: compare::Params,
    /// Also build the median tree of each side and the differential tree.
    #[serde(default)]
    pub trees: bool,
}

/// The answer to a [`CompareRequest`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CompareOutcome {
    /// Every trace in drop order with the side it got (`None`: neither, or both — see
    /// `warnings`).
    pub sides: Vec<(FileId, Option<Side>)>,
    /// The comparison ([`compare::run`]); its `trials[i]` is `sides[i]`.
    pub report: compare::Report,
    /// With `trees`: the baseline's median tree ([`flame::aggregate_tree`]).
    pub baseline_tree: Option<FlameTree>,
    /// With `trees`: the candidate's median tree.
    pub candidate_tree: Option<FlameTree>,
    /// With `trees`: the differential tree ([`flame::differential`]; width = baseline,
    /// colour = shift, q per node).
    pub differential_tree: Option<FlameTree>,
    /// Trials that matched both sides (left out), and other request-level notes.
    pub warnings: Vec<String>,
}

/// Glob match of `pattern` against `name`: `*` matches any run of characters (also `/`), `?`
/// exactly one, everything else itself. A pattern without `/` is matched against the part of
/// `name` after its last `/` (the base name).
pub fn glob_match(pattern: &str, name: &str) -> bool {
    let text = if pattern.contains('/') {
        name
    } else {
        base_name(name)
    };
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    // Iterative wildcard matching with backtracking to the last `*`.
    let (mut pi, mut ti) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) && p[pi] != '*' {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == '*' {
        pi += 1;
    }
    pi == p.len()
}

impl SideRule {
    fn matches(&self, id: FileId, name: &str, variant: &str) -> bool {
        self.ids.contains(&id)
            || self
                .variant
                .as_deref()
                .is_some_and(|v| !v.trim().is_empty() && v.trim() == variant)
            || self
                .pattern
                .as_deref()
                .is_some_and(|p| !p.is_empty() && glob_match(p, name))
    }
}

/// Key fields the user filled in for one trace's derived compile records ([`KeyDefaults`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TraceFill {
    pub id: FileId,
    pub defaults: KeyDefaults,
}

/// A user-set rank for one memory source: part `part` (0 for a trace; the rank part's index
/// for a telemetry file) of file `id`. It wins over the rank the content or the file name
/// states (collective-memory.md, "Rank identity").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RankOverride {
    pub id: FileId,
    pub part: u32,
    pub rank: u32,
}

/// A rank memory request: a preset (`low`, `medium`, `high`), knob overrides (`(knob,
/// value)`, see [`cm::Params::with_override`]), the counter-name mapping and rank overrides.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MemoryRequest {
    pub preset: String,
    pub overrides: Vec<(String, String)>,
    /// `None` = the default [`cm::Mapping`].
    #[serde(default)]
    pub mapping: Option<cm::Mapping>,
    #[serde(default)]
    pub rank_overrides: Vec<RankOverride>,
}

/// One input of the memory analysis as the workspace resolved it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MemorySource {
    pub id: FileId,
    /// 0 for a trace; the rank part of a telemetry file.
    pub part: u32,
    /// The lane label (base file name, `name (rank r)` for a telemetry part).
    pub label: String,
    /// The rank stated by the content, else by the file name; `None` when neither says.
    pub stated_rank: Option<u32>,
    /// The rank used (the override, the stated rank, or an assigned one).
    pub rank: u32,
    /// True when a [`RankOverride`] set `rank`.
    pub overridden: bool,
    /// True for a telemetry file.
    pub telemetry: bool,
}

/// The answer to a [`MemoryRequest`].
///
/// Every time in `report` (intervals, `trace_start_ns` = 0, offsets, params' windows) is
/// relative to `origin_ns`, the job's earliest record, and clamped to ±(2^53 − 1) ns, so the
/// report is the same whether it crosses the worker boundary as JavaScript numbers (which hold
/// integers exactly only up to 2^53) or is printed by the CLI.
#[derive(Clone, Debug, PartialEq)]
pub struct MemoryOutcome {
    /// The job's earliest record on the aligned timeline, ns (absolute).
    pub origin_ns: i64,
    pub report: cm::Report,
    /// Every input, in drop order, with its rank.
    pub sources: Vec<MemorySource>,
    /// The inputs handed to [`cm::run`], in the order of `sources`.
    pub inputs: Vec<RankInput>,
    /// Per rank of `report.ranks` (rank order): the index into `inputs` and the shift that puts
    /// its timestamps on the report's relative timeline (offset − origin), ns, unclamped.
    pub lanes: Vec<(usize, i64)>,
}

/// Largest integer a JavaScript number holds exactly.
pub const JS_SAFE: i64 = (1 << 53) - 1;

/// `v` clamped to ±[`JS_SAFE`].
pub fn js_safe(v: i64) -> i64 {
    v.clamp(-JS_SAFE, JS_SAFE)
}

impl Workspace {
    /// Runs the scaling analysis ([`scaling::run`], scaling.md) over the loaded traces in drop
    /// order, listing failed files. Errors: the pattern is not a regex with exactly one
    /// capture group.
    pub fn scaling(&self, req: &ScalingRequest) -> Result<ScalingOutcome, String> {
        let re = compile_input_regex(&req.pattern)?;
        let mut inputs = Vec::new();
        let mut trials = Vec::new();
        for e in &self.entries {
            let Content::Trace(t) = &e.content else {
                continue;
            };
            let s = req.settings.iter().find(|s| s.id == e.id);
            let input = s
                .and_then(|s| s.input_override)
                .or_else(|| input_from_name(base_name(e.name()), &re));
            inputs.push((e.id, input));
            let mut trial = t.trial.clone();
            trial.input = input;
            trial.variant = s
                .map(|s| s.variant.trim())
                .filter(|v| !v.is_empty())
                .unwrap_or("default")
                .to_string();
            trial.excluded = s.is_some_and(|s| s.excluded);
            trials.push(trial);
        }
        let params = Params {
            metric: req.metric,
            ..Params::default()
        };
        let mut report = scaling::run(&trials, &params);
        report.record_failed_imports(&self.failed_names());
        Ok(ScalingOutcome { inputs, report })
    }

    /// Runs the comparison ([`compare::run`], issue 13) over the loaded traces in drop order:
    /// each trace's side from the request's rules (a trace matching both sides is left out with
    /// a warning), variant and exclusion from its settings; failed files are listed. With
    /// `req.trees`, also the median tree of each side and the differential tree.
    pub fn compare(&self, req: &CompareRequest) -> CompareOutcome {
        let mut sides = Vec::new();
        let mut inputs = Vec::new();
        let mut trees: Vec<(&flame::CallTree, Option<Side>, bool)> = Vec::new();
        let mut warnings = Vec::new();
        for e in &self.entries {
            let Content::Trace(t) = &e.content else {
                continue;
            };
            let s = req.settings.iter().find(|s| s.id == e.id);
            let mut trial = t.trial.clone();
            trial.variant = s
                .map(|s| s.variant.trim())
                .filter(|v| !v.is_empty())
                .unwrap_or("default")
                .to_string();
            trial.excluded = s.is_some_and(|s| s.excluded);
            let b = req.baseline.matches(e.id, e.name(), &trial.variant);
            let c = req.candidate.matches(e.id, e.name(), &trial.variant);
            let side = match (b, c) {
                (true, false) => Some(Side::Baseline),
                (false, true) => Some(Side::Candidate),
                (true, true) => {
                    warnings.push(format!(
                        "{}: matches both the baseline and the candidate; left out",
                        e.name()
                    ));
                    None
                }
                (false, false) => None,
            };
            trees.push((&t.tree, side, trial.excluded));
            sides.push((e.id, side));
            inputs.push(compare::Input { trial, side });
        }
        let mut report = compare::run(&inputs, &req.params);
        report.record_failed_imports(&self.failed_names());
        let (mut bt, mut ct, mut dt) = (None, None, None);
        if req.trees {
            let pick = |want: Side| -> Vec<&flame::CallTree> {
                trees
                    .iter()
                    .filter(|(_, s, ex)| *s == Some(want) && !ex)
                    .map(|t| t.0)
                    .collect()
            };
            let (b, c) = (pick(Side::Baseline), pick(Side::Candidate));
            bt = Some(flame::aggregate_tree(&b));
            ct = Some(flame::aggregate_tree(&c));
            dt = Some(flame::differential(&b, &c, &req.params));
        }
        CompareOutcome {
            sides,
            report,
            baseline_tree: bt,
            candidate_tree: ct,
            differential_tree: dt,
            warnings,
        }
    }

    /// The flame tree of one loaded trace ([`flame::single`]); `None` when `id` is not a
    /// trace.
    pub fn flame_single(&self, id: FileId) -> Option<FlameTree> {
        self.entries
            .iter()
            .find(|e| e.id == id)
            .and_then(|e| e.trace())
            .map(|t| flame::single(&t.tree))
    }

    /// The scaling flame tree ([`flame::scaling_tree`]): the traces with the inputs, variants
    /// and exclusions of `req` (as [`Workspace::scaling`] resolves them), one variant at a time
    /// (`variant`, `default` when empty). Errors: as [`Workspace::scaling`].
    pub fn scaling_tree(&self, req: &ScalingRequest, variant: &str) -> Result<FlameTree, String> {
        let re = compile_input_regex(&req.pattern)?;
        let want = if variant.trim().is_empty() {
            "default"
        } else {
            variant.trim()
        };
        let mut trees = Vec::new();
        for e in &self.entries {
            let Content::Trace(t) = &e.content else {
                continue;
            };
            let s = req.settings.iter().find(|s| s.id == e.id);
            let input = s
                .and_then(|s| s.input_override)
                .or_else(|| input_from_name(base_name(e.name()), &re));
            let v = s
                .map(|s| s.variant.trim())
                .filter(|v| !v.is_empty())
                .unwrap_or("default");
            if v != want || s.is_some_and(|s| s.excluded) {
                continue;
            }
            if let Some(x) = input {
                trees.push((&t.tree, x));
            }
        }
        Ok(flame::scaling_tree(&trees))
    }

    /// Every loaded compile record in drop order; trace-derived ones filled in with the
    /// `fills` for their file (only where the trace says nothing).
    pub fn compile_records(&self, fills: &[TraceFill]) -> Vec<CompileRecord> {
        let mut out = Vec::new();
        for e in &self.entries {
            match &e.content {
                Content::Trace(t) => {
                    let fill = fills.iter().find(|f| f.id == e.id);
                    for r in &t.compile_records {
                        let mut r = r.clone();
                        if let Some(f) = fill {
                            f.defaults.fill(&mut r);
                        }
                        out.push(r);
                    }
                }
                Content::Records(f) => out.extend(f.file.records.iter().cloned()),
                _ => {}
            }
        }
        out
    }

    /// Runs the compile triage ([`compile_triage::run`], compile-triage.md) over every loaded
    /// record with the pins in force.
    pub fn triage(
        &self,
        params: &compile_triage::Params,
        fills: &[TraceFill],
    ) -> compile_triage::Report {
        compile_triage::run(&self.compile_records(fills), &self.pins, params)
    }

    /// Replaces the pins with the warm medians of every loaded record
    /// ([`compile_triage::pins_from_records`]).
    pub fn pin_warm_medians(&mut self, fills: &[TraceFill]) {
        let pins = compile_triage::pins_from_records(&self.compile_records(fills));
        self.set_pins(pins);
    }

    /// Pins (or explicitly re-pins) `keys` to the warm medians of their loaded rows; other pins
    /// stay. A key without warm rows is left as it was.
    pub fn pin_keys(&mut self, keys: &[FullKey], fills: &[TraceFill]) {
        let recs: Vec<CompileRecord> = self
            .compile_records(fills)
            .into_iter()
            .filter(|r| r.full_key().is_some_and(|k| keys.contains(&k)))
            .collect();
        let new = compile_triage::pins_from_records(&recs);
        let mut pins = std::mem::take(&mut self.pins);
        pins.retain(|p| !new.iter().any(|n| n.key == p.key));
        pins.extend(new);
        self.set_pins(pins);
    }

    /// Runs the rank memory analysis (collective-memory.md) over every trace and telemetry rank
    /// part: ranks as the facts give them (or the user's overrides), any source still without a
    /// rank gets the smallest free number with a warning; a trace with no memory series (after
    /// the mapping) and no collective marker has no lane and is named in one warning; the
    /// warnings also list every
    /// telemetry line that was skipped (`file:line: problem`); times are made relative to the job's
    /// earliest record (see [`MemoryOutcome`]). Errors: an unknown preset or knob, an invalid
    /// value.
    pub fn memory(&self, req: &MemoryRequest) -> Result<MemoryOutcome, String> {
        let preset: cm::Preset = req.preset.parse().map_err(|e: cm::Error| e.to_string())?;
        let mut params = cm::Params::preset(preset);
        for (k, v) in &req.overrides {
            params = params.with_override(k, v).map_err(|e| e.to_string())?;
        }
        // (id, part, telemetry, label, facts rank and source, series, counters)
        struct Raw<'a> {
            id: FileId,
            part: u32,
            telemetry: bool,
            label: String,
            rank: Option<u32>,
            assigned: bool,
            series: &'a RankSeries,
            counters: &'a [cm::KeptCounter],
        }
        let mut raw: Vec<Raw> = Vec::new();
        for e in &self.entries {
            let base = base_name(e.name());
            match &e.content {
                Content::Trace(t) => raw.push(Raw {
                    id: e.id,
                    part: 0,
                    telemetry: false,
                    label: base.to_string(),
                    rank: e.facts.rank,
                    assigned: e.facts.rank_source == Some(RankSource::Assigned),
                    series: &t.memory,
                    counters: &t.counters,
                }),
                Content::Telemetry(tf) => {
                    for (p, part) in tf.parts.iter().enumerate() {
                        raw.push(Raw {
                            id: e.id,
                            part: p as u32,
                            telemetry: true,
                            label: match part.memory.rank {
                                Some(r) => format!("{base} (rank {r})"),
                                None => base.to_string(),
                            },
                            rank: part.facts.rank,
                            assigned: part.facts.rank_source == Some(RankSource::Assigned),
                            series: &part.memory,
                            counters: &part.counters,
                        });
                    }
                }
                _ => {}
            }
        }
        let mut sources = Vec::with_capacity(raw.len());
        let mut series = Vec::with_capacity(raw.len());
        let mut stated = Vec::with_capacity(raw.len());
        let mut assigned_by_facts = Vec::with_capacity(raw.len());
        // Traces with no memory series (after the mapping) and no collective marker: no lane.
        let mut no_memory: Vec<&str> = Vec::new();
        for r in &raw {
            let mut s = r.series.clone();
            if let Some(m) = &req.mapping {
                cm::apply_mapping(&mut s, r.counters, m);
            }
            if !r.telemetry && s.series_present().is_empty() && s.markers.is_empty() {
                no_memory.push(&r.label);
                continue;
            }
            let content = s.rank.or_else(|| rank_from_file_name(&r.label));
            let facts_rank = if r.assigned { None } else { r.rank };
            let stated_rank = facts_rank.or(content);
            let o = req
                .rank_overrides
                .iter()
                .find(|o| o.id == r.id && o.part == r.part);
            sources.push(MemorySource {
                id: r.id,
                part: r.part,
                label: r.label.clone(),
                stated_rank,
                rank: 0,
                overridden: o.is_some(),
                telemetry: r.telemetry,
            });
            stated.push(o.map(|o| o.rank).or(stated_rank).or(r.rank));
            assigned_by_facts.push(r.assigned && o.is_none());
            series.push(s);
        }
        let needs = vec![true; stated.len()];
        let ranks = assign_missing_ranks(&stated, &needs);
        let mut warnings = Vec::new();
        if !no_memory.is_empty() {
            warnings.push(format!(
                "not in the memory view: {} trace(s) with no memory series and no collective \
                 marker ({})",
                no_memory.len(),
                no_memory.join(", ")
            ));
        }
        let mut inputs = Vec::with_capacity(raw.len());
        for (k, s) in series.into_iter().enumerate() {
            let (rank, assigned) = ranks[k];
            let rank = rank.unwrap_or(0);
            if assigned || assigned_by_facts[k] {
                warnings.push(format!(
                    "{}: the rank is stated neither in the content nor in the file name; assigned rank {rank}",
                    sources[k].label
                ));
            }
            sources[k].rank = rank;
            inputs.push(RankInput {
                rank,
                label: sources[k].label.clone(),
                series: s,
            });
        }
        let mut report = cm::run(&inputs, &params);
        for e in &self.entries {
            if let Content::Telemetry(t) = &e.content {
                warnings.extend(t.bad_lines.iter().cloned());
            }
        }
        warnings.append(&mut report.warnings);
        report.warnings = warnings;
        for f in &self.failed {
            report.warnings.push(format!(
                "{}: could not be imported; not in the memory view",
                f.name
            ));
        }
        let origin = report.trace_start_ns.unwrap_or(0);
        // Lanes in the report's rank order: (rank, input index), as `cm::run` sorts.
        let mut order: Vec<usize> = (0..inputs.len()).collect();
        order.sort_by_key(|&i| (inputs[i].rank, i));
        let lanes = order
            .iter()
            .zip(&report.ranks)
            .map(|(&i, r)| (i, r.offset_ns.saturating_sub(origin)))
            .collect();
        for r in &mut report.ranks {
            r.offset_ns = js_safe(r.offset_ns);
        }
        for iv in &mut report.intervals {
            iv.start_ns = js_safe(iv.start_ns.saturating_sub(origin));
            iv.end_ns = js_safe(iv.end_ns.saturating_sub(origin));
        }
        let p = &mut report.params;
        p.min_gap_bytes = p.min_gap_bytes.min(JS_SAFE as u64);
        p.marker_window_ns = js_safe(p.marker_window_ns);
        p.interval_padding_ns = js_safe(p.interval_padding_ns);
        p.synchrony_window_ns = js_safe(p.synchrony_window_ns);
        report.clock.skew_ns = js_safe(report.clock.skew_ns);
        report.trace_start_ns = report.trace_start_ns.map(|_| 0);
        Ok(MemoryOutcome {
            origin_ns: origin,
            report,
            sources,
            inputs,
            lanes,
        })
    }
}
