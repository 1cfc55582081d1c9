//! Call trees by semantic frame (issue 13, "flame graphs"): each node is a path of semantic
//! frame ids from a root, built from slice nesting; per trial ([`extract`]), aggregated over
//! trials (median per node, [`aggregate_tree`]), differential between a baseline and a candidate
//! side ([`differential`]: width = baseline median, colour = Hodges–Lehmann shift, q per node),
//! and coloured by each node's Spearman ρ against the trial input ([`scaling_tree`]). The
//! geometry is in `plot::flame`; this module only computes the tree and its numbers. Also the
//! folded-stack text (`a;b;c 1234`) of one trial ([`folded`]).
//!
//! Per-trial values follow scaling.md: a trial that imported completely but lacks a node
//! contributes 0; a trial with data loss contributes nothing (missing).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::analysis::compare::{self, Verdict};
use crate::analysis::stats::{self, PMethod, SpearmanExact, SpearmanMethod};
use crate::model::chunks::Chunks;
use crate::model::Model;

/// One frame of a call tree: its identity and display name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TreeFrame {
    /// `sf1:…`; for an unmatched frame `unmatched:<artifact id>:<name>` (never joined across
    /// artifacts, scaling.md).
    pub semantic_frame_id: String,
    /// Slice / function name.
    pub name: String,
}

/// One node of a trial's call tree: a path of frames from a root.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallNode {
    /// Parent node (index into [`CallTree::nodes`], always smaller than this node's); `None`
    /// for a root.
    pub parent: Option<u32>,
    /// Index into [`CallTree::frames`].
    pub frame: u32,
    /// Summed durations of the node's slices, ns.
    pub inclusive_ns: i64,
    /// Summed self times (duration minus direct children, floored at 0), ns.
    pub self_ns: i64,
    /// Number of slices.
    pub count: u64,
}

/// Nodes per chunk of [`CallTree::nodes`]: 1,024 (40 KiB). The tree is made once most slice
/// columns are freed, and in wasm32 its chunks take their room only when no larger than
/// theirs (16,384 × 4 B; with 16,384-node chunks, 640 KiB, the 1 GB Perfetto trace's `keep`
/// grew the worker's memory by 173 MB: `tools/bench/wasm_stages.js --memory`, session 27).
pub const NODE_CHUNK: usize = 1 << 10;

/// The call tree of one trial, aggregated by path: small, serializable, independent of the
/// model (the workspace keeps it, not the model).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct CallTree {
    /// Distinct frames of the tree.
    pub frames: Vec<TreeFrame>,
    /// Nodes; parents before children. Stored in chunks ([`Chunks`]: encoded as a `Vec`), so
    /// a tree of millions of nodes never needs one block of their whole size (wasm32).
    pub nodes: Chunks<CallNode, NODE_CHUNK>,
    /// The import lost data: nodes the trial lacks are missing, not 0.
    pub data_loss: bool,
}

