//! Aggregate files one by one, as the web app receives them (issue 12, part 4): one Parquet
//! file of one table of one artifact — a *piece* — decoded from bytes ([`decode`], called by
//! [`crate::formats::load`] when a file starts and ends with the `PAR1` magic), and the pieces
//! of a workspace grouped by key into the trials `trialscope scaling --from DIR` makes
//! ([`assemble`], called by [`crate::workspace`] after every add and removal).
//!
//! Key: the file's stem, as `dir` writes it (`DIR/<table>/<key>.parquet`, key = the artifact's
//! SHA-256 hex); the table is the one the file's key-value metadata names
//! ([`super::META_TABLE`]), so picked files without their folder (`<key>.parquet` four times)
//! group as well as a dropped folder. A key becomes a trial once its four tables ([`TABLES`])
//! are present, through [`Record::from_tables`] — the CLI's reader's own function — so the
//! trial is the one `scaling --from` makes. Pieces of tables this version does not use (a
//! newer summarizer's `compile_records`, `memory_intervals`) are accepted and listed as
//! ignored, never errors.

use parquet::data_type::ByteArray;
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::Field;
use serde::{Deserialize, Serialize};

use super::table::{self, Rows};
use super::{Error, Record, Status, META_SCHEMA, META_TABLE, META_TABLE_VERSION};
use super::{SCHEMA_VERSION, TABLES, TABLE_VERSION};
use crate::workspace::Prepared;

/// One cell of a decoded piece, in a form that crosses the worker boundary (serde); the
/// reader's [`Field`]s of the types the aggregate tables use, anything else as its text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Cell {
    Null,
    Bool(bool),
    /// `INT64` (and `INT32`, widened).
    Int(i64),
    Double(f64),
    Str(String),
    /// A value of a type the aggregate tables never use, as the reader prints it (read back
    /// as bytes, so a column check names it as the wrong type).
    Other(String),
}

impl Cell {
    fn of(f: &Field) -> Cell {
        match f {
            Field::Null => Cell::Null,
            Field::Bool(b) => Cell::Bool(*b),
            Field::Long(v) => Cell::Int(*v),
            Field::Int(v) => Cell::Int(i64::from(*v)),
            Field::Double(v) => Cell::Double(*v),
            Field::Str(s) => Cell::Str(s.clone()),
            other => Cell::Other(other.to_string()),
        }
    }

    fn field(&self) -> Field {
        match self {
            Cell::Null => Field::Null,
            Cell::Bool(b) => Field::Bool(*b),
            Cell::Int(v) => Field::Long(*v),
            Cell::Double(v) => Field::Double(*v),
            Cell::Str(s) => Field::Str(s.clone()),
            Cell::Other(s) => Field::Bytes(ByteArray::from(s.as_str())),
        }
    }
}

/// One aggregate file: which table of which artifact it holds, and its rows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Piece {
    /// The table its metadata names (`trials`, `frames`, `frame_costs`, `unmatched_costs`, or
    /// one this version does not use).
    pub table: String,
    /// Its table version (metadata [`super::META_TABLE_VERSION`]).
    pub table_version: String,
    /// The artifact key: the file name's stem (`<sha256 hex>` or `unread-…`).
    pub key: String,
    /// Rows in the file.
    pub row_count: u64,
    /// Column names (empty for a table this version does not use).
    pub names: Vec<String>,
    /// The rows, one [`Cell`] per column (empty for a table this version does not use).
    pub rows: Vec<Vec<Cell>>,
}

impl Piece {
    /// True when the table is one of [`TABLES`] (its rows are read and used).
    pub fn is_known(&self) -> bool {
        TABLES.contains(&self.table.as_str())
    }

    fn table_rows(&self) -> Rows {
        Rows {
            names: self.names.clone(),
            rows: self
                .rows
                .iter()
                .map(|r| r.iter().map(Cell::field).collect())
                .collect(),
        }
    }

    /// The piece without its rows (what a workspace entry shows of it).
    pub fn without_rows(&self) -> Piece {
        Piece {
            rows: Vec::new(),
            ..self.clone()
        }
    }

    /// `trials.path` of a `trials` piece's first row, if it has one.
    fn trial_path(&self) -> Option<String> {
        let i = self.names.iter().position(|n| n == "path")?;
        match self.rows.first()?.get(i)? {
            Cell::Str(s) => Some(s.clone()),
            _ => None,
        }
    }
}

