//! Writer-specific rules for Kineto (PyTorch profiler) and JAX/XLA traces
//! (trace-formats.md §9–10): compile-slice names, `python_function` frame names, host and rank
//! from file names.

/// True when a slice is a compile phase, for [`slice_flags::COMPILE`](crate::model::slice_flags::COMPILE)
/// (compile-triage.md, "Records may also be derived from dropped traces"; trace-formats.md §10.4).
///
/// Matches (case-sensitive, as the writers spell them):
/// * JAX/XLA: `backend_compile`, `backend_compile_and_load`, any `…::Compile` scope
///   (`PjRtCpuClient::Compile`, `JitCompiler::Compile`, `FusionCompiler::Compile`), any
///   `CpuCompiler::…` / `GpuCompiler::…` scope (`RunBackend`, `CompileCpuExecutable`),
///   `XlaCompile`, and Mosaic's bare `Compile`;
/// * torch.compile: dynamo/inductor regions — names containing `compile_id=` (the
///   `*_data: compile_id=0/0` events of `dynamo_timed`), `(dynamo_timed)`, `torch._dynamo`,
///   `compile_fx`, `inductor_compile`, `fx_codegen_and_compile`, `_compile.compile_inner`;
/// * any category that contains `compile` (e.g. a writer's own `"cat":"compile"`).
///
/// Execution (`ExecuteReplicated`, `## Call CompiledFxGraph … ##`), tracing
/// (`trace_to_jaxpr_dynamic`) and lowering (`lower_sharding_computation`) are not compile slices.
pub fn is_compile_slice(name: &str, category: &str) -> bool {
    if category.to_ascii_lowercase().contains("compile") {
        return true;
    }
    if name.starts_with("## Call Compiled") {
        return false;
    }
    matches!(
        name,
        "backend_compile" | "backend_compile_and_load" | "XlaCompile" | "Compile"
    ) || name.ends_with("::Compile")
        || name.starts_with("CpuCompiler::")
        || name.starts_with("GpuCompiler::")
        || name.contains("compile_id=")
        || name.contains("(dynamo_timed)")
        || name.contains("torch._dynamo")
        || name.contains("compile_fx")
        || name.contains("inductor_compile")
        || name.contains("fx_codegen_and_compile")
        || name.contains("_compile.compile_inner")
}

/// A Python frame name split into (file, line, function):
/// Kineto `python_function` names `"<file>(<line>): <function>"` and JAX Python-tracer names
/// `"$<file>.py:<line> <function>"`. The file is returned as written (normalize it with
/// [`normalize_path`](crate::model::normalize_path)).
pub fn parse_python_frame(name: &str) -> Option<(&str, u32, &str)> {
    if let Some(rest) = name.strip_prefix('$') {
        let (loc, func) = rest.split_once(' ')?;
        let (file, line) = loc.rsplit_once(':')?;
        let line: u32 = line.parse().ok()?;
        if file.is_empty() {
            return None;
        }
        return Some((file, line, func));
    }
    let (loc, func) = name.split_once("): ")?;
    let open = loc.rfind('(')?;
    let file = &loc[..open];
    let line: u32 = loc[open + 1..].parse().ok()?;
    if file.is_empty() {
        return None;
    }
    Some((file, line, func))
}

/// The host name a JAX/XProf file name carries: `<host>.trace.json.gz`, `<host>.trace.json`
/// or `<host>.xplane.pb` (trace-formats.md §10.1/§10.5). `perfetto_trace.json.gz` and Kineto's
/// `*.pt.trace.json*` carry none. Directories in `name` are ignored.
pub fn hostname_from_file_name(name: &str) -> Option<String> {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let host = base
        .strip_suffix(".trace.json.gz")
        .or_else(|| base.strip_suffix(".trace.json"))
        .or_else(|| base.strip_suffix(".xplane.pb"))?;
    if host.is_empty() || host.ends_with(".pt") || host == "perfetto_trace" || host.contains('.') {
        return None;
    }
    Some(host.to_string())
}

/// The host of a JAX `perfetto_trace.json.gz` from the names of the files beside it
/// (trace-formats.md §10.5: it has no host of its own; JAX writes `<host>.xplane.pb` and
/// `<host>.trace.json.gz` into the same run directory). `None` unless exactly one host name is
/// found among `siblings`.
pub fn hostname_from_siblings<'s>(siblings: impl IntoIterator<Item = &'s str>) -> Option<String> {
    let mut hosts: Vec<String> = siblings
        .into_iter()
        .filter_map(hostname_from_file_name)
        .collect();
    hosts.sort();
    hosts.dedup();
    if hosts.len() == 1 {
        hosts.pop()
    } else {
        None
    }
}