/// The call tree of `model` (artifact `artifact_id`): every complete slice (`dur_ns ≥ 0`)
/// becomes part of the node whose path is the semantic frames of its complete ancestors
/// (nearest first up to the root) plus its own; slices of every track are merged by path.
/// An incomplete slice is skipped and its children hang under its nearest complete ancestor.
/// Self time is [`Model::self_times_ns`]'s (read through [`Model::for_each_self_time`]).
pub fn extract(model: &Model, artifact_id: &str) -> CallTree {
    let s = &model.slices;
    let n = s.len();
    let mut frames: Vec<TreeFrame> = Vec::new();
    let mut frame_index: BTreeMap<u32, u32> = BTreeMap::new();
    let mut by_sf: BTreeMap<String, u32> = BTreeMap::new();
    let mut frame_of = |fid: u32| -> u32 {
        if let Some(&k) = frame_index.get(&fid) {
            return k;
        }
        let (sf, name) = if (fid as usize) < model.frames.len() {
            let f = model.frames.get(crate::model::FrameId(fid));
            let name = model.str(f.key.name).to_string();
            if f.unmatched.is_some() {
                (format!("unmatched:{artifact_id}:{name}"), name)
            } else {
                (f.semantic_id.to_string(), name)
            }
        } else {
            (format!("unmatched:{artifact_id}:?"), String::new())
        };
        // Frames with one semantic id (e.g. unmatched names) share an entry.
        let k = *by_sf.entry(sf.clone()).or_insert_with(|| {
            frames.push(TreeFrame {
                semantic_frame_id: sf,
                name,
            });
            (frames.len() - 1) as u32
        });
        frame_index.insert(fid, k);
        k
    };
    // Two passes, so that the nodes are allocated once at their exact count: the first gives
    // every complete slice its node id (ids in order of first appearance, parents before
    // children), the second sums durations into the nodes. Room for one node per complete
    // slice up front took 40 B per slice (436 MB on a 10.9 M-slice trace) in one block that
    // the freed model columns could not hold, so wasm32's memory grew by that much; the exact
    // count in one block (338 MB, 8.4 M nodes) still did (wasm memory after `keep` 1802 MB,
    // 364 MB over the import's). In chunks ([`Chunks`]) the nodes take the room of the freed
    // columns instead: 1465 MB (`tools/bench/wasm_stages.js --memory`); with the columns in
    // chunks too and the nodes' chunks no larger than theirs ([`NODE_CHUNK`]), 1026 MB.
    let mut by_key: BTreeMap<(u32, u32), u32> = BTreeMap::new();
    // Node of each slice (u32::MAX = not yet resolved; an incomplete slice resolves to its
    // nearest complete ancestor's node, or NONE for a root).
    const UNSET: u32 = u32::MAX;
    const NONE: u32 = u32::MAX - 1;
    // In chunks, as the nodes: one 4-byte column over all slices (44 MB on a 10.9 M-slice
    // trace) in one block grew wasm32's memory by its size.
    let mut node_of: Chunks<u32> = Chunks::filled(n, UNSET);
    let mut chain: Vec<usize> = Vec::new();
    for i in 0..n {
        if node_of[i] != UNSET {
            continue;
        }
        chain.clear();
        let mut j = Some(i);
        while let Some(k) = j {
            if node_of[k] != UNSET || chain.len() > n {
                break;
            }
            chain.push(k);
            j = s.parent.get(k).map(|p| p.0 as usize).filter(|&p| p < n);
        }
        for &k in chain.iter().rev() {
            let parent_node = s
                .parent
                .get(k)
                .map(|p| p.0 as usize)
                .filter(|&p| p < n)
                .map_or(NONE, |p| node_of[p]);
            let parent_node = if parent_node == UNSET {
                NONE
            } else {
                parent_node
            };
            if s.dur_ns[k] < 0 {
                node_of[k] = parent_node;
                continue;
            }
            let f = frame_of(s.frame[k].0);
            let next = by_key.len() as u32;
            node_of[k] = *by_key.entry((parent_node, f)).or_insert(next);
        }
    }
    drop(chain);
    let mut nodes = Chunks::filled(
        by_key.len(),
        CallNode {
            parent: None,
            frame: 0,
            inclusive_ns: 0,
            self_ns: 0,
            count: 0,
        },
    );
    for (&(parent, frame), &id) in &by_key {
        let node = &mut nodes[id as usize];
        node.parent = (parent != NONE).then_some(parent);
        node.frame = frame;
    }
    drop(by_key);
    // Every addend is ≥ 0, so the saturating sums do not depend on the order of the slices.
    model.for_each_self_time(|k, self_ns| {
        if s.dur_ns[k] < 0 {
            return;
        }
        let node = &mut nodes[node_of[k] as usize];
        node.inclusive_ns = node.inclusive_ns.saturating_add(s.dur_ns[k]);
        node.self_ns = node.self_ns.saturating_add(self_ns);
        node.count += 1;
    });
    drop(node_of);
    frames.shrink_to_fit();
    CallTree {
        frames,
        nodes,
        data_loss: model.diagnostics.has_data_loss(),
    }
}

