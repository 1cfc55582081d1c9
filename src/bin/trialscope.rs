//! The native CLI. STUB: being written.
fn main() {}
