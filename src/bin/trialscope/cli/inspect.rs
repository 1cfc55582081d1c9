//! `trialscope inspect`. STUB: being written.

use std::path::PathBuf;

/// Arguments of `trialscope inspect`.
#[derive(clap::Args)]
pub struct Args {
    /// Trace files.
    pub files: Vec<PathBuf>,
}

/// Runs the subcommand.
pub fn run(_args: Args) -> std::process::ExitCode {
    eprintln!("trialscope inspect: not implemented yet");
    std::process::ExitCode::from(1)
}
