//! Acceptance: every Chrome JSON / Kineto / JAX file of the public corpus imports without panic
//! or fatal error, with sensible counts; the intentionally corrupt file gives a clear error.

use std::path::{Path, PathBuf};

use trialscope::formats::{self, Format};

use crate::support::corpus;

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files_under(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// Every trace-looking file in `public/` (not the provenance docs, licences, expected outputs
/// or textproto sources) imports; JSON ones give slices or counters.
#[test]
fn every_public_file_imports_or_fails_clearly() {
    let mut files = Vec::new();
    files_under(&corpus("public"), &mut files);
    let mut json_files = 0;
    for p in files {
        let fname = p.file_name().unwrap().to_string_lossy().into_owned();
        if fname.ends_with(".md")
            || fname.ends_with(".txt")
            || fname.ends_with(".textproto")
            || fname == "provenance.json"
            || fname == "manifest.json"
        {
            continue;
        }
        let bytes = std::fs::read(&p).unwrap();
        let res = formats::import(&fname, &bytes);
        if fname == "tokio_merge_conflict_corrupt.pftrace" {
            let e = res.expect_err("the corrupt file must not import");
            let msg = e.to_string();
            assert!(msg.starts_with(&fname), "{msg}");
            continue;
        }
        let a = match res {
            Ok(a) => a,
            Err(e) => {
                // Perfetto protobuf files belong to the perfetto importer; on this branch it
                // may still be a stub, but JSON files must never fail.
                let m = e.to_string();
                assert!(
                    !(fname.contains(".json") || fname.ends_with(".gz") && !fname.contains(".pb")),
                    "{fname}: {m}"
                );
                continue;
            }
        };
        if a.format == Format::ChromeJson {
            json_files += 1;
            let m = &a.model;
            eprintln!(
                "{fname}: events {} slices {} tracks {} counters {} diags {:?}",
                m.stats.events,
                m.slices.len(),
                m.tracks.len(),
                m.counters.len(),
                m.diagnostics
                    .entries()
                    .iter()
                    .map(|d| format!("{}x{}", d.kind, d.count))
                    .collect::<Vec<_>>()
            );
            assert!(m.stats.events > 0, "{fname}: no events read");
            // Either something was imported or every event was accounted for by a diagnostic.
            assert!(
                !m.slices.is_empty()
                    || !m.counters.is_empty()
                    || !m.processes.is_empty()
                    || !m.diagnostics.is_empty(),
                "{fname}: nothing imported and nothing reported"
            );
        }
    }
    assert!(json_files >= 60, "only {json_files} JSON files found");
}
