//! wasm32 build of the stage timer (`tools/bench/stages.rs`) for Node: `tools/bench/wasm_stages.sh`
//! builds it (a throw-away crate over this file, `--target wasm32-unknown-unknown --profile
//! wasm-release`, then `wasm-bindgen --target nodejs`, names kept) and `tools/bench/wasm_stages.js`
//! runs it on trace files. Not part of the app build; natively it compiles to nothing.

#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
#[path = "../stages.rs"]
mod stages;

#[cfg(target_arch = "wasm32")]
mod wasm {
    use wasm_bindgen::prelude::*;

    #[wasm_bindgen]
    extern "C" {
        /// CPU time of the Node process, ms (`process.cpuUsage()`, set by `wasm_stages.js`):
        /// the machine is shared, so wall time says little about one stage.
        #[wasm_bindgen(js_namespace = globalThis)]
        fn trialscope_cpu_ms() -> f64;
    }

    fn now() -> f64 {
        trialscope_cpu_ms()
    }

    /// Times the stages of one file (bytes as dropped) `runs` times; the JSON array of
    /// `stages::to_json`, or the error as text.
    #[wasm_bindgen]
    pub fn stages(name: &str, bytes: &[u8], runs: u32) -> Result<String, String> {
        super::stages::run(name, bytes, runs, &now).map(|s| super::stages::to_json(&s))
    }

    #[wasm_bindgen]
    extern "C" {
        /// Reads up to `len` bytes of the file at `offset` (`wasm_stages.js --memory`): the
        /// worker's `File.slice` + `FileReaderSync`, so the file is never in wasm memory whole.
        #[wasm_bindgen(js_namespace = globalThis)]
        fn trialscope_read(offset: f64, len: f64) -> Vec<u8>;
    }

    /// The worker's 8 MiB `File.slice` reads, as a `ByteSource`.
    struct JsSource(u64);
    impl trialscope::formats::ByteSource for JsSource {
        fn size(&self) -> u64 {
            self.0
        }
        fn open(&self) -> std::io::Result<Box<dyn std::io::Read + '_>> {
            let fetch = |pos: u64, len: u64, chunk: &mut Vec<u8>| {
                *chunk = trialscope_read(pos as f64, len as f64);
                Ok(())
            };
            Ok(Box::new(trialscope::formats::PieceReader::new(
                self.0,
                8 << 20,
                fetch,
            )))
        }
    }

    /// The import worker's pipeline on a file of `size` bytes read through `trialscope_read`:
    /// `formats::load_from`, `workspace::keep`, `wire::encode_chunks` (pieces dropped), with
    /// the wasm memory size (MB) after each stage, as a JSON object.
    #[wasm_bindgen]
    pub fn worker_memory(name: &str, size: f64) -> Result<String, String> {
        let mb = || memory_bytes() / 1e6;
        let m0 = mb();
        let src = JsSource(size as u64);
        let opts = trialscope::formats::LoadOptions::default();
        let loaded = trialscope::formats::load_from(name, &src, &opts, &mut |_| {})
            .map_err(|e| e.to_string())?;
        let m_load = mb();
        let prepared = trialscope::workspace::keep(loaded);
        let m_keep = mb();
        let mut encoded = 0usize;
        trialscope::workspace::wire::encode_chunks(
            &Ok(prepared),
            trialscope::workspace::wire::CHUNK_BYTES,
            &mut |p| encoded += p.len(),
        )?;
        let m_enc = mb();
        Ok(format!(
            "{{\"start_mb\":{m0:.1},\"load_mb\":{m_load:.1},\"keep_mb\":{m_keep:.1},\"encode_mb\":{m_enc:.1},\"encoded_mb\":{:.1}}}",
            encoded as f64 / 1e6
        ))
    }

    /// Size of the wasm memory, bytes.
    #[wasm_bindgen]
    pub fn memory_bytes() -> f64 {
        (core::arch::wasm32::memory_size(0) * 65536) as f64
    }
}
