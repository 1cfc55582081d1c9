//! wasm entry point of the Web Worker that imports and analyses off the UI thread.

#[cfg(target_arch = "wasm32")]
fn main() {
    trialscope::ui::worker::start_worker();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {}
