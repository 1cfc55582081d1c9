//! An aggregate directory on disk (native only): `DIR/<table>/<key>.parquet` for each of
//! [`TABLES`], one file per artifact per table ([`Summary::key`]). Writing a key replaces its
//! files (idempotent re-runs); each file is written to a temporary name and renamed, `trials`
//! last, so a key with a `trials` file is complete and a crash leaves no half row set.
//! Directories written by separate tasks merge by copying their tables' files together.

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use parquet::record::Field;

use super::{table, Error, Outcome, Record, Status, Summary, TABLES, TABLE_VERSION};
use crate::formats::{FileSource, LoadOptions};
use crate::workspace::{prepare_file, FileId, Workspace};

fn io(what: &str, path: &Path, e: std::io::Error) -> Error {
    Error::Io(format!("{}: cannot {what}: {e}", path.display()))
}

/// A temporary name in `d` for the table file of `key`, hidden (readers skip names starting
/// with '.') and unique to this process and write: two workers writing one key at once (the
/// same artifact summarized twice) each rename a whole file into place, never a half-written
/// or already-moved one.
fn temporary(d: &Path, key: &str) -> std::path::PathBuf {
    static WRITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    d.join(format!(".{key}.parquet.tmp{}.{n}", std::process::id()))
}

/// Writes the tables of `summary` under `dir` (creating the table directories), replacing
/// the files of the same key.
///
/// Errors: a table that cannot be encoded, or the file system's error naming the path.
pub fn write(dir: &Path, summary: &Summary) -> Result<(), Error> {
    for t in summary.tables() {
        let d = dir.join(t.name);
        fs::create_dir_all(&d).map_err(|e| io("create the directory", &d, e))?;
        let bytes = table::encode(t, TABLE_VERSION)?;
        let final_path = d.join(format!("{}.parquet", summary.key));
        let tmp = temporary(&d, &summary.key);
        fs::File::create(&tmp)
            .and_then(|mut f| f.write_all(&bytes).and_then(|_| f.sync_all()))
            .map_err(|e| io("write", &tmp, e))?;
        fs::rename(&tmp, &final_path).map_err(|e| io("rename into place", &final_path, e))?;
    }
    Ok(())
}

/// `sha256:` + hex SHA-256 of the file at `path`, read in chunks (`None` when it cannot be
/// read): the artifact id of a file that failed to load.
fn hash_file(path: &Path) -> Option<String> {
    use sha2::Digest;
    let mut f = fs::File::open(path).ok()?;
    let mut h = sha2::Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = f.read(&mut buf).ok()?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    let hex: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
    Some(format!("sha256:{hex}"))
}

/// Imports one file as the workspace does ([`prepare_file`], read in chunks: the whole file is
/// never held) and says what became of it, by the workspace's rules: a file found inside a
/// folder argument (`in_folder`) that is no format trialscope reads, or empty
/// ([`crate::workspace::native::skipped_in_folder`]), is skipped, any other
/// failure is failed. `name` is the name the workspace would give it (the path as typed).
pub fn summarize_file(path: &Path, name: &str, in_folder: bool, opts: &LoadOptions) -> Outcome {
    match FileSource::new(path) {
        Ok(src) => match prepare_file(name, &src, opts, &mut |_| {}) {
            Ok(p) => Outcome::Loaded(Box::new(p)),
            Err(e) if in_folder && crate::workspace::native::skipped_in_folder(&e.error) => {
                Outcome::Skipped {
                    message: e.to_string(),
                    artifact_id: hash_file(path),
                }
            }
            Err(e) => Outcome::Failed {
                message: e.to_string(),
                artifact_id: hash_file(path),
            },
        },
        Err(e) => Outcome::Failed {
            message: format!("{name}: cannot read the file: {e}"),
            artifact_id: None,
        },
    }
}

