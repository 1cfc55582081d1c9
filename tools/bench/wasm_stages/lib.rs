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

    /// Size of the wasm memory, bytes.
    #[wasm_bindgen]
    pub fn memory_bytes() -> f64 {
        (core::arch::wasm32::memory_size(0) * 65536) as f64
    }
}
