//! Flame trees by semantic frame (issue 13) through real encoded traces and the workspace:
//! the single-trial tree, the scaling tree coloured by Spearman ρ (the growing subtree stands
//! out from its parent, with an exact permutation p), the differential tree laid out by
//! `plot::flame` (width = baseline, red for the slower node, hover naming the frame and its
//! shift, search, zoom), and the comparison outcome crossing the worker boundary as JSON.

use trialscope::analysis::flame::{FlameKind, FlameTree};
use trialscope::analysis::scaling::Metric;
use trialscope::analysis::stats::SpearmanMethod;
use trialscope::plot::flame::{self, ColorScale, FlameItem, FlameOptions};
use trialscope::workspace::{CompareOutcome, CompareRequest, ScalingRequest, SideRule, Workspace};

use crate::compare_perfetto::{trace, Noise};

fn load(files: &[(String, Vec<u8>)]) -> Workspace {
    let mut ws = Workspace::new();
    for (id, (name, bytes)) in files.iter().enumerate() {
        if let Err(f) = ws.add(id as u32, name, bytes, &mut |_| {}) {
            panic!("{name}: {}", f.message);
        }
    }
    ws
}

fn node<'t>(t: &'t FlameTree, path: &[&str]) -> &'t trialscope::analysis::flame::FlameNode {
    let mut parent = None;
    let mut found = None;
    for name in path {
        let (i, n) = t
            .nodes
            .iter()
            .enumerate()
            .find(|(_, n)| n.parent == parent && n.name == *name)
            .unwrap_or_else(|| panic!("no node {path:?}"));
        parent = Some(i);
        found = Some(n);
    }
    found.unwrap()
}

/// The UI's adapter: a differential tree → plot items (width = baseline, colour = shift).
fn items(t: &FlameTree) -> Vec<FlameItem> {
    t.nodes
        .iter()
        .map(|n| FlameItem {
            parent: n.parent,
            value: n.value,
            color: n.shift,
            name: n.name.clone(),
            hover: format!(
                "{} — shift {:+.3} ms, q {}",
                n.name,
                n.shift.unwrap_or(0.0) / 1e6,
                n.q_value.map_or("-".into(), |q| format!("{q:.3}"))
            ),
        })
        .collect()
}

#[test]
fn single_trial_tree_follows_slice_nesting() {
    let ws = load(&[("one.pb".into(), trace(0, 5_000_000, 42, &mut Noise(3)))]);
    let t = ws.flame_single(0).unwrap();
    assert_eq!(t.kind, FlameKind::Single);
    let step = node(&t, &["Step"]);
    let gamma = node(&t, &["Step", "Gamma"]);
    assert_eq!(gamma.depth, 1);
    assert!((gamma.value - 5e6).abs() < 0.06e6);
    assert!(step.value > 55e6 && (step.self_value - 30e6).abs() < 1e3);
    assert!(node(&t, &["Idle"]).value > 0.0);
    // Siblings by descending value: Alpha (20 ms) before Gamma (5 ms) before Beta.
    let kids: Vec<&str> = t
        .nodes
        .iter()
        .filter(|n| n.depth == 1)
        .map(|n| n.name.as_str())
        .collect();
    assert_eq!(kids, ["Alpha", "Gamma", "Beta"]);
}