/// The files `paths` stand for, in the order a workspace loads them
/// ([`crate::workspace::native::expand_paths`]), each with its name (the path as typed) and
/// whether it was found inside a folder argument; a file already named is left out
/// ([`crate::workspace::native::distinct_files`]) with a note, as a workspace reads it once
/// ([`crate::workspace::Workspace::repeats`]).
pub fn expand(paths: &[PathBuf]) -> (Vec<(PathBuf, String, bool)>, Vec<String>) {
    use crate::workspace::native::{distinct, expand_paths, repeat_note};
    let mut all = Vec::new();
    for p in paths {
        let inside = p.is_dir();
        all.extend(
            expand_paths(std::slice::from_ref(p))
                .into_iter()
                .map(|f| (f, inside)),
        );
    }
    let (kept, repeats) = distinct(all);
    let out = kept
        .into_iter()
        .map(|(f, inside)| {
            let name = f.display().to_string();
            (f, name, inside)
        })
        .collect();
    let notes = repeats.iter().map(|(r, f)| repeat_note(r, f)).collect();
    (out, notes)
}

/// Every record under `dir`, ordered as a workspace loading the same files from one folder
/// argument would order them (by path, component-wise). Files and directories whose names
/// start with `.` are ignored (temporaries).
///
/// A key whose files cannot be read back — a table file missing, unreadable, truncated, of
/// another schema or table version ([`Error::Version`]) or inconsistent — becomes a
/// [`Status::Failed`] record with that error (its path from its `trials` row when that row
/// reads, else the `trials` file's name), so one bad file fails only its trial, as a bad trace
/// does.
///
/// Errors: `dir` is no aggregate directory (it has no `trials/` folder) or cannot be read.
pub fn read(dir: &Path) -> Result<Vec<Record>, Error> {
    let trials_dir = dir.join("trials");
    if dir.is_dir() && !trials_dir.exists() {
        return Err(Error::Io(format!(
            "{}: not an aggregate directory (no trials/ folder; write one with `trialscope \
             summarize --out {}`)",
            dir.display(),
            dir.display()
        )));
    }
    let rd = fs::read_dir(&trials_dir).map_err(|e| io("read the directory", &trials_dir, e))?;
    let mut keys: Vec<String> = Vec::new();
    for e in rd {
        let e = e.map_err(|e| io("read the directory", &trials_dir, e))?;
        let n = e.file_name().to_string_lossy().into_owned();
        if n.starts_with('.') {
            continue;
        }
        if let Some(k) = n.strip_suffix(".parquet") {
            keys.push(k.to_string());
        }
    }
    keys.sort();
    let mut out = Vec::with_capacity(keys.len());
    for k in keys {
        out.push(read_key(dir, &k).unwrap_or_else(|e| failed_key(dir, &k, e)));
    }
    out.sort_by(|a, b| Path::new(&a.path).cmp(Path::new(&b.path)));
    Ok(out)
}

/// The record of the artifact `key` from its [`TABLES`] files.
fn read_key(dir: &Path, key: &str) -> Result<Record, Error> {
    let mut files: Vec<String> = Vec::new();
    let mut rows = Vec::new();
    for t in TABLES {
        let p = dir.join(t).join(format!("{key}.parquet"));
        let name = p.display().to_string();
        let bytes = fs::read(&p).map_err(|e| io("read", &p, e))?;
        rows.push(table::decode(&name, bytes, t, TABLE_VERSION)?);
        files.push(name);
    }
    let f: [&str; 4] = [&files[0], &files[1], &files[2], &files[3]];
    Record::from_tables(f, [&rows[0], &rows[1], &rows[2], &rows[3]])
}

/// The failed record of a key whose files did not read back (`e`): named by its `trials`
/// row's path when that row reads, else by the `trials` file.
fn failed_key(dir: &Path, key: &str, e: Error) -> Record {
    let trials = dir.join("trials").join(format!("{key}.parquet"));
    let name = trials.display().to_string();
    let path = fs::read(&trials)
        .ok()
        .and_then(|b| table::decode(&name, b, "trials", TABLE_VERSION).ok())
        .and_then(|rows| {
            let i = rows.col(&name, "path").ok()?;
            match rows.rows.first()?.get(i)? {
                Field::Str(s) => Some(s.clone()),
                _ => None,
            }
        })
        .unwrap_or(name);
    let message = e.to_string();
    Record {
        error: Some(if message.contains(&path) {
            message
        } else {
            format!("{path}: {message}")
        }),
        path,
        status: Status::Failed,
        prepared: None,
    }
}

