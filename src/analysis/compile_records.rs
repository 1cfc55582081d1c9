//! Compile records from a trace's compile slices: the compile triage's `extract`
//! (compile-triage.md, "Input: compile records"; JAX `backend_compile_and_load`, torch.compile /
//! Inductor regions). Re-exported as [`super::compile_triage::extract`].

use std::collections::BTreeMap;

use crate::model::compile_record::{CacheState, CompileRecord, RecordLocation, Timestamp};
use crate::model::facts::{base_name, Facts};
use crate::model::{slice_flags, ArgRef, Model};

/// The cache state a file name states, with the reason: `cold` for names containing `cold`;
/// `warm` for `warm`; `warm` also for `cachesdisabled` / `cache_disabled` / `nocache` — a repeat
/// run that was expected to hit (as in the corpus `cache_regression` set, whose cache-less runs
/// keep the `warm` label), so a disabled cache shows up as drift instead of being hidden.
pub fn cache_state_from_file_name(file_name: &str) -> Option<(CacheState, &'static str)> {
    let base = base_name(file_name).to_ascii_lowercase();
    if base.contains("cold") {
        Some((CacheState::Cold, "file name says cold"))
    } else if base.contains("warm") {
        Some((CacheState::Warm, "file name says warm"))
    } else if [
        "cachesdisabled",
        "cachedisabled",
        "cache_disabled",
        "nocache",
        "no_cache",
    ]
    .iter()
    .any(|w| base.contains(w))
    {
        Some((
            CacheState::Warm,
            "file name says caches disabled: treated as a warm re-run that should have hit",
        ))
    } else {
        None
    }
}

