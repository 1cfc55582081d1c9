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
    let mut printed: Vec<String> = Vec::new();
    let ws = Workspace::from_paths(paths, &mut |message| {
        errln!("error: {message}");
        printed.push(message.to_string());
    });
    // Failures the workspace finds only across files (an aggregate key missing one of its
    // tables, found when the folder's pieces are grouped) are printed too.
    for f in ws.failed() {
        if !printed.contains(&f.message) {
            errln!("error: {}", f.message);
        }
    }
    note_skipped(&ws);
    note_duplicates(&ws);
    for note in ws.repeats() {
        errln!("note: {note}");
    }
    ws
}

/// Notes on stderr each aggregate trial left out because the same artifact was loaded as a
/// trace ([`Workspace::duplicates`]: one artifact is one trial).
pub fn note_duplicates(ws: &Workspace) {
    for (_, note) in ws.duplicates() {
        errln!("note: {note}");
    }
}

/// Notes on stderr the files of folder arguments that were skipped ([`Workspace::skipped`]):
/// each by its name, an empty one marked `(empty)`.
pub fn note_skipped(ws: &Workspace) {
    let skipped: Vec<(&str, &str)> = ws
        .skipped()
        .iter()
        .map(|f| (f.name.as_str(), f.message.as_str()))
        .collect();
    note_skipped_files(&skipped);
}

/// Notes on stderr the skipped files `skipped` (name, message): one line naming each, an
/// empty file (its message ends with "the file is empty") marked `(empty)`.
pub fn note_skipped_files(skipped: &[(&str, &str)]) {
    if skipped.is_empty() {
        return;
    }
    let names: Vec<String> = skipped
        .iter()
        .map(|(name, message)| {
            if message.ends_with(": the file is empty") {
                format!("{name} (empty)")
            } else {
                name.to_string()
            }
        })
        .collect();
    errln!(
        "note: skipped {} file(s) in the folders given that are not traces, records or \
         telemetry, or empty: {}",
        skipped.len(),
        names.join(", ")
    );
}

/// Exit code for a command that loaded files: 1 when any failed, else 0.
pub fn exit_code(ws: &Workspace) -> std::process::ExitCode {
    if ws.failed().is_empty() {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::from(1)
    }
}

/// Writes `text` to stdout: every subcommand's output goes through here (or [`stdout_failed`]
/// for a writer of its own), since `println!` panics when stdout is closed. When the reader
/// has gone (`trialscope … | head`), the process ends at once, quietly, with exit code 0: the
/// reader took what it wanted. Any other write error (a full disk) is reported and exits 1.
pub fn write_stdout(text: &str) {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        stdout_failed(&e);
    }
}

/// Ends the process after a failed write to stdout, as [`write_stdout`] does.
pub fn stdout_failed(e: &std::io::Error) -> ! {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    write_stderr(&format!("error: cannot write to stdout: {e}\n"));
    std::process::exit(1);
}

/// Writes `text` to stderr; a failure is ignored (there is nowhere left to report it), where
/// `eprintln!` would panic (`trialscope … 2>&1 | head`).
pub fn write_stderr(text: &str) {
    use std::io::Write as _;
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(text.as_bytes()).and_then(|_| err.flush());
}

/// A workspace holding the trials of the aggregate directory `dir`
/// ([`trialscope::aggregate::dir::read`]): the traces and failures `trialscope summarize`
/// recorded, with the cross-file facts derived again; skipped files are noted on stderr as
/// [`note_skipped`] notes them, failures printed as [`workspace`] prints them.
///
/// Errors: the directory cannot be read, or holds a table of another schema version.
pub fn aggregates(dir: &Path) -> Result<Workspace, trialscope::aggregate::Error> {
    let records = trialscope::aggregate::dir::read(dir)?;
    let (ws, left) = trialscope::aggregate::dir::workspace(records);
    for f in ws.failed() {
        errln!("error: {}", f.message);
    }
    let skipped: Vec<(&str, &str)> = left
        .iter()
        .filter(|r| r.status == trialscope::aggregate::Status::Skipped)
        .map(|r| (r.path.as_str(), r.error.as_deref().unwrap_or("")))
        .collect();
    note_skipped_files(&skipped);
    Ok(ws)
}