/// Folded stacks of one trial (Brendan Gregg's format, read by `inferno-flamegraph` and
/// `flamegraph.pl`): one line `root;child;leaf <self ns>` per node with self time > 0, names
/// joined by `;` from the root (a `;` or line break inside a name becomes `_`), in depth-first
/// order with siblings sorted by name. Values are integer ns of self time. The whole text in
/// memory; [`write_folded`] streams it.
pub fn folded(tree: &CallTree) -> String {
    let mut out = Vec::new();
    // Writing to a Vec cannot fail, and every piece written is UTF-8.
    let _ = write_folded(tree, &mut out);
    String::from_utf8(out).unwrap_or_default()
}

/// [`folded`], written line by line to `out`: memory holds one path (the text grows with the
/// depth squared: 40,000 nested frames are ~1.6 GB of folded text, never held).
///
/// # Errors
/// The first error of `out`.
pub fn write_folded(tree: &CallTree, out: &mut impl std::io::Write) -> std::io::Result<()> {
    let names: Vec<String> = tree
        .frames
        .iter()
        .map(|f| {
            let n: String = f
                .name
                .chars()
                .map(|c| {
                    if c == ';' || c == '\n' || c == '\r' {
                        '_'
                    } else {
                        c
                    }
                })
                .collect();
            if n.trim().is_empty() {
                "[unnamed]".to_string()
            } else {
                n
            }
        })
        .collect();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); tree.nodes.len()];
    let mut roots = Vec::new();
    for (i, nd) in tree.nodes.iter().enumerate() {
        match nd.parent {
            Some(p) => children[p as usize].push(i),
            None => roots.push(i),
        }
    }
    let name_of = |i: usize| names[tree.nodes[i].frame as usize].as_str();
    roots.sort_by(|&a, &b| (name_of(a), a).cmp(&(name_of(b), b)));
    for c in &mut children {
        c.sort_by(|&a, &b| (name_of(a), a).cmp(&(name_of(b), b)));
    }
    // Depth first: each entry is a node and the length of its parent's path, which is a
    // prefix of `path` whenever the entry is popped (its parent's subtree is being walked).
    let mut path = String::new();
    let mut stack: Vec<(usize, usize)> = roots.iter().rev().map(|&r| (r, 0)).collect();
    while let Some((i, parent_len)) = stack.pop() {
        path.truncate(parent_len);
        if parent_len > 0 {
            path.push(';');
        }
        path.push_str(name_of(i));
        let nd = &tree.nodes[i];
        if nd.self_ns > 0 {
            writeln!(out, "{path} {}", nd.self_ns)?;
        }
        let len = path.len();
        stack.extend(children[i].iter().rev().map(|&c| (c, len)));
    }
    Ok(())
}

/// What a [`FlameTree`]'s colour means.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FlameKind {
    /// One trial: no colour value.
    Single,
    /// Median over the trials of one side: no colour value.
    Median,
    /// Width = baseline median; colour = HL shift (candidate − baseline), ns.
    Differential,
    /// Width = median over all trials; colour = Spearman ρ against the input.
    Scaling,
}

