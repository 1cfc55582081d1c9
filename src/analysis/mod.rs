//! Pure analyses with one shape each: `Params`, `Input`, `extract(&Model, &Facts) -> Input`,
//! `run(&[Input], &Params) -> Report`. Deterministic: no clock, no I/O, seeded randomness, no
//! hash-map iteration order in outputs — the same inputs give byte-identical reports in the
//! browser and on the command line.

pub mod collective_memory;
pub mod compare;
mod compile_records;
pub mod compile_triage;
pub mod flame;
mod kept_counter;
pub mod scaling;
pub mod stats;
