//! The wire form of a [`Prepared`] file: how an import worker hands its result to the session
//! worker (`src/ui/worker.rs`), as compact binary over the types' own serde derives.
//!
//! Layout: the 5 bytes [`MAGIC`] (`TSPW` + format version), then `Result<Prepared, String>` in
//! [postcard](https://docs.rs/postcard)'s encoding (varint integers, length-prefixed strings
//! and sequences, fields in declaration order, no names). postcard is not self-describing, so
//! every type reachable from [`Prepared`] must serialize with known lengths and deserialize
//! without `deserialize_any`: no `#[serde(flatten)]`, `untagged` or `skip_serializing_if`
//! (checked by the round-trip tests below on real corpus files of every kind).
//!
//! Compared with `serde_json` of the same value (measured by `wire_sizes_of_corpus_files`
//! and docs/benchmarks.md "Browser at scale (2026-12-01)"): the call tree's nodes (parent
//! index, frame index, three integers) shrink from ~70 bytes of JSON each to ~10–15 bytes.
//! [`encode_chunks`] writes the encoding in fixed-size pieces to a sink, so the encoder never
//! holds the whole encoding (the worker turns the pieces into the parts of one `Blob`).

use postcard::ser_flavors::Flavor;

use super::Prepared;

/// Leading bytes of the wire form: `TSPW` and the format version (2 since the kept counters
/// are packed, [`crate::analysis::collective_memory::KeptCounter`]). A payload of another
/// version is refused with a message rather than misread.
pub const MAGIC: &[u8; 5] = b"TSPW\x02";

/// Piece size [`encode_chunks`] uses in the browser (8 MiB, as the file reads).
pub const CHUNK_BYTES: usize = 8 << 20;

/// A postcard output that hands every full `chunk`-byte piece to `sink`.
struct Chunked<'s> {
    buf: Vec<u8>,
    chunk: usize,
    total: u64,
    sink: &'s mut dyn FnMut(&[u8]),
}

impl Chunked<'_> {
    fn flush(&mut self) {
        if !self.buf.is_empty() {
            (self.sink)(&self.buf);
            self.total += self.buf.len() as u64;
            self.buf.clear();
        }
    }
}

impl Flavor for Chunked<'_> {
    type Output = u64;

    fn try_extend(&mut self, mut data: &[u8]) -> postcard::Result<()> {
        while !data.is_empty() {
            let room = self.chunk - self.buf.len();
            let n = room.min(data.len());
            self.buf.extend_from_slice(&data[..n]);
            data = &data[n..];
            if self.buf.len() >= self.chunk {
                self.flush();
            }
        }
        Ok(())
    }

    fn try_push(&mut self, b: u8) -> postcard::Result<()> {
        self.buf.push(b);
        if self.buf.len() >= self.chunk {
            self.flush();
        }
        Ok(())
    }

    fn finalize(mut self) -> postcard::Result<u64> {
        self.flush();
        Ok(self.total)
    }
}

/// Encodes `prepared` ([`MAGIC`] then postcard), handing it to `sink` in pieces of
/// `chunk_bytes` (the last one shorter; at least 1 byte per piece). Returns the total length,
/// bytes. Errors: a type that postcard cannot encode (a sequence of unknown length), as text.
pub fn encode_chunks(
    prepared: &Result<Prepared, String>,
    chunk_bytes: usize,
    sink: &mut dyn FnMut(&[u8]),
) -> Result<u64, String> {
    let chunk = chunk_bytes.max(1);
    let mut out = Chunked {
        buf: Vec::with_capacity(chunk.min(CHUNK_BYTES)),
        chunk,
        total: 0,
        sink,
    };
    out.try_extend(MAGIC).map_err(|e| e.to_string())?;
    postcard::serialize_with_flavor(prepared, out).map_err(|e| e.to_string())
}

/// [`encode_chunks`] into one buffer.
pub fn encode(prepared: &Result<Prepared, String>) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    encode_chunks(prepared, CHUNK_BYTES, &mut |p| bytes.extend_from_slice(p))?;
    Ok(bytes)
}

