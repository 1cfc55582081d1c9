//! Chunked import (issue 9): a chunk boundary anywhere never changes the result. Each JSON
//! corpus trace and quirk file is loaded through `formats::load_from` over `Chunked` sources
//! (1, 7 and 65,536 bytes per read) and whole, and the model dumps must be identical. 7- and
//! 1-byte chunks read the small files whole and a prefix of the large ones (512 KiB and
//! 16 KiB, cut after an event), so the test stays fast in debug builds.

use trialscope::formats::{self, Chunked, LoadOptions, Loaded};
use trialscope::model::{Model, StrId};

use crate::support::{corpus, read_corpus};

/// Everything the importer decides, in a deterministic order (strings by id, frames by id).
fn dump(m: &Model) -> String {
    let strings: Vec<&str> = (0..m.strings.len())
        .map(|i| m.str(StrId(i as u32)))
        .collect();
    let frames: Vec<String> = m.frames.iter().map(|(_, f)| format!("{f:?}")).collect();
    format!(
        "{strings:?}\n{:?}\n{:?}\n{:?}\n{frames:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}",
        m.tracks,
        m.slices,
        m.args,
        m.counters,
        m.processes,
        m.threads,
        m.info,
        m.stats,
        m.diagnostics.entries()
    )
}

fn load(name: &str, bytes: &[u8], chunk: usize) -> String {
    let src = Chunked { bytes, chunk };
    match formats::load_from(name, &src, &LoadOptions::default(), &mut |_| {}) {
        Ok(Loaded::Trace(a)) => dump(&a.model),
        Ok(_) => "not a trace".into(),
        Err(e) => format!("error: {e}"),
    }
}

/// Decompressed bytes of a corpus file (gzip inflated here so prefixes can be cut).
fn plain(rel: &str) -> Vec<u8> {
    let raw = read_corpus(rel);
    if raw.starts_with(&[0x1f, 0x8b]) {
        use std::io::Read;
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(&raw[..])
            .read_to_end(&mut out)
            .unwrap();
        out
    } else {
        raw
    }
}

fn json_files() -> Vec<String> {
    let mut out = Vec::new();
    for dir in ["torch_multirank", "jax_profile", "public", "quirks"] {
        let mut stack = vec![corpus(dir)];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                    continue;
                }
                let n = p.file_name().unwrap().to_string_lossy().into_owned();
                let json = n.ends_with(".json") || n.ends_with(".json.gz");
                let skip = matches!(
                    n.as_str(),
                    "summary.json" | "manifest.json" | "provenance.json" | "expected.json"
                );
                if json && !skip {
                    let root = corpus("");
                    out.push(
                        p.strip_prefix(&root)
                            .unwrap()
                            .to_string_lossy()
                            .into_owned(),
                    );
                }
            }
        }
    }
    out.sort();
    out
}

/// A prefix of about `n` bytes that ends right after an event's `},` (the rest of the file is
/// cut, as a truncated write would).
fn prefix(data: &[u8], n: usize) -> &[u8] {
    if data.len() <= n {
        return data;
    }
    let cut = data[n..]
        .windows(2)
        .position(|w| w == b"},")
        .map_or(data.len(), |p| n + p + 2);
    &data[..cut]
}

#[test]
fn chunk_boundaries_never_change_the_model() {
    let files = json_files();
    assert!(files.len() >= 20, "JSON corpus files found: {files:?}");
    for rel in &files {
        let name = rel.rsplit('/').next().unwrap().trim_end_matches(".gz");
        let data = plain(rel);
        let whole = load(name, &data, usize::MAX);
        assert!(
            load(name, &data, 65_536) == whole,
            "{rel}: chunks of 65536 bytes change the model"
        );
        for (chunk, cut) in [(7, 512 << 10), (1, 16 << 10)] {
            let head = prefix(&data, cut);
            let head_whole = if head.len() == data.len() {
                whole.clone()
            } else {
                load(name, head, usize::MAX)
            };
            assert!(
                load(name, head, chunk) == head_whole,
                "{rel}: chunks of {chunk} bytes change the model of its first {} bytes",
                head.len()
            );
        }
    }
}

