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
}