/// Decodes what [`encode_chunks`] wrote. The outer error says why the bytes are no wire form
/// of this version (another magic or version, truncated, trailing bytes, a bad encoding); the
/// inner `Result` is the import's own outcome. Never panics on arbitrary bytes.
pub fn decode(bytes: &[u8]) -> Result<Result<Prepared, String>, String> {
    let body = bytes
        .strip_prefix(MAGIC.as_slice())
        .ok_or("not a prepared file of this version (wrong leading bytes)")?;
    let (value, rest) = postcard::take_from_bytes::<Result<Prepared, String>>(body)
        .map_err(|e| format!("the prepared file is damaged: {e}"))?;
    if !rest.is_empty() {
        return Err(format!(
            "the prepared file is damaged: {} bytes after its end",
            rest.len()
        ));
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::LoadOptions;

    const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus");

    fn prepare(rel: &str) -> Result<Prepared, String> {
        let path = format!("{CORPUS}/{rel}");
        let bytes = std::fs::read(&path).expect("corpus file (../shared beside the checkout)");
        let name = rel.rsplit('/').next().unwrap();
        super::super::prepare(
            name,
            &bytes.as_slice(),
            &LoadOptions::default(),
            &mut |_| {},
        )
    }

    /// The JSON text of a prepared file: the reference every wire form must give back.
    fn json(p: &Result<Prepared, String>) -> String {
        serde_json::to_string(p).unwrap()
    }

    fn round_trip(rel: &str) -> (usize, usize) {
        let p = prepare(rel);
        let bytes = encode(&p).unwrap();
        let back = decode(&bytes).unwrap();
        let (a, b) = (json(&p), json(&back));
        assert!(a == b, "{rel}: the wire form changed the prepared file");
        (bytes.len(), a.len())
    }

    #[test]
    fn wire_round_trips_every_kind_of_file() {
        // A Perfetto trace, Kineto JSON with memory counters, a JAX trace with compile slices,
        // compile records, a quirk (no distributedInfo), and a file that fails.
        for rel in [
            "chromium_scaling/scaling_n1000_r0.pb.gz",
            "torch_multirank/rank0.trace.json.gz",
            "public/local-jax/trial1_perfetto_trace.json.gz",
            "jax_compile/baseline.jsonl",
        ] {
            let (wire, js) = round_trip(rel);
            assert!(wire < js, "{rel}: wire {wire} B not below JSON {js} B");
        }
        // Memory telemetry (rank series and markers of two ranks, one bad line).
        let base: u64 = 1_700_000_000_000_000_000;
        let mut tele = String::new();
        for i in 0..50u64 {
            for r in 0..2u64 {
                tele.push_str(&format!(
                    "{{\"timestamp_ns\":{},\"event_type\":\"sample\",\"rank\":{r},\
                     \"world_size\":2,\"allocator_reserved_bytes\":{},\
                     \"device_used_bytes\":{}}}\n",
                    base + i * 10_000_000 + r,
                    (1u64 << 30) + i,
                    2u64 << 30
                ));
            }
            if i == 0 {
                tele.push_str("not JSON\n");
            }
        }
        tele.push_str(&format!(
            "{{\"timestamp_ns\":{},\"event_type\":\"nccl_all_reduce\",\"rank\":1,\
             \"duration_ns\":5000000}}\n",
            base + 100_000_000
        ));
        let p = super::super::prepare(
            "memory_telemetry.jsonl",
            &tele.as_bytes(),
            &LoadOptions::default(),
            &mut |_| {},
        );
        assert!(
            matches!(&p, Ok(Prepared { content: super::super::Content::Telemetry(t), .. })
                if t.parts.len() == 2 && t.parts[0].memory.kinds.device_used.is_some()),
            "{:?}",
            p.as_ref().map(|p| &p.content)
        );
        assert_eq!(json(&decode(&encode(&p).unwrap()).unwrap()), json(&p));
        let failed: Result<Prepared, String> = Err("x.pb: broken".into());
        let back = decode(&encode(&failed).unwrap()).unwrap();
        assert_eq!(back.err().as_deref(), Some("x.pb: broken"));
    }

    #[test]
    fn chunk_size_does_not_change_the_bytes() {
        let p = prepare("chromium_scaling/scaling_n1000_r0.pb.gz");
        let whole = encode(&p).unwrap();
        for chunk in [1, 7, 4096] {
            let mut parts = Vec::new();
            let n = encode_chunks(&p, chunk, &mut |b| {
                assert!(b.len() <= chunk);
                parts.extend_from_slice(b)
            })
            .unwrap();
            assert_eq!(n as usize, whole.len());
            assert_eq!(parts, whole, "chunk {chunk}");
        }
    }

    #[test]
    fn damaged_wire_bytes_are_errors_not_panics() {
        let p = prepare("chromium_scaling/scaling_n1000_r0.pb.gz");
        let bytes = encode(&p).unwrap();
        assert!(decode(b"").unwrap_err().contains("wrong leading bytes"));
        assert!(decode(b"{\"Ok\":{}}")
            .unwrap_err()
            .contains("wrong leading bytes"));
        for version in [1, MAGIC[4] + 1] {
            let mut other = bytes.clone();
            other[4] = version;
            assert!(decode(&other).is_err(), "version {version} is refused");
        }
        for cut in [5, 6, bytes.len() / 2, bytes.len() - 1] {
            assert!(decode(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(decode(&longer).unwrap_err().contains("after its end"));
        // Flipped bytes decode to an error or some value, never a panic.
        for i in (5..bytes.len()).step_by(bytes.len() / 61 + 1) {
            let mut b = bytes.clone();
            b[i] ^= 0xff;
            let _ = decode(&b);
        }
    }

    /// JSON and wire size of each part of a prepared trace, and the decode time of both.
    fn part_sizes(name: &str, p: &Result<Prepared, String>) {
        fn sizes<T: serde::Serialize>(v: &T) -> (usize, usize) {
            (
                serde_json::to_vec(v).unwrap().len(),
                postcard::to_allocvec(v).unwrap().len(),
            )
        }
        let Ok(Prepared {
            content: super::super::Content::Trace(t),
            ..
        }) = p
        else {
            panic!("{name}: not a trace");
        };
        let parts = [
            ("tree", sizes(&t.tree)),
            ("trial", sizes(&t.trial)),
            ("compile_records", sizes(&t.compile_records)),
            ("memory", sizes(&t.memory)),
            ("counters", sizes(&t.counters)),
            ("diagnostics", sizes(&t.diagnostics)),
            ("info", sizes(&t.info)),
        ];
        let json = serde_json::to_vec(p).unwrap();
        let t0 = std::time::Instant::now();
        let _: Result<Prepared, String> = serde_json::from_slice(&json).unwrap();
        let json_ms = t0.elapsed().as_secs_f64() * 1e3;
        let t0 = std::time::Instant::now();
        let wire = encode(p).unwrap();
        let enc_ms = t0.elapsed().as_secs_f64() * 1e3;
        let t0 = std::time::Instant::now();
        decode(&wire).unwrap().unwrap();
        let wire_ms = t0.elapsed().as_secs_f64() * 1e3;
        println!(
            "{name}: {} tree nodes, {} tree frames; whole: JSON {} B, wire {} B ({:.1}x smaller); \
             decode JSON {json_ms:.0} ms, wire {wire_ms:.0} ms (encode {enc_ms:.0} ms)",
            t.tree.nodes.len(),
            t.tree.frames.len(),
            json.len(),
            wire.len(),
            json.len() as f64 / wire.len() as f64
        );
        for (part, (j, w)) in parts {
            println!("  {part:16} JSON {j:>12} B  wire {w:>12} B");
        }
    }

    /// Measurement, not a check (`cargo test --release --lib wire_sizes -- --ignored
    /// --nocapture`; `TRIALSCOPE_WIRE_FILE=<trace>` adds a file, e.g. the generated 1 GB
    /// Perfetto trace of `benchmark_browser_scale`).
    #[test]
    #[ignore]
    fn wire_sizes_of_corpus_files() {
        let rel = "chromium_large/heavy_default.pb.gz";
        part_sizes(rel, &prepare(rel));
        if let Ok(path) = std::env::var("TRIALSCOPE_WIRE_FILE") {
            let src = crate::formats::FileSource::new(&path).unwrap();
            let p = super::super::prepare(&path, &src, &LoadOptions::default(), &mut |_| {});
            part_sizes(&path, &p);
        }
    }
}