/// A trace whose `traceEvents` member comes after the sniffer's 64 KiB head (here after an
/// 80 KB `otherData` object) is streamed as any trace: the loader finds the member on a pass
/// of its own (the source opened twice), instead of reading the file whole to try it as a
/// record file first. The model is the in-memory importer's, in reads of any size.
#[test]
fn a_late_trace_events_member_is_streamed() {
    struct Opens<'a>(Chunked<'a>, std::cell::Cell<usize>);
    impl formats::ByteSource for Opens<'_> {
        fn size(&self) -> u64 {
            self.0.size()
        }
        fn open(&self) -> std::io::Result<Box<dyn std::io::Read + '_>> {
            self.1.set(self.1.get() + 1);
            self.0.open()
        }
    }
    let mut text = format!(
        r#"{{"otherData":{{"note":"{}"}},"traceEvents":["#,
        "x".repeat(80_000)
    );
    for i in 0..300 {
        let sep = if i == 0 { "" } else { "," };
        text.push_str(&format!(
            r#"{sep}{{"ph":"X","name":"f{}","pid":1,"tid":{},"ts":{},"dur":5}}"#,
            i % 7,
            i % 3,
            i * 10
        ));
    }
    text.push_str("]}");
    let bytes = text.as_bytes();
    let mut m = Model::default();
    formats::testing::chrome_json_import(bytes, "late.json", &mut m, &mut |_| {}).unwrap();
    assert_eq!(m.slices.len(), 300);
    // What a load adds: the size of the text it read.
    m.stats.decompressed_bytes = bytes.len() as u64;
    let want = dump(&m);
    for chunk in [1, 7, 65_536, bytes.len()] {
        let src = Opens(Chunked { bytes, chunk }, std::cell::Cell::new(0));
        let got = match formats::load_from("late.json", &src, &LoadOptions::default(), &mut |_| {})
        {
            Ok(Loaded::Trace(a)) => dump(&a.model),
            other => panic!("reads of {chunk}: not a trace: {:?}", other.err()),
        };
        assert!(got == want, "reads of {chunk}: the model differs");
        // A pass of its own to find the member; none when the first read brought it along
        // with the head.
        let passes = if chunk == bytes.len() { 1 } else { 2 };
        assert_eq!(
            src.1.get(),
            passes,
            "reads of {chunk}: passes over the source"
        );
    }
}

/// The raw corpus file (gzip as stored) also gives the same model in small chunks.
#[test]
fn gzipped_chunks_match_whole() {
    let rel = "torch_multirank/rank0.trace.json.gz";
    let raw = read_corpus(rel);
    let whole = load("rank0.trace.json.gz", &raw, usize::MAX);
    assert_eq!(load("rank0.trace.json.gz", &raw, 7), whole);
    assert!(
        !whole.starts_with("error"),
        "{}",
        &whole[..200.min(whole.len())]
    );
}

/// A before/after check for work on the importer's speed (issue 9): the full model dump of
/// every JSON corpus trace and of the generated Kineto trace (8 MB), as SHA-256 per file,
/// written to the file named by `TRIALSCOPE_JSON_DUMPS` when it does not exist and compared
/// with it when it does. Run it on the old code, then on the new:
/// `TRIALSCOPE_JSON_DUMPS=/tmp/dumps.txt cargo test --test it json_model_dumps -- --ignored`.
#[test]
#[ignore]
fn json_model_dumps_before_and_after() {
    use sha2::{Digest, Sha256};
    let Some(path) = std::env::var_os("TRIALSCOPE_JSON_DUMPS") else {
        panic!("set TRIALSCOPE_JSON_DUMPS to the reference file");
    };
    let mut lines = Vec::new();
    let digest = |dump: String| -> String {
        Sha256::digest(dump.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    };
    for rel in json_files() {
        let name = rel.rsplit('/').next().unwrap().trim_end_matches(".gz");
        let dump = load(name, &plain(&rel), usize::MAX);
        lines.push(format!("{rel} {}", digest(dump)));
    }
    let (kineto, _) = crate::support::kineto_gen::kineto_like(8_000_000);
    let dump = load("synthetic.pt.trace.json", &kineto, usize::MAX);
    lines.push(format!("generated-kineto-8MB {}", digest(dump)));
    let now = lines.join("\n") + "\n";
    match std::fs::read_to_string(&path) {
        Ok(reference) => {
            let differ: Vec<&str> = now
                .lines()
                .filter(|l| !reference.lines().any(|r| r == *l))
                .collect();
            assert!(differ.is_empty(), "model dumps differ: {differ:#?}");
            assert_eq!(now.lines().count(), reference.lines().count());
        }
        Err(_) => std::fs::write(&path, now).unwrap(),
    }
}
