//! `trialscope folded FILE...`: the folded stacks of each trace's call tree by semantic frame
//! (`root;child;leaf <self ns>`, [`trialscope::analysis::flame::write_folded`]) streamed to
//! stdout — input for `inferno-flamegraph` or `flamegraph.pl`. Several files are concatenated
//! (a flame graph of their sum). Exit codes: 0 success; 1 when any file failed to import.

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
    use std::io::Write as _;
    let ws = load::workspace(&args.files);
    // Streamed: the text grows with depth² and is never held whole.
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    for e in ws.entries() {
        if let Some(t) = e.trace() {
            if let Err(e) = flame::write_folded(&t.tree, &mut out) {
                load::stdout_failed(&e);
            }
        }
    }
    if let Err(e) = out.flush() {
        load::stdout_failed(&e);
    }
    load::exit_code(&ws)
}