/// The triage's input from one trace (compile-triage.md, "Input: compile records"): compile
/// records derived from the compile slices of `model` (slices flagged [`slice_flags::COMPILE`]
/// by the importer), located in `facts.name`.
///
/// One record per *outermost* compile slice: a compile slice with no compile ancestor on its
/// track and not lying within another such slice's interval on another thread of the same
/// process (XLA compiler threads working for JAX's `backend_compile_and_load` are part of that
/// compile, not a second one). torch `*_data: compile_id=…` markers are skipped. `compile_s` is
/// the slice's duration in seconds (incomplete slices are skipped). The cell is the compiled
/// function's name — the first `name` argument of a compile slice within the interval (XLA
/// `CpuCompiler::RunBackend {name: jit_loss}`) — else `<root slice> › <compile slice>` (e.g.
/// `compiled_step_0 › _compile.compile_inner (dynamo_timed)`) when the compile runs inside
/// another slice, else the slice name; repeats within the file get ` #2`, ` #3`, … in time
/// order. Key fields: `hostname` from `facts.hostname` (the trace's own, else its siblings'), else `model.info.hostname`; `cache_state` from the file name
/// ([`cache_state_from_file_name`]); `transform` `torch.compile` for dynamo/inductor/aot regions
/// and `jit` otherwise; `jax_version` from metadata `jax_version` / `framework_version` /
/// `pytorch_version` when the trace has it; hardware and precision are left unknown for the
/// user ([`crate::model::compile_record::KeyDefaults`]). The timestamp is the slice start when it is already epoch time
/// (≥ 2001, as the JSON importer makes Kineto times), else `baseTimeNanoseconds` + start when
/// the metadata has a base, else unknown.
pub fn extract(model: &Model, facts: &Facts) -> Vec<CompileRecord> {
    let file_name = facts.name.as_str();
    let s = &model.slices;
    let n = s.len();
    let is_compile = |i: usize| s.flags[i] & slice_flags::COMPILE != 0;
    // Walk up to the root, bounded in case of malformed parent links.
    let ancestors = |i: usize| {
        let mut out = Vec::new();
        let mut cur = s.parent.get(i);
        while let Some(p) = cur {
            let p = p.0 as usize;
            if p >= n || out.len() > 4096 {
                break;
            }
            out.push(p);
            cur = s.parent.get(p);
        }
        out
    };
    let base_ns: Option<i64> = model
        .info
        .metadata
        .get("baseTimeNanoseconds")
        .and_then(|v| v.trim().parse::<i64>().ok());
    let version = ["jax_version", "framework_version", "pytorch_version"]
        .iter()
        .find_map(|k| model.info.metadata.get(*k).cloned());
    let cache = cache_state_from_file_name(file_name);

    let pid_of = |i: usize| model.tracks.get(s.track[i].0 as usize).and_then(|t| t.pid);
    let end_of = |i: usize| s.ts_ns[i].saturating_add(s.dur_ns[i]);
    // All compile slices that are compile work, and the outermost ones per track.
    let mut work: Vec<usize> = Vec::new();
    let mut outer: Vec<(usize, usize)> = Vec::new(); // (slice, root)
    for i in 0..n {
        if !is_compile(i) || s.dur_ns[i] < 0 || s.flags[i] & slice_flags::INCOMPLETE != 0 {
            continue;
        }
        // torch `dynamo_timed` metadata markers (`<phase>_data: compile_id=0/0`) are µs-long
        // annotations about a compile, not compile work.
        let nm = model.str(s.name[i]);
        if nm.contains("_data: ") && nm.contains("compile_id=") {
            continue;
        }
        work.push(i);
        let anc = ancestors(i);
        if anc.iter().any(|&a| is_compile(a)) {
            continue;
        }
        let root = anc.last().copied().unwrap_or(i);
        outer.push((i, root));
    }
    // Longer first at equal start, so that a container precedes what it contains.
    outer.sort_by_key(|&(i, _)| (s.ts_ns[i], std::cmp::Reverse(s.dur_ns[i]), i));
    work.sort_by_key(|&i| (s.ts_ns[i], i));
    // A compile slice on another thread of the same process that lies within an outer compile
    // slice's interval is part of that compile (XLA compiler threads under JAX's
    // `backend_compile_and_load`): drop it instead of counting the compile twice.
    let mut open: BTreeMap<Option<i64>, i64> = BTreeMap::new(); // pid → end of current container
    outer.retain(|&(i, _)| {
        let e = open.entry(pid_of(i)).or_insert(i64::MIN);
        if end_of(i) <= *e {
            false
        } else {
            *e = end_of(i);
            true
        }
    });

    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut records = Vec::with_capacity(outer.len());
    for (index, (i, root)) in outer.into_iter().enumerate() {
        let name = model.str(s.name[i]).to_string();
        // The compiled function's name: the first `name` argument of a compile slice inside this
        // one's interval in the same process (XLA `CpuCompiler::RunBackend {name: jit_loss}`).
        let from = work.partition_point(|&j| s.ts_ns[j] < s.ts_ns[i]);
        let arg_name = work[from..]
            .iter()
            .take_while(|&&j| s.ts_ns[j] <= end_of(i))
            .take(10_000)
            .filter(|&&j| end_of(j) <= end_of(i) && pid_of(j) == pid_of(i))
            .find_map(|&j| name_arg(model, j));
        let base_cell = match arg_name {
            Some(a) if !a.is_empty() => a,
            _ if root != i => format!("{} › {}", model.str(s.name[root]), name),
            _ => name.clone(),
        };
        let k = seen.entry(base_cell.clone()).or_insert(0);
        *k += 1;
        let cell = if *k > 1 {
            format!("{base_cell} #{k}")
        } else {
            base_cell
        };
        let mut r = CompileRecord::new(RecordLocation {
            file: file_name.to_string(),
            index,
            line: None,
        });
        let lower = name.to_ascii_lowercase();
        let torch = [
            "dynamo",
            "inductor",
            "aot",
            "compile_fx",
            "backward_compile",
        ]
        .iter()
        .any(|w| lower.contains(w))
            || name.contains("Torch-Compiled");
        r.transform = Some(if torch { "torch.compile" } else { "jit" }.to_string());
        r.cell = Some(cell);
        r.compile_s = Some(s.dur_ns[i] as f64 / 1e9);
        r.hostname = facts
            .hostname
            .clone()
            .or_else(|| model.info.hostname.clone())
            .filter(|h| !h.is_empty());
        r.jax_version = version.clone();
        if let Some((c, why)) = cache {
            r.cache_state = Some(c);
            r.extra
                .insert("cache_state_source".into(), format!("{why:?}"));
        }
        let ts = s.ts_ns[i];
        let unix_ns = if ts >= 978_307_200_000_000_000 {
            Some(ts)
        } else {
            base_ns.and_then(|b| b.checked_add(ts))
        };
        r.timestamp = unix_ns.map(Timestamp::from_unix_ns);
        r.extra.insert("slice".into(), format!("{name:?}"));
        records.push(r);
    }
    records
}

