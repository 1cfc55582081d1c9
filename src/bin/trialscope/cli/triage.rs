//! `trialscope triage` and `trialscope pin`. STUB: being written.

use std::path::PathBuf;

/// Arguments of `trialscope triage`.
#[derive(clap::Args)]
pub struct Args {
    /// Record files and/or traces.
    pub files: Vec<PathBuf>,
}

/// Arguments of `trialscope pin`.
#[derive(clap::Args)]
pub struct PinArgs {
    /// Record files.
    pub files: Vec<PathBuf>,
}

/// Runs `triage`.
pub fn run(_args: Args) -> std::process::ExitCode {
    eprintln!("trialscope triage: not implemented yet");
    std::process::ExitCode::from(1)
}

/// Runs `pin`.
pub fn run_pin(_args: PinArgs) -> std::process::ExitCode {
    eprintln!("trialscope pin: not implemented yet");
    std::process::ExitCode::from(1)
}
