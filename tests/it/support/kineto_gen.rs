//! Test support: the synthetic Kineto-like trace of a requested size, made by the library's
//! generator (`trialscope::formats::synthetic_kineto`, also behind
//! `trialscope bench --generate-kineto`), never committed as data.

pub use trialscope::formats::synthetic_kineto::kineto_like;
