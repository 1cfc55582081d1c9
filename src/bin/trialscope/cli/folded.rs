//! `trialscope folded FILE...`: the folded stacks of each trace's call tree by semantic frame
//! (`root;child;leaf <self ns>`, [`trialscope::analysis::flame::folded`]) on stdout — input
//! for `inferno-flamegraph` or `flamegraph.pl`. Several files are concatenated (a flame graph
//! of their sum). Exit codes: 0 success; 1 when any file failed to import.

use std::path::PathBuf;
use std::process::ExitCode;

use trialscope::analysis::flame;

use super::load;

/// Arguments of `trialscope folded`.
#[derive(clap::Args)]
pub struct Args {
    /// Trace files or folders.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
}

/// Runs the subcommand.
pub fn run(args: Args) -> ExitCode {
    let ws = load::workspace(&args.files);
    for e in ws.entries() {
        if let Some(t) = e.trace() {
            load::write_stdout(&flame::folded(&t.tree));
        }
    }
    load::exit_code(&ws)
}