/// One node of an aggregated tree.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FlameNode {
    /// Parent (index into [`FlameTree::nodes`], smaller than this node's); `None` for a root.
    pub parent: Option<usize>,
    /// 0 for a root.
    pub depth: u32,
    pub semantic_frame_id: String,
    pub name: String,
    /// The width value: median inclusive ns (of the baseline in a differential tree; of the one
    /// trial in a single tree).
    pub value: f64,
    /// Median self ns (same side as `value`).
    pub self_value: f64,
    /// Differential: the candidate's median inclusive ns.
    pub candidate_value: Option<f64>,
    /// Differential: Hodges–Lehmann shift of inclusive ns (candidate − baseline) with its CI.
    pub shift: Option<f64>,
    pub shift_ci_low: Option<f64>,
    pub shift_ci_high: Option<f64>,
    /// Differential: candidate median / baseline median.
    pub ratio: Option<f64>,
    /// Differential: Mann–Whitney p; scaling: Spearman p.
    pub p_value: Option<f64>,
    /// BH q over the tested nodes of the tree.
    pub q_value: Option<f64>,
    /// Differential: the node's verdict ([`Verdict`]; inconclusive when not tested).
    pub verdict: Option<Verdict>,
    /// Scaling: Spearman ρ of input vs inclusive ns.
    pub rho: Option<f64>,
    /// Scaling: how `p_value` was computed.
    pub rho_method: Option<SpearmanMethod>,
    /// Differential: how `p_value` was computed.
    pub p_method: Option<PMethod>,
    /// Trials that gave a value (zero-filled included).
    pub trials: usize,
}

/// An aggregated call tree, nodes in depth-first order (siblings by descending `value`, then
/// name), ready for `plot::flame`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FlameTree {
    pub kind: FlameKind,
    pub nodes: Vec<FlameNode>,
    /// Trials aggregated (both sides in a differential tree).
    pub trials: usize,
    /// Nodes given to Benjamini–Hochberg (differential, scaling).
    pub tested: usize,
}

/// Union of the trees' paths: per global node (parent, frame id, name) and per tree its local
/// node, if any.
struct Union {
    parent: Vec<Option<usize>>,
    sf: Vec<String>,
    name: Vec<String>,
    /// `local[global node][tree]` → local node index.
    local: Vec<Vec<Option<usize>>>,
}

fn union(trees: &[&CallTree]) -> Union {
    let mut u = Union {
        parent: Vec::new(),
        sf: Vec::new(),
        name: Vec::new(),
        local: Vec::new(),
    };
    let mut index: BTreeMap<(Option<usize>, String), usize> = BTreeMap::new();
    for (t, tree) in trees.iter().enumerate() {
        let mut global_of: Vec<usize> = Vec::with_capacity(tree.nodes.len());
        for (i, nd) in tree.nodes.iter().enumerate() {
            let gp = nd.parent.map(|p| global_of[p as usize]);
            let f = &tree.frames[nd.frame as usize];
            let g = *index
                .entry((gp, f.semantic_frame_id.clone()))
                .or_insert_with(|| {
                    u.parent.push(gp);
                    u.sf.push(f.semantic_frame_id.clone());
                    u.name.push(f.name.clone());
                    u.local.push(vec![None; trees.len()]);
                    u.sf.len() - 1
                });
            u.local[g][t] = Some(i);
            global_of.push(g);
        }
    }
    u
}

/// Per tree: Some(inclusive) / Some(0) zero-filled / None missing (data loss).
fn values(u: &Union, g: usize, trees: &[&CallTree], incl: bool) -> Vec<Option<f64>> {
    trees
        .iter()
        .enumerate()
        .map(|(t, tree)| match u.local[g][t] {
            Some(i) => Some(if incl {
                tree.nodes[i].inclusive_ns as f64
            } else {
                tree.nodes[i].self_ns as f64
            }),
            None if tree.data_loss => None,
            None => Some(0.0),
        })
        .collect()
}

fn present(v: &[Option<f64>]) -> Vec<f64> {
    v.iter().flatten().copied().collect()
}

fn blank(u: &Union, g: usize) -> FlameNode {
    FlameNode {
        parent: None,
        depth: 0,
        semantic_frame_id: u.sf[g].clone(),
        name: u.name[g].clone(),
        value: 0.0,
        self_value: 0.0,
        candidate_value: None,
        shift: None,
        shift_ci_low: None,
        shift_ci_high: None,
        ratio: None,
        p_value: None,
        q_value: None,
        verdict: None,
        rho: None,
        rho_method: None,
        p_method: None,
        trials: 0,
    }
}

