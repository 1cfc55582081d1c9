//! SHA-256 of each trace's model dump (`{:?}` of every part of the imported [`Model`] but the
//! string table and frame table, whose hash maps print in a random order; their entries are
//! printed by id instead), one line per file:
//! `HEX  FILE` (or `error  FILE: message`). A checking tool for changes that must not change
//! the model (issue #9's "the model's results do not change"), not part of the CLI: build it
//! on two trees and diff the outputs:
//! `cargo run --release --example model_dump -- FILE… > dumps.txt`.
//!
//! Arguments are printed by content, slice by slice (keys and values, a structured value as
//! its JSON text), not as set ids: the importer shares one set among events whose
//! annotations repeat, so the ids and the number of sets may change while every slice's
//! arguments stay the same.
//!
//! [`Model`]: trialscope::model::Model

use sha2::{Digest, Sha256};
use trialscope::formats::{self, LoadOptions, Loaded};
use trialscope::model::{ArgValue, FrameId, StrId};

fn main() {
    for path in std::env::args().skip(1) {
        let src = match formats::FileSource::new(&path) {
            Ok(s) => s,
            Err(e) => {
                println!("error  {path}: {e}");
                continue;
            }
        };
        match formats::load_from(&path, &src, &LoadOptions::default(), &mut |_| {}) {
            Ok(Loaded::Trace(a)) => {
                let m = &a.model;
                let mut slices = m.slices.clone();
                slices.args.clear();
                let mut text = format!(
                    "{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}",
                    m.tracks,
                    slices,
                    m.counters,
                    m.processes,
                    m.threads,
                    m.info,
                    m.stats,
                    m.diagnostics,
                    (a.format, &a.artifact_id),
                );
                for &id in &m.slices.args {
                    for (key, value) in m.args.get(id).to_vec() {
                        match value {
                            ArgValue::Nested(n) => text.push_str(&format!(
                                "{key:?}={}\n",
                                m.args.nested_text(n, &m.strings)
                            )),
                            v => text.push_str(&format!("{key:?}={v:?}\n")),
                        }
                    }
                    text.push_str(";\n");
                }
                for i in 0..m.strings.len() {
                    text.push_str(m.strings.get(StrId(i as u32)));
                    text.push('\n');
                }
                for i in 0..m.frames.len() {
                    text.push_str(&format!("{:?}\n", m.frames.get(FrameId(i as u32))));
                }
                let digest = Sha256::digest(text.as_bytes());
                let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
                println!("{hex}  {path}");
            }
            Ok(_) => println!("not-a-trace  {path}"),
            Err(e) => println!("error  {path}: {e}"),
        }
    }
}
