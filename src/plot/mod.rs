//! Numbers → chart geometry and SVG text (scales, ticks, downsampling). Knows no analysis.
pub mod downsample;