/// The text of a slice's `name` argument, when it has a non-empty one.
fn name_arg(model: &Model, i: usize) -> Option<String> {
    model
        .args
        .get(model.slices.args[i])
        .iter()
        .find_map(|(k, v)| {
            (model.str(k) == "name")
                .then(|| match v {
                    ArgRef::Str(id) => Some(model.str(id).to_string()),
                    ArgRef::Text(t) => Some(t.to_string()),
                    ArgRef::Nested(n) => Some(model.args.nested_text(n, &model.strings)),
                    _ => None,
                })
                .flatten()
        })
        .filter(|n| !n.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::compile_record::KeyDefaults;
    use crate::model::{ArgsId, FrameId, SliceBuilder, SliceEvents, Track, TrackKind};

    /// A model with torch.compile-like compile slices nested inside a step annotation.
    fn torch_like_model(dynamo_s: f64, bwd_s: Option<f64>) -> Model {
        let mut m = Model::default();
        let tname = m.strings.intern("python");
        let track = m.add_track(Track {
            name: tname,
            kind: TrackKind::Thread,
            pid: Some(1),
            tid: Some(1),
            parent: None,
            overflow_of: None,
        });
        m.info.hostname = Some("vm".into());
        m.info
            .metadata
            .insert("baseTimeNanoseconds".into(), "1790857026000000000".into());
        let step = m.strings.intern("compiled_step_0");
        let dynamo = m.strings.intern("dynamo");
        let inner = m.strings.intern("inductor_compile");
        let bwd = m.strings.intern("entire_backward_compile");
        let cat = m.strings.intern("cpu_op");
        let mut b = SliceBuilder::new();
        let s = 1_000_000_000i64;
        let total = ((dynamo_s + bwd_s.unwrap_or(0.0) + 1.0) * 1e9) as i64;
        b.complete(track, s, total, step, cat, FrameId(0), ArgsId(0), 0);
        let d = (dynamo_s * 1e9) as i64;
        b.complete(
            track,
            s + 1000,
            d,
            dynamo,
            cat,
            FrameId(0),
            ArgsId(0),
            slice_flags::COMPILE,
        );
        b.complete(
            track,
            s + 2000,
            d / 2,
            inner,
            cat,
            FrameId(0),
            ArgsId(0),
            slice_flags::COMPILE,
        );
        if let Some(bw) = bwd_s {
            b.complete(
                track,
                s + d + 5000,
                (bw * 1e9) as i64,
                bwd,
                cat,
                FrameId(0),
                ArgsId(0),
                slice_flags::COMPILE,
            );
        }
        b.finish(&mut m);
        m
    }

    #[test]
    fn records_from_compile_slices() {
        let m = torch_like_model(23.4, Some(1.8));
        let rs = extract(&m, &Facts::alone("trial1_coldcache_rank0.pt.trace.json.gz"));
        // Outermost compile slices only: the nested inductor_compile is part of dynamo.
        assert_eq!(rs.len(), 2);
        assert_eq!(rs[0].cell.as_deref(), Some("compiled_step_0 › dynamo"));
        assert_eq!(rs[0].compile_s, Some(23.4));
        assert_eq!(rs[0].cache_state, Some(CacheState::Cold));
        assert_eq!(rs[0].transform.as_deref(), Some("torch.compile"));
        assert_eq!(rs[0].hostname.as_deref(), Some("vm"));
        assert_eq!(
            rs[0].timestamp.as_ref().unwrap().unix_ns,
            1_790_857_027_000_001_000
        );
        assert_eq!(
            rs[1].cell.as_deref(),
            Some("compiled_step_0 › entire_backward_compile")
        );
        // Hardware, version and precision are for the user to fill in.
        assert_eq!(
            rs[0].missing_fields(),
            vec!["hardware", "jax_version", "precision"]
        );
        let fill = KeyDefaults {
            hardware: Some("cpu".into()),
            jax_version: Some("2.15.0".into()),
            precision: Some("fp32".into()),
            ..KeyDefaults::default()
        };
        let mut r = rs[0].clone();
        fill.fill(&mut r);
        assert!(r.full_key().is_some());
        assert_eq!(
            cache_state_from_file_name("x/trial3_cachesdisabled_rank0.json").map(|c| c.0),
            Some(CacheState::Warm)
        );
        assert_eq!(cache_state_from_file_name("trace.json"), None);
    }
}