#[test]
fn scaling_tree_colours_the_growing_subtree_by_rho_with_exact_p() {
    let mut noise = Noise(11);
    let files: Vec<(String, Vec<u8>)> = (1..=5u32)
        .map(|n| {
            // Gamma grows with n; everything else is constant with noise.
            let g = 2_000_000 * u64::from(n);
            (format!("run_n{n}.pb"), trace(n, g, 42, &mut noise))
        })
        .collect();
    let ws = load(&files);
    let req = ScalingRequest {
        settings: Vec::new(),
        metric: Metric::Inclusive,
        pattern: trialscope::analysis::scaling::DEFAULT_INPUT_PATTERN.into(),
    };
    let t = ws.scaling_tree(&req, "").unwrap();
    assert_eq!((t.kind, t.trials), (FlameKind::Scaling, 5));
    let gamma = node(&t, &["Step", "Gamma"]);
    assert_eq!(gamma.rho, Some(1.0));
    assert_eq!(gamma.rho_method, Some(SpearmanMethod::ExactPermutation));
    // Exact: 2 / 5! (SciPy's permutation p of a perfect order of 5).
    assert!((gamma.p_value.unwrap() - 2.0 / 120.0).abs() < 1e-15);
    let alpha = node(&t, &["Step", "Alpha"]);
    assert!(alpha.rho.unwrap().abs() < 1.0);
    // The scaling report names the method too.
    let r = ws.scaling(&req).unwrap().report;
    assert!(r
        .hotspots
        .iter()
        .all(|h| h.p_method == SpearmanMethod::ExactPermutation));
}

#[test]
fn differential_tree_geometry_hover_search_zoom_and_the_outcome_as_json() {
    let mut noise = Noise(5);
    let mut files = Vec::new();
    for k in 0..8u32 {
        let (name, g) = if k < 4 {
            (format!("base/t{k}.pb"), 5_000_000)
        } else {
            (format!("cand/t{k}.pb"), 6_500_000)
        };
        files.push((name, trace(k, g, 42, &mut noise)));
    }
    let ws = load(&files);
    let req = CompareRequest {
        settings: Vec::new(),
        baseline: SideRule {
            pattern: Some("base/*".into()),
            ..SideRule::default()
        },
        candidate: SideRule {
            ids: vec![4, 5, 6, 7],
            ..SideRule::default()
        },
        params: Default::default(),
        trees: true,
    };
    let o = ws.compare(&req);
    // The outcome crosses the worker boundary as JSON unchanged.
    let json = serde_json::to_string(&o).unwrap();
    let back: CompareOutcome = serde_json::from_str(&json).unwrap();
    assert_eq!(back, o);
    let req_back: CompareRequest =
        serde_json::from_str(&serde_json::to_string(&req).unwrap()).unwrap();
    assert_eq!(req_back, req);

    let d = o.differential_tree.unwrap();
    let it = items(&d);
    let max = flame::max_abs_color(&it);
    let opts = FlameOptions {
        colors: ColorScale::Diverging { max_abs: max },
        search: "gam".into(),
        ..FlameOptions::default()
    };
    let l = flame::layout(&it, &opts);
    let gi = d.nodes.iter().position(|n| n.name == "Gamma").unwrap();
    let g = l.rects.iter().find(|r| r.item == gi).unwrap();
    assert!(g.matched && l.matches == 1);
    assert!(
        g.hover.starts_with("Gamma — shift +1.") && g.hover.contains(", q 0.0"),
        "{}",
        g.hover
    );
    // Red for slower: the largest shift in the tree is the Step/Gamma path's.
    let red = u8::from_str_radix(&g.fill[1..3], 16).unwrap();
    let blue = u8::from_str_radix(&g.fill[5..7], 16).unwrap();
    assert!(red > blue, "{}", g.fill);
    // Width ∝ baseline median: Gamma ≈ 5 ms of a total ≈ Step + Idle.
    let total: f64 = d
        .nodes
        .iter()
        .filter(|n| n.parent.is_none())
        .map(|n| n.value)
        .sum();
    assert!((g.width - 1000.0 * d.nodes[gi].value / total).abs() < 1e-9);
    // Zoom to Gamma: it spans the width, Step above it.
    let z = flame::layout(
        &it,
        &FlameOptions {
            zoom: Some(gi),
            ..FlameOptions::default()
        },
    );
    assert_eq!(z.rects.len(), 2);
    assert!(z.rects[0].ancestor && (z.rects[1].width - 1000.0).abs() < 1e-9);
}
