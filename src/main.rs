//! wasm entry point of the web app: panic hook + mount (the app lives in `trialscope::ui`).

#[cfg(target_arch = "wasm32")]
fn main() {
    trialscope::ui::start_app();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("the web app runs in the browser: build it with `trunk build` (see README.md)");
}
