//! The one way every subcommand loads its files: [`Workspace::from_paths`] (files and folders;
//! the files of one directory are siblings), with each failure printed to stderr as it happens.

use std::path::{Path, PathBuf};

use trialscope::workspace::Workspace;

/// The file name of `path` (what the UI would show), falling back to the whole path.
pub fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

/// Loads `paths` into a workspace; every file that cannot be read or loaded is reported on
/// stderr (naming the file) and kept as failed, and the others still load.
pub fn workspace(paths: &[PathBuf]) -> Workspace {
    Workspace::from_paths(paths, &mut |message| eprintln!("error: {message}"))
}

/// Exit code for a command that loaded files: 1 when any failed, else 0.
pub fn exit_code(ws: &Workspace) -> std::process::ExitCode {
    if ws.failed().is_empty() {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::from(1)
    }
}

/// Writes to stdout, ignoring a closed pipe (`trialscope … | head`).
pub fn write_stdout(text: &str) {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|_| out.flush());
}