/// Orders `nodes` (indexed as the union) depth-first with siblings by descending value, then
/// name, then id; rewrites `parent` and `depth`.
fn order(u: &Union, mut nodes: Vec<FlameNode>) -> Vec<FlameNode> {
    let n = nodes.len();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut roots = Vec::new();
    for g in 0..n {
        match u.parent[g] {
            Some(p) => children[p].push(g),
            None => roots.push(g),
        }
    }
    let sort = |v: &mut Vec<usize>, nodes: &[FlameNode]| {
        v.sort_by(|&a, &b| {
            nodes[b]
                .value
                .total_cmp(&nodes[a].value)
                .then_with(|| nodes[a].name.cmp(&nodes[b].name))
                .then_with(|| nodes[a].semantic_frame_id.cmp(&nodes[b].semantic_frame_id))
        })
    };
    sort(&mut roots, &nodes);
    for c in children.iter_mut() {
        sort(c, &nodes);
    }
    let mut new_index = vec![0usize; n];
    let mut out_order = Vec::with_capacity(n);
    let mut stack: Vec<(usize, Option<usize>, u32)> =
        roots.iter().rev().map(|&r| (r, None, 0)).collect();
    while let Some((g, parent, depth)) = stack.pop() {
        new_index[g] = out_order.len();
        out_order.push((g, parent, depth));
        for &c in children[g].iter().rev() {
            stack.push((c, Some(new_index[g]), depth + 1));
        }
    }
    let mut slots: Vec<Option<FlameNode>> = nodes.drain(..).map(Some).collect();
    out_order
        .into_iter()
        .filter_map(|(g, parent, depth)| {
            let mut nd = slots[g].take()?;
            nd.parent = parent;
            nd.depth = depth;
            Some(nd)
        })
        .collect()
}

/// The tree of one trial (value = its inclusive ns).
pub fn single(tree: &CallTree) -> FlameTree {
    let mut t = aggregate_tree(&[tree]);
    t.kind = FlameKind::Single;
    t
}

/// The median tree of the trials of one side: per node, the median over the trials of its
/// inclusive and self ns (zero-filled / missing as scaling.md). Medians are not additive, so a
/// node's children can sum to more than the node; `plot::flame` scales them to fit.
pub fn aggregate_tree(trees: &[&CallTree]) -> FlameTree {
    let u = union(trees);
    let nodes = (0..u.sf.len())
        .map(|g| {
            let v = present(&values(&u, g, trees, true));
            let s = present(&values(&u, g, trees, false));
            FlameNode {
                value: stats::median(&v).unwrap_or(0.0),
                self_value: stats::median(&s).unwrap_or(0.0),
                trials: v.len(),
                ..blank(&u, g)
            }
        })
        .collect();
    FlameTree {
        kind: FlameKind::Median,
        nodes: order(&u, nodes),
        trials: trees.len(),
        tested: 0,
    }
}

