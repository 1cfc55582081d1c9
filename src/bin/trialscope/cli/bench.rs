//! `trialscope bench`. STUB: being written.

use std::path::PathBuf;

/// Arguments of `trialscope bench`.
#[derive(clap::Args)]
pub struct Args {
    /// Trace files.
    pub files: Vec<PathBuf>,
}

/// Runs the subcommand.
pub fn run(_args: Args) -> std::process::ExitCode {
    eprintln!("trialscope bench: not implemented yet");
    std::process::ExitCode::from(1)
}