/// True when `data` (the head of a file) starts with the Parquet magic `PAR1`.
pub fn looks_like_parquet(data: &[u8]) -> bool {
    data.starts_with(b"PAR1")
}

/// The key of a piece named `file`: its base name without `.parquet` (without any directory).
pub fn key_of_name(file: &str) -> String {
    let base = file.rsplit(['/', '\\']).next().unwrap_or(file);
    base.strip_suffix(".parquet").unwrap_or(base).to_string()
}

fn file_err(file: &str, problem: impl Into<String>) -> Error {
    Error::File {
        file: file.to_string(),
        problem: problem.into(),
    }
}

/// Decodes one aggregate file named `file` from its bytes: the table its metadata names, then
/// for a table of [`TABLES`] every row through [`table::decode`] (the reader the CLI uses).
///
/// Errors (each message names `file`): no `PAR1` footer (a truncated file), not readable as
/// Parquet, no trialscope metadata, another schema or table version ([`Error::Version`],
/// naming the version found), a row the reader cannot decode.
pub fn decode(file: &str, bytes: Vec<u8>) -> Result<Piece, Error> {
    if !bytes.ends_with(b"PAR1") || bytes.len() < 12 {
        return Err(file_err(
            file,
            "a Parquet file without its footer (truncated or damaged)",
        ));
    }
    let bytes = bytes::Bytes::from(bytes);
    let reader =
        SerializedFileReader::new(bytes.clone()).map_err(|e| file_err(file, e.to_string()))?;
    let meta = reader.metadata().file_metadata();
    let kv = meta.key_value_metadata().cloned().unwrap_or_default();
    let get = |k: &str| kv.iter().find(|e| e.key == k).and_then(|e| e.value.clone());
    let Some(table_name) = get(META_TABLE) else {
        return Err(file_err(
            file,
            format!(
                "a Parquet file that is no trialscope aggregate table (no {META_TABLE} in its \
                 metadata; write aggregates with trialscope summarize)"
            ),
        ));
    };
    let version = get(META_TABLE_VERSION).unwrap_or_else(|| "(none)".into());
    let key = key_of_name(file);
    let row_count = u64::try_from(meta.num_rows()).unwrap_or(0);
    if !TABLES.contains(&table_name.as_str()) {
        // A table this version does not read: its schema version must still be ours.
        let schema = get(META_SCHEMA);
        if schema.as_deref() != Some(SCHEMA_VERSION) {
            return Err(Error::Version {
                file: file.to_string(),
                found: format!(
                    "{} table version {version}",
                    schema.as_deref().unwrap_or("(none)")
                ),
                expected: format!("{SCHEMA_VERSION} table version {TABLE_VERSION}"),
            });
        }
        return Ok(Piece {
            table: table_name,
            table_version: version,
            key,
            row_count,
            names: Vec::new(),
            rows: Vec::new(),
        });
    }
    drop(reader);
    let rows = table::decode(file, Vec::from(bytes), &table_name, TABLE_VERSION)?;
    Ok(Piece {
        table: table_name,
        table_version: version,
        key,
        row_count,
        names: rows.names,
        rows: rows
            .rows
            .iter()
            .map(|r| r.iter().map(Cell::of).collect())
            .collect(),
    })
}

/// One aggregate file as [`assemble`] hands it in: its id in the workspace, its name, its piece.
pub type Input<'a> = (u32, &'a str, &'a Piece);

/// What became of one aggregate file.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// The `trials` piece of a complete key whose trace imported: the trial, exactly as
    /// `trialscope scaling --from` makes it.
    Trial(Box<Prepared>),
    /// The `trials` piece of a key whose file failed to summarize, of an incomplete key (the
    /// message names the missing tables and the trial's path), or of pieces that do not
    /// rebuild: `name` is the trial's path (`trials.path`) where known.
    Failed { name: String, message: String },
    /// A `trials` piece whose file was skipped or is no trial ([`Status::Skipped`],
    /// [`Status::NotATrial`]): left out of the analyses as the CLI leaves it out.
    Skipped { message: String },
    /// A piece that is part of a trial, waits for the key's `trials` piece, was replaced by a
    /// later file of the same key and table, or is of a table this version ignores: `note`
    /// says which.
    Piece { note: String },
}

