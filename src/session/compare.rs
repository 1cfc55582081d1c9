//! The comparison and flame-graph requests of the worker (issue 13), as thin adapters over the
//! workspace: [`Session::compare`] runs [`Workspace::compare`](crate::workspace::Workspace::compare)
//! (sides from the request's rules, or from the variant column when both rules are empty and
//! it holds exactly two labels: [`default_sides`]), [`Session::flame`] builds one flame tree
//! (one trial, one side, the differential tree, or the scaling tree of one variant).

use super::protocol::{CompareMsg, FlameOf, FlameRequest, FromWorker};
use super::Session;
use crate::analysis::compare::Side;
use crate::workspace::{CompareRequest, Content, FileId, SideRule, TrialSettings, Workspace};

/// True when `rule` selects no trial at all (no ids, no variant label, no pattern).
pub fn rule_is_empty(rule: &SideRule) -> bool {
    rule.ids.is_empty()
        && rule.variant.as_deref().is_none_or(|v| v.trim().is_empty())
        && rule.pattern.as_deref().is_none_or(|p| p.trim().is_empty())
}

/// The two variant labels of the traces `ids` (in drop order) under `settings` — a trace
/// without settings or with an empty label is `default`, excluded traces are not counted —
/// when there are exactly two: `(baseline, candidate)`, the baseline being the label of the
/// first trace in drop order. `None` for one label or more than two.
pub fn default_sides(ids: &[FileId], settings: &[TrialSettings]) -> Option<(String, String)> {
    let mut labels: Vec<String> = Vec::new();
    for id in ids {
        let s = settings.iter().find(|s| s.id == *id);
        if s.is_some_and(|s| s.excluded) {
            continue;
        }
        let v = s
            .map(|s| s.variant.trim())
            .filter(|v| !v.is_empty())
            .unwrap_or("default")
            .to_string();
        if !labels.contains(&v) {
            labels.push(v);
        }
    }
    match labels.as_slice() {
        [a, b] => Some((a.clone(), b.clone())),
        _ => None,
    }
}

/// The traces of `ws` in drop order.
fn trace_ids(ws: &Workspace) -> Vec<FileId> {
    ws.entries()
        .iter()
        .filter(|e| matches!(e.content, Content::Trace(_)))
        .map(|e| e.id)
        .collect()
}

/// `req` with its sides resolved: when both rules are empty, the two variant labels
/// ([`default_sides`]) become the rules; otherwise `req` as it is. The second value is a note
/// for the outcome's warnings when no side could be chosen.
fn resolve(ws: &Workspace, req: &CompareRequest) -> (CompareRequest, Option<String>) {
    let mut req = req.clone();
    if !(rule_is_empty(&req.baseline) && rule_is_empty(&req.candidate)) {
        return (req, None);
    }
    match default_sides(&trace_ids(ws), &req.settings) {
        Some((b, c)) => {
            req.baseline = SideRule {
                variant: Some(b),
                ..SideRule::default()
            };
            req.candidate = SideRule {
                variant: Some(c),
                ..SideRule::default()
            };
            (req, None)
        }
        None => (
            req,
            Some(
                "no sides: give a baseline and a candidate file-name pattern, or label the trials \
                 with exactly two variants"
                    .to_string(),
            ),
        ),
    }
}

impl Session {
    /// Runs the comparison ([`Workspace::compare`]) with the sides resolved as the module doc
    /// says. Returns [`FromWorker::Compared`], or [`FromWorker::CompareFailed`] when no trace is
    /// loaded.
    pub fn compare(&self, msg: &CompareMsg) -> FromWorker {
        if self.is_empty() {
            return FromWorker::CompareFailed {
                seq: msg.seq,
                message: "no trace is loaded: drop the trials of both sides".to_string(),
            };
        }
        let (req, note) = resolve(&self.ws, &msg.request);
        let mut outcome = self.ws.compare(&req);
        outcome.warnings.extend(note);
        FromWorker::Compared {
            seq: msg.seq,
            outcome: Box::new(outcome),
        }
    }

