//! Real PyTorch (Kineto) and JAX traces from the corpus import with sensible contents:
//! compile slices, rank/world size from `distributedInfo`, memory series, collectives,
//! Python frames, exact timestamps and big integers.

use trialscope::formats::{self, Artifact};
use trialscope::model::{slice_flags, ArgValue, Model};

use crate::support::corpus;

fn load(rel: &str) -> Artifact {
    let p = corpus(rel);
    let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let name = p.file_name().unwrap().to_string_lossy().into_owned();
    formats::import(&name, &bytes).unwrap_or_else(|e| panic!("{e}"))
}

fn names_with_flag(m: &Model, flag: u8) -> Vec<&str> {
    (0..m.slices.len())
        .filter(|&i| m.slices.flags[i] & flag != 0)
        .map(|i| m.str(m.slices.name[i]))
        .collect()
}

fn count_named(m: &Model, name: &str) -> usize {
    m.slices.name.iter().filter(|&&n| m.str(n) == name).count()
}

#[test]
fn jax_trials_have_compile_slices_and_shared_frames() {
    let mut ids = Vec::new();
    for t in 1..=3 {
        let a = load(&format!("public/local-jax/trial{t}_perfetto_trace.json.gz"));
        let m = &a.model;
        assert!(m.slices.len() > 13_000, "trial {t}: {}", m.slices.len());
        let compile = names_with_flag(m, slice_flags::COMPILE);
        // Same counts as a Python json.load of the file gives (3 each).
        for n in [
            "backend_compile_and_load",
            "PjRtCpuClient::Compile",
            "CpuCompiler::RunBackend",
        ] {
            assert_eq!(
                compile.iter().filter(|&&c| c == n).count(),
                3,
                "trial {t} {n}"
            );
        }
        assert!(!compile.iter().any(|n| n.starts_with("PjitFunction")));
        assert!(count_named(m, "PjitFunction(matmul)") > 0);
        assert!(m.processes.values().any(|p| m.str(p.name) == "/host:CPU"));
        // JAX Python tracer names `$file.py:line func` give Python frame fields.
        let py = (0..m.slices.len())
            .find(|&i| m.str(m.slices.name[i]).starts_with("$pjit.py:"))
            .map(|i| m.frames.get(m.slices.frame[i]).key.clone());
        if let Some(k) = py {
            assert!(k.file.is_some() && k.line.is_some() && k.function.is_some());
        }
        let i = (0..m.slices.len())
            .find(|&i| m.str(m.slices.name[i]) == "backend_compile_and_load")
            .unwrap();
        ids.push(m.frames.get(m.slices.frame[i]).semantic_id);
    }
    // The same code in three separately captured traces has one semantic frame id.
    assert_eq!(ids[0], ids[1]);
    assert_eq!(ids[1], ids[2]);
}

#[test]
fn jax_profile_host_from_file_name() {
    let a = load("jax_profile/plugins/profile/2026_11_29_10_17_55/vm.trace.json.gz");
    assert_eq!(a.model.info.hostname.as_deref(), Some("vm"));
    assert!(names_with_flag(&a.model, slice_flags::COMPILE).contains(&"backend_compile_and_load"));
    let b = load("jax_profile/plugins/profile/2026_11_29_10_17_55/perfetto_trace.json.gz");
    // perfetto_trace.json.gz has no host of its own and its name gives none.
    assert_eq!(b.model.info.hostname, None);
    assert_eq!(a.model.slices.len(), b.model.slices.len());
    assert_eq!(a.model.stats.events, 85_921);
}

#[test]
fn pytorch_trials_rank_memory_compile_collectives() {
    for (trial, compiled) in [
        ("trial1_coldcache", true),
        ("trial2_warmcache", false),
        ("trial3_cachesdisabled", true),
    ] {
        for rank in 0..2u32 {
            let a = load(&format!(
                "public/local-pytorch/{trial}_rank{rank}.pt.trace.json.gz"
            ));
            let m = &a.model;
            assert_eq!(m.info.rank, Some(rank));
            assert_eq!(m.info.world_size, Some(2));
            assert_eq!(m.info.backend.as_deref(), Some("gloo"));
            assert_eq!(m.info.hostname.as_deref(), Some("vm"));
            let mem = m
                .counters
                .iter()
                .find(|c| m.str(c.name) == "cpu allocated")
                .expect("memory series");
            assert_eq!(m.str(mem.unit), "bytes");
            // One sample per `[memory]` event in the text.
            let path = corpus(&format!(
                "public/local-pytorch/{trial}_rank{rank}.pt.trace.json.gz"
            ));
            let gz = std::fs::read(path).unwrap();
            let mut text = Vec::new();
            std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&gz[..]), &mut text)
                .unwrap();
            let n_mem = text.windows(8).filter(|w| w == b"[memory]").count();
            assert!(n_mem > 200);
            assert_eq!(mem.ts_ns.len(), n_mem);
            assert!(mem.ts_ns.windows(2).all(|w| w[0] <= w[1]));
            let compile = names_with_flag(m, slice_flags::COMPILE);
            let inductor = compile.iter().any(|n| n.starts_with("inductor_compile"));
            assert_eq!(inductor, compiled, "{trial} rank {rank}");
            assert!(compile.iter().any(|n| n.contains("compile_id=")));
            let coll = names_with_flag(m, slice_flags::COLLECTIVE);
            assert_eq!(coll.iter().filter(|&&n| n == "gloo:all_reduce").count(), 20);
            assert!(coll.contains(&"c10d::allreduce_"));
            assert!(!coll.contains(&"aten::mm"));
            // baseTimeNanoseconds puts slices on the Unix-epoch ns timeline (2026).
            let t0 = *m.slices.ts_ns.iter().min().unwrap();
            assert!(t0 > 1_790_857_026_000_000_000, "{t0}");
        }
    }
}