/// The rank a Kineto file name carries (`rank-3.Jan_01….pt.trace.json`, `trial_rank1.json`,
/// `rank0.trace.json.gz`): digits after `rank`, `rank-` or `rank_` at a word start.
pub fn rank_from_file_name(name: &str) -> Option<u32> {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let lower = base.to_ascii_lowercase();
    let b = lower.as_bytes();
    let mut from = 0;
    while let Some(p) = lower[from..].find("rank") {
        let at = from + p;
        from = at + 4;
        if at > 0 && b[at - 1].is_ascii_alphabetic() {
            continue;
        }
        let mut i = at + 4;
        if matches!(b.get(i), Some(b'-') | Some(b'_')) {
            i += 1;
        }
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i > start && i - start <= 9 {
            return lower[start..i].parse().ok();
        }
    }
    None
}

/// Gives every model without a rank a distinct rank not used by the others (the smallest free
/// numbers, in the order given) and records a `rank_assigned` warning in it (quirk B10: traces
/// of one job without `distributedInfo` must not collapse onto one rank). Models that already
/// have a rank are untouched. Returns how many ranks were assigned.
pub fn assign_missing_ranks(models: &mut [&mut crate::model::Model]) -> usize {
    let used: std::collections::BTreeSet<u32> = models.iter().filter_map(|m| m.info.rank).collect();
    let mut next = 0u32;
    let mut assigned = 0;
    for m in models.iter_mut() {
        if m.info.rank.is_some() {
            continue;
        }
        while used.contains(&next) {
            next += 1;
        }
        let r = next;
        next += 1;
        m.info.rank = Some(r);
        m.diagnostics.add(
            crate::model::diagnostics::Kind::RankAssigned,
            None,
            None,
            || Some(format!("rank {r}")),
        );
        assigned += 1;
    }
    assigned
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compile_names() {
        for n in [
            "backend_compile_and_load",
            "PjRtCpuClient::Compile",
            "CpuCompiler::RunBackend",
            "inductor_compile_data: fn_name=compile_fx_inner, compile_id=0/0",
            "entire_frame_compile_data: fn_name=_compile.compile_inner, compile_id=0/0",
        ] {
            assert!(is_compile_slice(n, ""), "{n}");
        }
        for n in [
            "aten::mm",
            "ExecuteReplicated.__call__",
            "## Call CompiledFxGraph abc ##",
            "lower_sharding_computation",
        ] {
            assert!(!is_compile_slice(n, "cpu_op"), "{n}");
        }
    }

    #[test]
    fn python_names() {
        assert_eq!(
            parse_python_frame("torch/nn/modules/module.py(1751): _call_impl"),
            Some(("torch/nn/modules/module.py", 1751, "_call_impl"))
        );
        assert_eq!(
            parse_python_frame("$pjit.py:309 jit_lower"),
            Some(("pjit.py", 309, "jit_lower"))
        );
        assert_eq!(parse_python_frame("nn.Module: Linear_0"), None);
    }

    #[test]
    fn names_from_files() {
        assert_eq!(
            hostname_from_file_name("a/vm.trace.json.gz"),
            Some("vm".into())
        );
        assert_eq!(hostname_from_file_name("vm.xplane.pb"), Some("vm".into()));
        assert_eq!(hostname_from_file_name("perfetto_trace.json.gz"), None);
        assert_eq!(
            hostname_from_siblings(["perfetto_trace.json.gz", "vm.xplane.pb", "vm.trace.json.gz"]),
            Some("vm".into())
        );
        assert_eq!(hostname_from_siblings(["a.xplane.pb", "b.xplane.pb"]), None);
        assert_eq!(hostname_from_file_name("rank0.pt.trace.json.gz"), None);
        assert_eq!(
            rank_from_file_name("rank-3.Jan_01_00_00_00.1234.pt.trace.json"),
            Some(3)
        );
        assert_eq!(
            rank_from_file_name("trial1_coldcache_rank1.pt.trace.json.gz"),
            Some(1)
        );
        assert_eq!(rank_from_file_name("worker_a.pt.trace.json"), None);
        assert_eq!(rank_from_file_name("franklin.json"), None);
    }
}