    /// Builds the flame tree `req.kind` asks for. Returns [`FromWorker::Flamed`], or
    /// [`FromWorker::FlameFailed`] when the trial is not a loaded trace, the request it needs
    /// (`compare` / `scaling`) is missing, or the input pattern is invalid.
    pub fn flame(&self, req: &FlameRequest) -> FromWorker {
        let failed = |message: String| FromWorker::FlameFailed {
            seq: req.seq,
            message,
        };
        // Every trace the graph would draw came from Parquet aggregates: they have no tree.
        let from_aggregates = |ids: Vec<FileId>| {
            (!ids.is_empty() && ids.iter().all(|id| self.ws.aggregate_ids().contains(id))).then(
                || {
                    "No flame graph: these trials come from Parquet aggregates, which hold \
                     per-frame totals but no call tree (drop the trace files themselves for a \
                     flame graph)."
                        .to_string()
                },
            )
        };
        let no_tree = match &req.kind {
            FlameOf::Trial { id } => from_aggregates(vec![*id]),
            _ => from_aggregates(
                self.ws
                    .entries()
                    .iter()
                    .filter(|e| e.trace().is_some())
                    .map(|e| e.id)
                    .collect(),
            ),
        };
        if let Some(m) = no_tree {
            return failed(m);
        }
        let tree = match &req.kind {
            FlameOf::Trial { id } => match self.ws.flame_single(*id) {
                Some(t) => t,
                None => return failed(format!("no loaded trace has id {id}")),
            },
            FlameOf::Side { .. } | FlameOf::Differential => {
                let Some(c) = &req.compare else {
                    return failed("a side's flame graph needs the comparison's sides".into());
                };
                let (mut c, _) = resolve(&self.ws, c);
                c.trees = true;
                let o = self.ws.compare(&c);
                let t = match req.kind {
                    FlameOf::Side {
                        side: Side::Baseline,
                    } => o.baseline_tree,
                    FlameOf::Side {
                        side: Side::Candidate,
                    } => o.candidate_tree,
                    _ => o.differential_tree,
                };
                match t {
                    Some(t) => t,
                    None => return failed("the comparison built no tree".into()),
                }
            }
            FlameOf::Scaling { variant } => {
                let Some(s) = &req.scaling else {
                    return failed("a scaling flame graph needs the scaling settings".into());
                };
                match self.ws.scaling_tree(s, variant) {
                    Ok(t) => t,
                    Err(e) => return failed(e),
                }
            }
        };
        FromWorker::Flamed {
            seq: req.seq,
            tree: Box::new(tree),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::compare::Verdict;
    use crate::analysis::flame::FlameKind;
    use crate::analysis::scaling::{self, Metric};
    use crate::workspace::ScalingRequest;

    const CORPUS: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/corpus/chromium_scaling"
    );

    /// Ids 1–3: `scaling_n1000_r{0,1,2}`, ids 4–6: `scaling_n16000_r{0,1,2}`.
    fn session() -> Session {
        let mut s = Session::new();
        let mut id = 1;
        for n in [1000, 16000] {
            for r in 0..3 {
                let name = format!("scaling_n{n}_r{r}.pb.gz");
                let bytes = std::fs::read(format!("{CORPUS}/{name}"))
                    .expect("corpus file (../shared beside the checkout)");
                assert!(matches!(
                    s.import(id, &name, &bytes, &mut |_| {}),
                    FromWorker::Imported { .. }
                ));
                id += 1;
            }
        }
        s
    }

    fn settings(labels: &[(FileId, &str)]) -> Vec<TrialSettings> {
        labels
            .iter()
            .map(|&(id, v)| TrialSettings {
                id,
                input_override: None,
                variant: v.to_string(),
                excluded: false,
            })
            .collect()
    }

    fn request(settings: Vec<TrialSettings>, b: &str, c: &str) -> CompareRequest {
        let rule = |p: &str| SideRule {
            pattern: (!p.is_empty()).then(|| p.to_string()),
            ..SideRule::default()
        };
        CompareRequest {
            settings,
            baseline: rule(b),
            candidate: rule(c),
            params: Default::default(),
            trees: true,
        }
    }

    #[test]
    fn default_sides_need_exactly_two_labels_in_drop_order() {
        let s = settings(&[(2, "patched"), (3, " ")]);
        // 1 and 3 are `default`; 2 is first-seen after 1.
        assert_eq!(
            default_sides(&[1, 2, 3], &s),
            Some(("default".into(), "patched".into()))
        );
        assert_eq!(
            default_sides(&[2, 1], &s),
            Some(("patched".into(), "default".into()))
        );
        assert_eq!(default_sides(&[1, 3], &s), None, "one label");
        let three = settings(&[(1, "a"), (2, "b"), (3, "c")]);
        assert_eq!(default_sides(&[1, 2, 3], &three), None, "three labels");
        let mut ex = settings(&[(1, "a"), (2, "b"), (3, "c")]);
        ex[2].excluded = true;
        assert_eq!(
            default_sides(&[1, 2, 3], &ex),
            Some(("a".into(), "b".into()))
        );
    }

    #[test]
    fn compare_by_patterns_and_by_the_variant_column_give_the_same_sides() {
        let s = session();
        let by_glob = s.compare(&CompareMsg {
            seq: 4,
            request: request(Vec::new(), "*_n1000_*", "*_n16000_*"),
        });
        let FromWorker::Compared { seq, outcome } = by_glob else {
            panic!("{by_glob:?}")
        };
        assert_eq!(seq, 4);
        let want: Vec<(FileId, Option<Side>)> = (1..=6)
            .map(|id| {
                let side = if id <= 3 {
                    Side::Baseline
                } else {
                    Side::Candidate
                };
                (id, Some(side))
            })
            .collect();
        assert_eq!(outcome.sides, want);
        let r = &outcome.report;
        assert_eq!((r.baseline_trials, r.candidate_trials), (3, 3));
        assert!(r.enough_trials, "{}", r.statement);
        // The DOM build grows ~16× with N: its candidate median is far above the baseline's.
        let row = r
            .rows
            .iter()
            .find(|x| x.frame.name == "scalingBuildDom" && x.metric == Metric::Inclusive)
            .expect("scalingBuildDom row");
        assert!(row.ratio.unwrap() > 4.0, "{:?}", row.ratio);
        assert!(row.tested && row.p_value.is_some());
        assert_eq!(
            outcome.differential_tree.as_ref().map(|t| t.kind),
            Some(FlameKind::Differential)
        );

        // No patterns: the two variant labels decide, first-seen = baseline.
        let labels: Vec<(FileId, &str)> = (1..=6)
            .map(|id| (id, if id <= 3 { "small" } else { "large" }))
            .collect();
        let by_variant = s.compare(&CompareMsg {
            seq: 5,
            request: request(settings(&labels), "", ""),
        });
        let FromWorker::Compared { outcome: o2, .. } = by_variant else {
            panic!("{by_variant:?}")
        };
        assert_eq!(o2.sides, want);
        assert!(o2.warnings.is_empty(), "{:?}", o2.warnings);
        let row2 = o2
            .report
            .rows
            .iter()
            .find(|x| x.frame.name == "scalingBuildDom")
            .unwrap();
        assert_eq!(row2.ratio, row.ratio);

        // One label and no patterns: no sides, said so, never compared.
        let FromWorker::Compared { outcome: o3, .. } = s.compare(&CompareMsg {
            seq: 6,
            request: request(Vec::new(), "", ""),
        }) else {
            panic!()
        };
        assert!(o3.sides.iter().all(|s| s.1.is_none()));
        assert!(!o3.report.enough_trials);
        assert!(o3.warnings.iter().any(|w| w.starts_with("no sides")));
        assert!(o3
            .report
            .rows
            .iter()
            .all(|x| x.verdict == Verdict::Inconclusive));
    }

    #[test]
    fn flame_requests_build_each_kind_and_fail_cleanly() {
        let s = session();
        let ask =
            |kind: FlameOf, compare: Option<CompareRequest>, scaling: Option<ScalingRequest>| {
                s.flame(&FlameRequest {
                    seq: 9,
                    kind,
                    compare,
                    scaling,
                })
            };
        let tree = |m: FromWorker| match m {
            FromWorker::Flamed { seq, tree } => {
                assert_eq!(seq, 9);
                tree
            }
            other => panic!("{other:?}"),
        };
        let single = tree(ask(FlameOf::Trial { id: 2 }, None, None));
        assert_eq!(single.kind, FlameKind::Single);
        assert_eq!(single.trials, 1);
        assert!(single.nodes.iter().any(|n| n.name == "scalingBuildDom"));

        let cmp = request(Vec::new(), "*_n1000_*", "*_n16000_*");
        let base = tree(ask(
            FlameOf::Side {
                side: Side::Baseline,
            },
            Some(cmp.clone()),
            None,
        ));
        let cand = tree(ask(
            FlameOf::Side {
                side: Side::Candidate,
            },
            Some(cmp.clone()),
            None,
        ));
        assert_eq!((base.kind, base.trials), (FlameKind::Median, 3));
        let dom = |t: &crate::analysis::flame::FlameTree| {
            t.nodes
                .iter()
                .filter(|n| n.name == "scalingBuildDom")
                .map(|n| n.value)
                .fold(0.0, f64::max)
        };
        assert!(
            dom(&cand) > 4.0 * dom(&base),
            "{} vs {}",
            dom(&cand),
            dom(&base)
        );
        let diff = tree(ask(FlameOf::Differential, Some(cmp), None));
        assert_eq!((diff.kind, diff.trials), (FlameKind::Differential, 6));
        let dn = diff
            .nodes
            .iter()
            .filter(|n| n.name == "scalingBuildDom")
            .max_by(|a, b| a.value.total_cmp(&b.value))
            .unwrap();
        assert!(
            dn.shift.unwrap() > 0.0,
            "the candidate (N = 16000) is slower"
        );

        let scaling_req = ScalingRequest {
            settings: Vec::new(),
            metric: Metric::Inclusive,
            pattern: scaling::DEFAULT_INPUT_PATTERN.to_string(),
        };
        let sc = tree(ask(
            FlameOf::Scaling {
                variant: String::new(),
            },
            None,
            Some(scaling_req.clone()),
        ));
        assert_eq!((sc.kind, sc.trials), (FlameKind::Scaling, 6));
        // Each kind crosses to the page as its postcard bytes (`wire::bytes`; JSON writes them
        // as a list of numbers) and reads back equal.
        for t in [&single, &base, &diff, &sc] {
            let msg = FromWorker::Flamed {
                seq: 9,
                tree: t.clone(),
            };
            let wire = serde_json::to_value(&msg).unwrap();
            let bytes: Vec<u8> = serde_json::from_value(wire["tree"].clone()).unwrap();
            assert_eq!(bytes, postcard::to_allocvec(&**t).unwrap());
            assert_eq!(serde_json::from_value::<FromWorker>(wire).unwrap(), msg);
        }
        let grows = sc
            .nodes
            .iter()
            .filter(|n| n.name == "scalingBuildDom")
            .filter_map(|n| n.rho)
            .fold(f64::MIN, f64::max);
        assert!(grows > 0.8, "ρ = {grows}");

        for (kind, c, sreq, want) in [
            (
                FlameOf::Trial { id: 77 },
                None,
                None,
                "no loaded trace has id 77",
            ),
            (FlameOf::Differential, None, None, "needs the comparison"),
            (
                FlameOf::Scaling {
                    variant: String::new(),
                },
                None,
                Some(ScalingRequest {
                    pattern: "no group".into(),
                    ..scaling_req.clone()
                }),
                "",
            ),
        ] {
            match ask(kind, c, sreq) {
                FromWorker::FlameFailed { seq, message } => {
                    assert_eq!(seq, 9);
                    assert!(message.contains(want) && !message.is_empty(), "{message}");
                }
                other => panic!("{other:?}"),
            }
        }
        let empty = Session::new();
        match empty.compare(&CompareMsg {
            seq: 1,
            request: request(Vec::new(), "a*", "b*"),
        }) {
            FromWorker::CompareFailed { seq, message } => {
                assert_eq!(seq, 1);
                assert!(message.starts_with("no trace is loaded"), "{message}");
            }
            other => panic!("{other:?}"),
        }
    }
}
