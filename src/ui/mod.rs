//! The Leptos web app and the Web Worker protocol (wasm32 only). STUB: being written.

pub mod worker;

/// Mounts the app into the page body.
pub fn start_app() {}