#[test]
fn torch_multirank_four_ranks() {
    for rank in 0..4u32 {
        let a = load(&format!("torch_multirank/rank{rank}.trace.json.gz"));
        let m = &a.model;
        assert_eq!((m.info.rank, m.info.world_size), (Some(rank), Some(4)));
        let mem = m
            .counters
            .iter()
            .find(|c| m.str(c.name) == "cpu allocated")
            .unwrap();
        // Peak Total Allocated per MANIFEST.md: the 128 MB tensor + its 128 MB temporary.
        let peak = mem.value.iter().cloned().fold(0.0, f64::max);
        assert_eq!(peak, 268_435_468.0);
        let coll = names_with_flag(m, slice_flags::COLLECTIVE);
        assert_eq!(coll.iter().filter(|&&n| n == "gloo:all_reduce").count(), 19);
        assert_eq!(coll.iter().filter(|&&n| n == "gloo:broadcast").count(), 3);
        // python_function frames carry normalized file, line and function.
        let i = (0..m.slices.len())
            .find(|&i| m.str(m.slices.name[i]) == "multiprocessing/spawn.py(122): spawn_main")
            .unwrap();
        let k = &m.frames.get(m.slices.frame[i]).key;
        assert_eq!(k.file.map(|f| m.str(f)), Some("multiprocessing/spawn.py"));
        assert_eq!(k.line, Some(122));
        assert_eq!(k.function.map(|f| m.str(f)), Some("spawn_main"));
    }
}

#[test]
fn hta_nccl_kernels_are_collectives() {
    let a = load("public/hta/nccl_data.json.gz");
    let m = &a.model;
    assert_eq!(m.info.backend.as_deref(), Some("nccl"));
    let coll = names_with_flag(m, slice_flags::COLLECTIVE);
    assert!(coll.iter().any(|n| n.starts_with("ncclKernel_AllReduce")));
    assert!(coll.iter().any(|n| n.starts_with("ncclKernel_Broadcast")));
    let s0 = load("public/hta/sampled_rank-0.json.gz");
    assert_eq!(s0.model.info.world_size, Some(128));
    assert_eq!(s0.model.info.rank, Some(0));
}

#[test]
fn nanosecond_timestamps_beyond_f64_are_exact() {
    let a = load("public/hta/ns_resolution_rank-0.pt.trace.json.gz");
    // `"ts": 1712195495519689.047` in the file; f64 would give …689.047 ± 0.125 µs.
    assert!(a.model.slices.ts_ns.contains(&1_712_195_495_519_689_047));
    assert!(a.model.slices.ts_ns.contains(&1_712_195_495_519_695_812));
}

#[test]
fn integers_beyond_i64_in_args_are_kept() {
    let a = load("public/hta/large_integer_rank-70.pt.trace.json.gz");
    let m = &a.model;
    assert_eq!(m.info.rank, Some(70));
    let i = (0..m.slices.len())
        .find(|&i| m.str(m.slices.name[i]) == "record_param_comms")
        .unwrap();
    let args = m.args.get(m.slices.args[i]).to_vec();
    assert!(args
        .iter()
        .any(|(k, v)| m.str(*k) == "Comms Id" && *v == ArgValue::UInt(10_159_970_886_766_084_423)));
    assert_eq!(names_with_flag(m, slice_flags::COLLECTIVE).len(), 2);
}

#[test]
fn old_2021_memory_schema_is_reconstructed() {
    let a = load("public/kineto/resnet50_worker0_2021.pt.trace.json.gz");
    let m = &a.model;
    let names: Vec<&str> = m.counters.iter().map(|c| m.str(c.name)).collect();
    assert!(names.iter().any(|n| n.ends_with(" allocated")), "{names:?}");
    assert!(m.diagnostics.count("memory_total_reconstructed") > 12_000);
}