/// A workspace holding the records' traces and failures in order, the facts across files
/// derived once over all of them (as [`Workspace::from_paths`] does over the traces); skipped
/// and not-a-trial records are left out, as the workspace leaves such files out of the
/// analyses. Returns the workspace and the skipped records.
pub fn workspace(records: Vec<Record>) -> (Workspace, Vec<Record>) {
    let mut ws = Workspace::new();
    let mut items = Vec::new();
    let mut left = Vec::new();
    for (id, r) in (0 as FileId..).zip(records) {
        match (r.status, r.prepared) {
            (Status::Ok, Some(p)) => items.push((id, r.path, Ok(p))),
            (Status::Failed, _) => {
                let msg = r
                    .error
                    .clone()
                    .unwrap_or_else(|| format!("{}: failed", r.path));
                items.push((id, r.path, Err(msg)));
            }
            (status, prepared) => left.push(Record {
                status,
                prepared,
                ..r
            }),
        }
    }
    ws.add_prepared_all(items);
    (ws, left)
}

/// Writes the optional tables of the artifact `key` ([`super::OPTIONAL_TABLES`]; `tables` holds
/// each with its table version, or `None` when the artifact has no rows in it): a present table
/// is written as [`write()`] writes the core tables (temporary name, renamed), an absent one's
/// stale file of the same key is removed, so re-runs stay idempotent. Call it before [`write()`]
/// (which writes `trials` last).
///
/// Errors: a table that cannot be encoded, or the file system's error naming the path.
pub fn write_optional(
    dir: &Path,
    key: &str,
    tables: &[(&str, Option<(&super::table::Table, u32)>)],
) -> Result<(), Error> {
    for (name, t) in tables {
        let d = dir.join(name);
        let final_path = d.join(format!("{key}.parquet"));
        let Some((t, version)) = t else {
            match fs::remove_file(&final_path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(io("remove", &final_path, e))
                }
                _ => continue,
            }
        };
        fs::create_dir_all(&d).map_err(|e| io("create the directory", &d, e))?;
        let bytes = table::encode(t, *version)?;
        let tmp = temporary(&d, key);
        fs::File::create(&tmp)
            .and_then(|mut f| f.write_all(&bytes).and_then(|_| f.sync_all()))
            .map_err(|e| io("write", &tmp, e))?;
        fs::rename(&tmp, &final_path).map_err(|e| io("rename into place", &final_path, e))?;
    }
    Ok(())
}

/// The decoded files of the optional table `name` under `dir` (version `version`), each with
/// its path, in file-name order; none when the table's directory does not exist. Names
/// starting with `.` are ignored (temporaries).
///
/// Errors: a file of another schema or table version ([`Error::Version`]), or unreadable.
pub fn read_optional(
    dir: &Path,
    name: &str,
    version: u32,
) -> Result<Vec<(String, table::Rows)>, Error> {
    let d = dir.join(name);
    let rd = match fs::read_dir(&d) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io("read the directory", &d, e)),
    };
    let mut files: Vec<PathBuf> = Vec::new();
    for e in rd {
        let e = e.map_err(|e| io("read the directory", &d, e))?;
        let n = e.file_name().to_string_lossy().into_owned();
        if !n.starts_with('.') && n.ends_with(".parquet") {
            files.push(e.path());
        }
    }
    files.sort();
    let mut out = Vec::with_capacity(files.len());
    for p in files {
        let file = p.display().to_string();
        let bytes = fs::read(&p).map_err(|e| io("read", &p, e))?;
        let rows = table::decode(&file, bytes, name, version)?;
        out.push((file, rows));
    }
    Ok(out)
}

/// Every compile record under `dir` (`DIR/compile_records`), ordered as a workspace loading the
/// same files from one folder argument lists them (by file path component-wise, then record
/// index): what `trialscope triage` over those files reads.
///
/// Errors: as [`read_optional`], and the rows' errors
/// ([`super::optional::compile_records_from_rows`]).
pub fn read_compile_records(
    dir: &Path,
) -> Result<Vec<crate::model::compile_record::CompileRecord>, Error> {
    let mut out = Vec::new();
    for (file, rows) in read_optional(
        dir,
        "compile_records",
        super::optional::COMPILE_RECORDS_VERSION,
    )? {
        out.extend(super::optional::compile_records_from_rows(&file, &rows)?);
    }
    out.sort_by(|a, b| {
        Path::new(&a.location.file)
            .cmp(Path::new(&b.location.file))
            .then(a.location.index.cmp(&b.location.index))
    });
    Ok(out)
}