/// The differential tree of two sides: width = the baseline median inclusive ns, and per node
/// the comparison of inclusive ns exactly as [`compare::run`] makes it for a frame (Mann–Whitney
/// p, Hodges–Lehmann shift and CI, ratio; BH q over the nodes with ≥ `min_trials` values per
/// side whose pooled median reaches `params.floor_ns`; the verdict). Nodes only the candidate
/// has get width 0 (the geometry still shows them as slivers).
pub fn differential(
    baseline: &[&CallTree],
    candidate: &[&CallTree],
    params: &compare::Params,
) -> FlameTree {
    let all: Vec<&CallTree> = baseline.iter().chain(candidate).copied().collect();
    let u = union(&all);
    let nb = baseline.len();
    let min_trials = params.min_trials.max(3);
    let mut nodes = Vec::with_capacity(u.sf.len());
    let mut tested: Vec<(usize, compare::Stats)> = Vec::new();
    for g in 0..u.sf.len() {
        let v = values(&u, g, &all, true);
        let sv = values(&u, g, &all, false);
        let b = present(&v[..nb]);
        let c = present(&v[nb..]);
        let pooled: Vec<f64> = b.iter().chain(&c).copied().collect();
        let mut nd = FlameNode {
            value: stats::median(&b).unwrap_or(0.0),
            self_value: stats::median(&present(&sv[..nb])).unwrap_or(0.0),
            candidate_value: stats::median(&c),
            trials: pooled.len(),
            verdict: Some(Verdict::Inconclusive),
            ..blank(&u, g)
        };
        if b.len() >= 2 && c.len() >= 2 {
            let s = compare::row_stats(&b, &c, params);
            nd.shift = s.shift.map(|h| h.estimate);
            nd.shift_ci_low = s.shift.map(|h| h.ci_low);
            nd.shift_ci_high = s.shift.map(|h| h.ci_high);
            nd.ratio = s.ratio;
            nd.p_value = s.mw.map(|m| m.p_value);
            nd.p_method = s.mw.map(|m| m.method);
            let in_family = b.len() >= min_trials
                && c.len() >= min_trials
                && stats::median(&pooled).is_some_and(|m| m >= params.floor_ns)
                && nd.p_value.is_some();
            if in_family {
                tested.push((g, s));
            }
        }
        nodes.push(nd);
    }
    let ps: Vec<f64> = tested
        .iter()
        .filter_map(|(g, _)| nodes[*g].p_value)
        .collect();
    let qs = stats::benjamini_hochberg(&ps);
    for ((g, s), q) in tested.iter().zip(qs) {
        nodes[*g].q_value = Some(q);
        nodes[*g].verdict =
            Some(compare::verdict(s, q, crate::analysis::scaling::Metric::Inclusive, params).0);
    }
    FlameTree {
        kind: FlameKind::Differential,
        nodes: order(&u, nodes),
        trials: all.len(),
        tested: tested.len(),
    }
}

/// The scaling tree: width = the median inclusive ns over all trials, colour = Spearman ρ of
/// the trial input against the node's inclusive ns, with the exact permutation p for n ≤ 10
/// ([`stats::spearman_test`]) and BH q over the nodes with a defined ρ and ≥ 3 values, so the
/// subtree whose cost grows stands out from its parents. `trees` pairs each trial's tree with
/// its input (finite inputs only; others are skipped).
pub fn scaling_tree(trees: &[(&CallTree, f64)]) -> FlameTree {
    let usable: Vec<(&CallTree, f64)> = trees
        .iter()
        .filter(|(_, x)| x.is_finite())
        .copied()
        .collect();
    let ts: Vec<&CallTree> = usable.iter().map(|t| t.0).collect();
    let u = union(&ts);
    let mut cache = SpearmanExact::new();
    let mut nodes = Vec::with_capacity(u.sf.len());
    let mut tested = Vec::new();
    for g in 0..u.sf.len() {
        let v = values(&u, g, &ts, true);
        let s = present(&values(&u, g, &ts, false));
        let (xs, ys): (Vec<f64>, Vec<f64>) = v
            .iter()
            .zip(&usable)
            .filter_map(|(v, t)| v.map(|v| (t.1, v)))
            .unzip();
        let mut nd = FlameNode {
            value: stats::median(&ys).unwrap_or(0.0),
            self_value: stats::median(&s).unwrap_or(0.0),
            trials: ys.len(),
            ..blank(&u, g)
        };
        if let Some((rho, p, m)) = stats::spearman_test(&xs, &ys, &mut cache) {
            nd.rho = Some(rho);
            nd.p_value = Some(p);
            nd.rho_method = Some(m);
            tested.push(g);
        }
        nodes.push(nd);
    }
    let ps: Vec<f64> = tested.iter().filter_map(|&g| nodes[g].p_value).collect();
    for (&g, q) in tested.iter().zip(stats::benjamini_hochberg(&ps)) {
        nodes[g].q_value = Some(q);
    }
    FlameTree {
        kind: FlameKind::Scaling,
        nodes: order(&u, nodes),
        trials: ts.len(),
        tested: tested.len(),
    }
}
