//! `trialscope slices`. STUB: being written.

use std::path::PathBuf;

/// Arguments of `trialscope slices`.
#[derive(clap::Args)]
pub struct Args {
    /// Trace files.
    pub files: Vec<PathBuf>,
}

/// Runs the subcommand.
pub fn run(_args: Args) -> std::process::ExitCode {
    eprintln!("trialscope slices: not implemented yet");
    std::process::ExitCode::from(1)
}
