//! What the integration test modules share: generated traces, the memory fixture and the
//! browser harness.

pub mod browser;
pub mod kineto_gen;
pub mod memory_fixture;