/// The pieces grouped by key, in the order the trials are kept.
#[derive(Clone, Debug, Default)]
pub struct Assembly {
    /// Per `trials` piece: its id and outcome, ordered as `scaling --from` orders its records
    /// (by `trials.path`, component-wise).
    pub trials: Vec<(u32, Outcome)>,
    /// Every other piece: its id and outcome, in input order.
    pub others: Vec<(u32, Outcome)>,
}

/// Groups the aggregate files `pieces` by key (see the module doc) and rebuilds each key whose
/// four tables are all present ([`Record::from_tables`]). A key that misses a table is stated
/// on its `trials` piece (`frames table missing for <path>`), or on each of its pieces when
/// the `trials` piece is the one missing; of two files of one key and table, the later one is
/// used. Deterministic: the outcome depends on the set of pieces, not on their order.
pub fn assemble(pieces: &[Input<'_>]) -> Assembly {
    use std::collections::BTreeMap;
    // key → table → index into `pieces` (the last one wins).
    let mut by_key: BTreeMap<&str, BTreeMap<&str, usize>> = BTreeMap::new();
    let mut replaced: Vec<(usize, usize)> = Vec::new();
    for (i, (_, _, p)) in pieces.iter().enumerate() {
        if !p.is_known() {
            continue;
        }
        let tables = by_key.entry(p.key.as_str()).or_default();
        if let Some(old) = tables.insert(p.table.as_str(), i) {
            replaced.push((old, i));
        }
    }
    let mut trials: Vec<(String, u32, Outcome)> = Vec::new();
    let mut notes: BTreeMap<usize, String> = BTreeMap::new();
    for (old, new) in replaced {
        notes.insert(
            old,
            format!(
                "replaced by {} (the same table of the same key)",
                pieces[new].1
            ),
        );
    }
    for (key, tables) in &by_key {
        let Some(&ti) = tables.get("trials") else {
            for &i in tables.values() {
                notes.insert(
                    i,
                    format!(
                        "trials table missing for key {key} (add trials/{key}.parquet from the \
                         same aggregate folder)"
                    ),
                );
            }
            continue;
        };
        let (tid, tname, tp) = pieces[ti];
        let path = tp.trial_path().unwrap_or_else(|| tname.to_string());
        let missing: Vec<&str> = TABLES
            .iter()
            .copied()
            .filter(|t| !tables.contains_key(t))
            .collect();
        for (t, &i) in tables {
            if *t != "trials" {
                notes.insert(i, format!("{t} of {path}"));
            }
        }
        // A failed or skipped file's costs are empty: its trials row alone says what it was.
        let status = rebuild_status(tp);
        let outcome = if !missing.is_empty() && status == Some(Status::Ok) {
            let what = if missing.len() == 1 {
                "table"
            } else {
                "tables"
            };
            Outcome::Failed {
                name: path.clone(),
                message: format!(
                    "{} {what} missing for {path} (add {} from the same aggregate folder)",
                    missing.join(", "),
                    missing
                        .iter()
                        .map(|t| format!("{t}/{key}.parquet"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            }
        } else {
            let empty = Rows {
                names: Vec::new(),
                rows: Vec::new(),
            };
            let rows: Vec<Rows> = TABLES
                .iter()
                .map(|t| {
                    tables
                        .get(t)
                        .map_or(empty.clone(), |&i| pieces[i].2.table_rows())
                })
                .collect();
            let files: Vec<String> = TABLES
                .iter()
                .map(|t| {
                    tables
                        .get(t)
                        .map_or(format!("{t}/{key}.parquet"), |&i| pieces[i].1.to_string())
                })
                .collect();
            match Record::from_tables(
                [&files[0], &files[1], &files[2], &files[3]],
                [&rows[0], &rows[1], &rows[2], &rows[3]],
            ) {
                Ok(r) => outcome_of(r),
                Err(e) => Outcome::Failed {
                    name: path.clone(),
                    message: e.to_string(),
                },
            }
        };
        trials.push((path, tid, outcome));
    }
    trials.sort_by(|a, b| std::path::Path::new(&a.0).cmp(std::path::Path::new(&b.0)));
    let others = pieces
        .iter()
        .enumerate()
        .filter(|(_, (_, _, p))| p.table != "trials" || !p.is_known())
        .map(|(i, (id, _, p))| {
            let note = notes.remove(&i).unwrap_or_else(|| {
                format!(
                    "table {} (version {}) is not used by this trialscope; ignored",
                    p.table, p.table_version
                )
            });
            (*id, Outcome::Piece { note })
        })
        .collect();
    // A `trials` piece replaced by a later one is listed with the others.
    let mut others: Vec<(u32, Outcome)> = others;
    for (i, note) in notes {
        if pieces[i].2.table == "trials" {
            others.push((pieces[i].0, Outcome::Piece { note }));
        }
    }
    Assembly {
        trials: trials.into_iter().map(|(_, id, o)| (id, o)).collect(),
        others,
    }
}

/// The status a `trials` piece states (`None` when it cannot be read: the rebuild says why).
fn rebuild_status(p: &Piece) -> Option<Status> {
    let i = p.names.iter().position(|n| n == "status")?;
    match p.rows.first()?.get(i)? {
        Cell::Str(s) => Status::parse(s),
        _ => None,
    }
}

fn outcome_of(r: Record) -> Outcome {
    match (r.status, r.prepared) {
        (Status::Ok, Some(p)) => Outcome::Trial(Box::new(p)),
        (Status::Failed, _) | (Status::Ok, None) => Outcome::Failed {
            message: r
                .error
                .clone()
                .unwrap_or_else(|| format!("{}: failed", r.path)),
            name: r.path,
        },
        (Status::Skipped, _) => Outcome::Skipped {
            message: format!(
                "skipped when summarized: {}",
                r.error.as_deref().unwrap_or("no format trialscope reads")
            ),
        },
        (Status::NotATrial, _) => Outcome::Skipped {
            message: format!("{}: not a trace (no trial)", r.path),
        },
    }
}

/// This thread's CPU time, for the timing test below.
#[cfg(test)]
#[path = "../../tools/bench/cpu_clock.rs"]
mod cpu_clock;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aggregate::{Outcome as Summarized, Summary};

    /// The four pieces of a file that failed to summarize, named as in a dropped folder.
    fn failed_pieces(name: &str) -> Vec<(String, Piece)> {
        let s = Summary::of(
            name,
            &Summarized::Failed {
                message: format!("{name}: the file is empty"),
                artifact_id: None,
            },
        );
        s.tables()
            .into_iter()
            .map(|t| {
                let file = format!("agg/{}/{}.parquet", t.name, s.key);
                let bytes = table::encode(t, TABLE_VERSION).unwrap();
                let p = decode(&file, bytes).unwrap();
                (file, p)
            })
            .collect()
    }

    fn describe(a: &Assembly) -> Vec<String> {
        let one = |(id, o): &(u32, Outcome)| match o {
            Outcome::Trial(p) => format!("{id} trial {}", p.source.name),
            Outcome::Failed { name, message } => format!("{id} failed {name}: {message}"),
            Outcome::Skipped { message } => format!("{id} skipped {message}"),
            Outcome::Piece { note } => format!("{id} piece {note}"),
        };
        let mut v: Vec<String> = a.trials.iter().map(one).collect();
        let mut others: Vec<String> = a.others.iter().map(one).collect();
        others.sort();
        v.extend(others);
        v
    }

    #[test]
    fn pieces_group_by_key_in_any_order() {
        let mut all = failed_pieces("b/y.pb");
        all.extend(failed_pieces("a/x.pb"));
        let inputs: Vec<Input<'_>> = all
            .iter()
            .enumerate()
            .map(|(i, (n, p))| (i as u32, n.as_str(), p))
            .collect();
        let forward = assemble(&inputs);
        let mut rev = inputs.clone();
        rev.reverse();
        assert_eq!(describe(&forward), describe(&assemble(&rev)));
        // Trials in path order; each failed with its error; the other pieces say whose they are.
        let d = describe(&forward);
        assert!(
            d[0].starts_with("7 failed a/x.pb: a/x.pb: the file is empty"),
            "{d:?}"
        );
        assert!(
            d[1].starts_with("3 failed b/y.pb: b/y.pb: the file is empty"),
            "{d:?}"
        );
        assert!(d.iter().any(|l| l == "4 piece frames of a/x.pb"), "{d:?}");
        assert_eq!(d.len(), 8);
    }

    #[test]
    fn a_second_file_of_one_table_and_key_replaces_the_first() {
        let mut all = failed_pieces("a/x.pb");
        let again = all[0].clone();
        all.push(("copy/".to_string() + &again.0, again.1));
        let inputs: Vec<Input<'_>> = all
            .iter()
            .enumerate()
            .map(|(i, (n, p))| (i as u32, n.as_str(), p))
            .collect();
        let d = describe(&assemble(&inputs));
        assert!(
            d.iter()
                .any(|l| l.starts_with("0 piece replaced by copy/agg/frames/")),
            "{d:?}"
        );
        assert!(d.iter().any(|l| l == "4 piece frames of a/x.pb"), "{d:?}");
    }

    #[test]
    fn names_keys_and_cells() {
        assert_eq!(key_of_name("agg/frames/abc.parquet"), "abc");
        assert_eq!(key_of_name("abc.parquet"), "abc");
        assert_eq!(key_of_name("C:\\agg\\trials\\k.parquet"), "k");
        for c in [
            Cell::Null,
            Cell::Bool(true),
            Cell::Int(-3),
            Cell::Double(0.5),
            Cell::Str("s".into()),
        ] {
            assert_eq!(Cell::of(&c.field()), c);
        }
        // A cell of a type the tables never use reads back as bytes, not as text.
        assert!(matches!(Cell::Other("x".into()).field(), Field::Bytes(_)));
        assert!(looks_like_parquet(b"PAR1\x15") && !looks_like_parquet(b"{\"a\""));
        assert!(decode("f.parquet", b"PAR1 not a footer".to_vec())
            .unwrap_err()
            .to_string()
            .contains("without its footer"));
    }

    /// Regression: regrouping a workspace's pieces looked each outcome's piece up by a scan
    /// (and forgot a batch's ids one scan per file), quadratic in the pieces: 10× the pieces
    /// must cost < 30× the time (best of three per size; the quadratic version took ~100×).
    /// The time is this thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`, wall time where that
    /// is missing): in wall time, on a loaded machine running tests side by side, 10× the pieces
    /// once measured 34× (the large run is preempted more often).
    #[test]
    fn regrouping_thousands_of_pieces_is_near_linear() {
        use crate::formats::{Compression, Source};
        use crate::model::facts::Facts;
        use crate::workspace::{AggregateFile, Content, Prepared, Workspace};
        // `n` pieces, each the `frames` table of its own key (no `trials` piece: each one is
        // a note saying so), named as in a dropped folder.
        let items = |n: u32| -> Vec<(u32, String, Result<Prepared, String>)> {
            (0..n)
                .map(|i| {
                    let name = format!("agg/frames/k{i:06}.parquet");
                    let piece = Piece {
                        table: "frames".into(),
                        table_version: TABLE_VERSION.to_string(),
                        key: format!("k{i:06}"),
                        row_count: 0,
                        names: Vec::new(),
                        rows: Vec::new(),
                    };
                    let p = Prepared {
                        source: Source {
                            name: name.clone(),
                            size_bytes: 1,
                            decompressed_bytes: 1,
                            artifact_id: format!("sha256:{i}"),
                            compression: Compression::None,
                        },
                        facts: Facts::alone(&name),
                        content: Content::Aggregate(Box::new(AggregateFile { piece, note: None })),
                        pins: None,
                    };
                    (i + 1, name, Ok(p))
                })
                .collect()
        };
        let best = |n: u32| {
            (0..3)
                .map(|_| {
                    let batch = items(n);
                    let mut ws = Workspace::new();
                    let (t, cpu) = (std::time::Instant::now(), thread_cpu_s());
                    ws.add_prepared_all(batch);
                    let s = match (cpu, thread_cpu_s()) {
                        (Some(a), Some(b)) => b - a,
                        _ => t.elapsed().as_secs_f64(),
                    };
                    // Every piece is an entry saying its key has no trials table.
                    assert_eq!(ws.aggregate_ids().len(), n as usize);
                    s
                })
                .fold(f64::INFINITY, f64::min)
        };
        let (small, large) = (best(1_000), best(10_000));
        let ratio = large / small;
        println!("regroup: {small:.4} s at 1k pieces, {large:.4} s at 10k, ratio {ratio:.1}");
        assert!(ratio < 30.0, "10x the pieces cost {ratio:.1}x the time");
    }

    use super::cpu_clock::thread_cpu_s;
}
