//! Reading and importing the files named on the command line.

use std::path::{Path, PathBuf};

use trialscope::formats::{self, Artifact};

/// The result of loading the command line's files: what imported, and the per-file errors
/// (already printed to stderr).
pub struct Loaded {
    pub artifacts: Vec<Artifact>,
    pub failed: Vec<String>,
}

/// The file name of `path` (what the UI would show), falling back to the whole path.
pub fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

/// Reads and imports every path; a file that cannot be read or imported is reported on stderr
/// (naming the file) and listed in `failed`, and the others still load.
pub fn load_all(paths: &[PathBuf]) -> Loaded {
    let mut artifacts = Vec::new();
    let mut failed = Vec::new();
    for p in paths {
        let shown = p.display().to_string();
        match std::fs::read(p) {
            Ok(bytes) => match formats::import(&shown, &bytes) {
                Ok(a) => artifacts.push(a),
                Err(e) => {
                    eprintln!("error: {e}");
                    failed.push(shown);
                }
            },
            Err(e) => {
                eprintln!("error: {shown}: cannot read the file: {e}");
                failed.push(shown);
            }
        }
    }
    Loaded { artifacts, failed }
}

/// Exit code for a command that loaded files: 1 when any failed, else 0.
pub fn exit_code(failed: &[String]) -> std::process::ExitCode {
    if failed.is_empty() {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::from(1)
    }
}
