//! The Web Worker side. STUB: being written.

/// Installs the worker's message handler.
pub fn start_worker() {}
