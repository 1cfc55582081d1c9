//! Pure analyses: `&Model`/profiles + params → report. Deterministic: no clock, no I/O, seeded
//! randomness, no hash-map iteration order in outputs.

pub mod collective_memory;
pub mod compile_triage;
pub mod scaling;
pub mod stats;
