//! Bytes → what a file is: [`load`] is the one load path of the crate. It decompresses once,
//! sniffs the content (the file name only breaks a tie: a bare JSON array is pins when the name
//! says `pins`), and runs the one importer that fits: Perfetto protobuf (`perfetto`), Chrome
//! Trace Event JSON incl. Kineto and JAX (`chrome_json`), compile records and pins (`records`),
//! memory telemetry JSON Lines (`telemetry`). The only layer that knows wire formats, and
//! [`load`] the only function that decides what a file is.
//!
//! Architecture Invariant: a bad *event* never fails a load — it is counted in
//! [`Model::diagnostics`] (or the record/telemetry file's own lists). Only an unreadable
//! container (not a trace, corrupt compression, over the size limit) is a [`FileError`], and it
//! names the file. No function here takes more than one file: facts across files are the
//! [`crate::workspace`]'s.

mod chrome_json;
pub mod limits;
pub mod perfetto;
pub mod records;
mod stream;
pub mod telemetry;
mod tracks;

/// The synthetic Kineto JSON trace of the import benchmark (`trialscope bench --generate-kineto`).
pub use chrome_json::synthetic as synthetic_kineto;
#[cfg(not(target_arch = "wasm32"))]
pub use stream::FileSource;
pub use stream::{ByteSource, Chunked, PieceReader};

use std::cell::Cell;
use std::io::Read;

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::model::compile_record::Pin;
use crate::model::diagnostics::Kind as Diag;
use crate::model::Model;

/// Default ceiling on decompressed bytes per file (4 GiB natively, 1.5 GiB in the browser).
#[cfg(not(target_arch = "wasm32"))]
pub const DEFAULT_MAX_DECOMPRESSED: u64 = 4 << 30;
/// Default ceiling on decompressed bytes per file (4 GiB natively, 1.5 GiB in the browser).
#[cfg(target_arch = "wasm32")]
pub const DEFAULT_MAX_DECOMPRESSED: u64 = 3 << 29;

/// The trace format of a file, after any compression wrapper.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// Perfetto protobuf (`Trace` = repeated `TracePacket`).
    PerfettoProto,
    /// Chrome Trace Event JSON (object or array form), including Kineto and JAX exports.
    ChromeJson,
}

impl Format {
    /// Short human name.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::PerfettoProto => "perfetto_proto",
            Format::ChromeJson => "chrome_json",
        }
    }
}

/// A compression wrapper found around the file's bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Compression {
    None,
    Gzip,
    Zlib,
}

impl Compression {
    /// `none`, `gzip` or `zlib`.
    pub fn as_str(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Gzip => "gzip",
            Compression::Zlib => "zlib",
        }
    }
}

/// Why a file could not be read at all.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ImportError {
    /// The bytes are no format this tool reads; `seen` says what they look like.
    #[error("not a trace I can read: {seen}")]
    NotATrace { seen: String },
    /// The compression wrapper is corrupt.
    #[error("{what} data is corrupt: {detail}")]
    Decompress { what: &'static str, detail: String },
    /// Decompressed data exceeds the configured ceiling.
    #[error("decompressed size exceeds the limit of {limit_bytes} bytes")]
    TooLarge { limit_bytes: u64 },
    /// The file is empty.
    #[error("the file is empty")]
    Empty,
    /// The container is broken beyond repair (e.g. JSON with no event array, a bad pins file).
    #[error("{0}")]
    Malformed(String),
}

/// An [`ImportError`] with the name of the file it concerns.
#[derive(Debug, thiserror::Error)]
#[error("{file}: {error}")]
pub struct FileError {
    pub file: String,
    #[source]
    pub error: ImportError,
}

/// One imported trace file (an artifact, scaling.md).
#[derive(Debug)]
pub struct Artifact {
    /// File name (or path) as given by the user.
    pub name: String,
    /// Size of the file as dropped, in bytes.
    pub size_bytes: u64,
    /// `sha256:` + hex SHA-256 of the bytes as dropped.
    pub artifact_id: String,
    pub format: Format,
    pub compression: Compression,
    pub model: Model,
}

/// What every loaded file has, whatever it is.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct Source {
    /// File name (or path) as given by the user.
    pub name: String,
    /// Size of the file as dropped, bytes.
    pub size_bytes: u64,
    /// Size after decompression, bytes.
    pub decompressed_bytes: u64,
    /// `sha256:` + hex SHA-256 of the bytes as dropped.
    pub artifact_id: String,
    pub compression: Compression,
}

/// What a file is, as [`load`] read it.
#[derive(Debug)]
pub enum Loaded {
    /// A trace: Perfetto protobuf or Chrome JSON (Kineto, JAX), imported into a [`Model`].
    Trace(Box<Artifact>),
    /// A compile-record file (compile-triage.md, "Input: compile records").
    Records {
        source: Source,
        records: records::RecordFile,
    },
    /// A `pins.json` (compile-triage.md, "Pins").
    Pins { source: Source, pins: Vec<Pin> },
    /// Memory telemetry JSON Lines (collective-memory.md, "Telemetry records").
    Telemetry {
        source: Source,
        telemetry: telemetry::TelemetryImport,
    },
    /// One Parquet aggregate file of `trialscope summarize` (`docs/parquet-schema.md`): one
    /// table of one artifact, decoded ([`crate::aggregate::pieces::decode`]).
    Aggregate {
        source: Source,
        piece: Box<crate::aggregate::pieces::Piece>,
    },
}

impl Loaded {
    /// `trace`, `records`, `pins`, `telemetry` or `aggregate`.
    pub fn kind(&self) -> &'static str {
        match self {
            Loaded::Trace(_) => "trace",
            Loaded::Records { .. } => "records",
            Loaded::Pins { .. } => "pins",
            Loaded::Telemetry { .. } => "telemetry",
            Loaded::Aggregate { .. } => "aggregate",
        }
    }

    /// Sets the artifact id (`sha256:` + lowercase hex of the bytes as dropped) of a file
    /// loaded with [`LoadOptions::hash`] false.
    pub fn set_artifact_id(&mut self, id: String) {
        match self {
            Loaded::Trace(a) => a.artifact_id = id,
            Loaded::Records { source, .. }
            | Loaded::Pins { source, .. }
            | Loaded::Telemetry { source, .. }
            | Loaded::Aggregate { source, .. } => source.artifact_id = id,
        }
    }

    /// What the file is, for messages: `a trace`, `a compile-record file`, `a pins file`,
    /// `a memory telemetry file`, `a Parquet aggregate table`.
    pub fn description(&self) -> &'static str {
        match self {
            Loaded::Trace(_) => "a trace",
            Loaded::Records { .. } => "a compile-record file",
            Loaded::Pins { .. } => "a pins file",
            Loaded::Telemetry { .. } => "a memory telemetry file",
            Loaded::Aggregate { .. } => "a Parquet aggregate table",
        }
    }
}

/// Options for [`load`].
#[derive(Clone, Debug)]
pub struct LoadOptions {
    /// Ceiling on decompressed bytes; larger files are rejected with [`ImportError::TooLarge`].
    pub max_decompressed_bytes: u64,
    /// Hash the bytes as dropped on the load's own pass (the default). `false`: the caller
    /// computes the artifact id elsewhere (the browser's worker, with Web Crypto beside the
    /// import) and sets it with [`Loaded::set_artifact_id`]; until then every artifact id of
    /// the result is empty. The rest of the result is the same either way.
    pub hash: bool,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            max_decompressed_bytes: DEFAULT_MAX_DECOMPRESSED,
            hash: true,
        }
    }
}

/// `sha256:` + lowercase hex SHA-256 of `bytes`.
pub fn artifact_id(bytes: &[u8]) -> String {
    hex_id(&Sha256::digest(bytes))
}

thread_local! {
    static INFLATIONS: Cell<u64> = const { Cell::new(0) };
    static SNIFF_SCANNED: Cell<u64> = const { Cell::new(0) };
}

/// Leading white-space bytes this thread's sniffing has scanned. A test hook
/// (`tests/it/complexity.rs`): each is scanned once, so a file starting with a long run of white
/// space costs time linear in it.
#[doc(hidden)]
pub fn sniff_scanned_on_this_thread() -> u64 {
    SNIFF_SCANNED.with(Cell::get)
}

/// How many times this thread has inflated a file's bytes (one count per [`decompress`] call
/// that found a gzip/zlib wrapper, however many layers). A test hook: [`load`] inflates each
/// file exactly once.
pub fn inflations_on_this_thread() -> u64 {
    INFLATIONS.with(Cell::get)
}

/// Loads one file held in memory: [`load_from`] over `bytes`.
pub fn load(
    name: &str,
    bytes: &[u8],
    opts: &LoadOptions,
    progress: &mut dyn FnMut(f64),
) -> Result<Loaded, FileError> {
    load_from(name, &bytes, opts, progress)
}

/// Largest Parquet aggregate file [`load`] reads (it is decoded whole): 256 MiB.
pub const MAX_AGGREGATE_FILE_BYTES: u64 = 256 << 20;

/// Bytes of content (after leading white space) the sniffer looks at.
const SNIFF_BYTES: usize = 64 << 10;

/// Bytes of the head the format checks ([`detect_format`], the pins check) look at.
const FORMAT_HEAD_BYTES: usize = 4096;

/// Loads one file, streaming: reads `src` in chunks, inflating gzip/zlib as it goes (each file
/// is inflated once), hashes the bytes as dropped on the same pass (the artifact id), decides
/// from the first 64 KiB of content what the file is, and runs the one importer that fits
/// ([`Loaded`]). A trace is never held whole: the importer consumes the decompressed stream
/// chunk by chunk. Order of the sniff: a Parquet aggregate table (the `PAR1` magic at the start;
/// the footer's is checked by its reader), memory telemetry (a first JSON line with `timestamp_ns`
/// and `event_type`), a Chrome JSON trace (`traceEvents`, or an array whose objects have `ph`),
/// a pins file (`{"pins": […]}`, or a bare JSON array when the name contains `pins` and ends
/// in `.json`), a compile-record file (a `{"records": […]}` object, or JSON Lines or an array
/// with at least one object having a key field: [`records::RECORD_SHAPE`]), another JSON
/// document read as a trace when it has an event with a phase (or no event), a Perfetto
/// protobuf trace; anything else — JSON that is neither a trace nor records (`package.json`,
/// `{"a":1}`) included — is [`ImportError::NotATrace`] saying what the bytes look like. `progress` receives fractions
/// in [0, 1].
///
/// A compressed stream that breaks after some bytes were read keeps what came before the break
/// (a `compressed_stream_truncated` diagnostic, data loss).
///
/// Errors: [`FileError`] naming `name` when the container cannot be read (empty, corrupt
/// compression at its start, over `opts.max_decompressed_bytes`, no format this tool reads, a
/// malformed pins file, a telemetry file with an unknown schema version or no record, a Parquet
/// file that is truncated, no trialscope aggregate, or of another schema or table version — the
/// message names the version found).
pub fn load_from(
    name: &str,
    src: &dyn ByteSource,
    opts: &LoadOptions,
    progress: &mut dyn FnMut(f64),
) -> Result<Loaded, FileError> {
    let err = |error| FileError {
        file: name.to_string(),
        error,
    };
    let (compression, mut win) =
        stream::open(src, opts.max_decompressed_bytes, opts.hash).map_err(err)?;
    // The sniffer's head: 64 KiB of content after any leading white space.
    // (`fill`, not one `more` per read: a source of tiny reads would refill once per byte.)
    // The white space is counted on from where the last round stopped: 512 MiB of spaces
    // before a JSON trace were scanned again after every read (quadratic: 128 MiB took 18 s).
    // They stay buffered (a record file's line numbers count its leading blank lines), within
    // the file's budget: they are decompressed bytes of the file.
    let mut ws = 0;
    loop {
        let d = win.data();
        let more = d[ws..]
            .iter()
            .take_while(|b| b.is_ascii_whitespace())
            .count();
        SNIFF_SCANNED.with(|c| c.set(c.get() + more as u64));
        ws += more;
        if d.len() - ws >= SNIFF_BYTES || win.at_eof() {
            break;
        }
        win.fill(ws + SNIFF_BYTES);
    }
    progress(0.02);
    // A run of white space longer than the format checks' look is skipped for them (it read
    // as "only white space"); a shorter one stays, since a Perfetto trace's first bytes (0x0a,
    // then a length) can be white space too.
    let d = win.data();
    let sniffed = sniff(name, if ws > FORMAT_HEAD_BYTES { &d[ws..] } else { d });
    let small = |win: &mut stream::Window<'_>, cap: u64| win.read_all(cap).map_err(err);
    // A trace imported from where the window is, streamed.
    let streamed = |format, win: &mut stream::Window<'_>, progress: &mut dyn FnMut(f64)| {
        let model = trace(format, name, win, progress)?;
        traced(name, src, compression, format, model, win, 0)
    };
    let out = match sniffed {
        Sniffed::Telemetry => {
            let data = small(&mut win, records::MAX_RECORD_FILE_BYTES)?;
            let telemetry = telemetry::import(name, &data)
                .map_err(|e| err(ImportError::Malformed(without_file(name, &e.to_string()))))?;
            Loaded::Telemetry {
                source: source_of(name, src, compression, &data, &mut win),
                telemetry,
            }
        }
        Sniffed::Pins => {
            let data = small(&mut win, records::MAX_RECORD_FILE_BYTES)?;
            let pins = records::parse_pins(&data).map_err(err)?;
            Loaded::Pins {
                source: source_of(name, src, compression, &data, &mut win),
                pins,
            }
        }
        // A trace whose `traceEvents` member comes after the head: streamed as any trace, not
        // read whole first to be tried as a record file.
        Sniffed::Json if trace_member_later(&win) => {
            streamed(Format::ChromeJson, &mut win, progress).map_err(err)?
        }
        Sniffed::Json => match win.read_all(records::MAX_RECORD_FILE_BYTES) {
            Ok(data) => match records::parse_records(name, &data) {
                // JSON with the records' shape (a `records` object, or an entry with a key
                // field) is a record file, its other-kind and malformed entries listed.
                Ok(f) => Loaded::Records {
                    source: source_of(name, src, compression, &data, &mut win),
                    records: f,
                },
                Err(records_err) => {
                    // Not records: a trace whose `traceEvents`/`ph` the sniffer did not see in
                    // its head, or JSON that is neither (a `package.json`, `{"a":1}`).
                    let json_not_records = matches!(records_err, ImportError::NotATrace { .. });
                    let mut mem = stream::Window::from_bytes(&data);
                    let model = match trace(Format::ChromeJson, name, &mut mem, progress) {
                        Ok(m) if json_not_records && !has_trace_events(&m) => {
                            return Err(err(neither_trace_nor_records(
                                "no event has a phase (\"ph\")",
                            )))
                        }
                        Ok(m) => m,
                        Err(ImportError::Malformed(why)) if json_not_records => {
                            return Err(err(neither_trace_nor_records(&why)))
                        }
                        Err(e) => return Err(err(e)),
                    };
                    traced(
                        name,
                        src,
                        compression,
                        Format::ChromeJson,
                        model,
                        &mut win,
                        data.len(),
                    )
                    .map_err(err)?
                }
            },
            // Too big for a record file: a trace, streamed from where the window is.
            Err(ImportError::TooLarge { .. }) => {
                streamed(Format::ChromeJson, &mut win, progress).map_err(err)?
            }
            Err(e) => return Err(err(e)),
        },
        Sniffed::Trace(format) => streamed(format, &mut win, progress).map_err(err)?,
        Sniffed::Parquet => {
            let data = small(&mut win, MAX_AGGREGATE_FILE_BYTES)?;
            let source = source_of(name, src, compression, &data, &mut win);
            let piece = crate::aggregate::pieces::decode(name, data)
                .map_err(|e| err(ImportError::Malformed(without_file(name, &e.to_string()))))?;
            Loaded::Aggregate {
                source,
                piece: Box::new(piece),
            }
        }
        Sniffed::Unknown(seen) => return Err(err(ImportError::NotATrace { seen })),
    };
    progress(1.0);
    Ok(out)
}

/// The error of a JSON file that is no trace (`trace_says`: what the trace reader found)
/// and has not the compile records' shape ([`records::RECORD_SHAPE`]): no format this tool
/// reads, so skipped inside a folder and an error naming the file when named.
fn neither_trace_nor_records(trace_says: &str) -> ImportError {
    ImportError::NotATrace {
        seen: format!(
            "JSON that is neither a trace ({trace_says}) nor a compile-record file (no \
             object with a key field such as cell, hardware or cache_state)"
        ),
    }
}

/// Whether the JSON in `win` (its head buffered, nothing consumed) is an object with a
/// top-level `traceEvents` member past the head ([`chrome_json::TopLevelScan`]). Decided on the
/// head when its top-level object ends there (JSON Lines, small objects) or has a `records`
/// member first; else on a second pass over the stream ([`stream::Window::reopen`], up to
/// [`records::MAX_RECORD_FILE_BYTES`]), so `win` holds only its head meanwhile.
fn trace_member_later(win: &stream::Window<'_>) -> bool {
    let mut scan = chrome_json::TopLevelScan::default();
    if let Some(decided) = scan.feed(win.data()) {
        return decided;
    }
    if win.at_eof() {
        return false;
    }
    match win.reopen() {
        Some(Ok(mut pass)) => {
            chrome_json::TopLevelScan::default().finish(&mut pass, records::MAX_RECORD_FILE_BYTES)
        }
        _ => false,
    }
}

/// True when a Chrome JSON import found something of a trace: an event with a phase (every
/// event read but those without one or not an object), or no event at all (`[]`, an empty
/// trace).
fn has_trace_events(m: &Model) -> bool {
    let not_events =
        m.diagnostics.count("event_without_phase") + m.diagnostics.count("event_not_an_object");
    m.stats.events == 0 || m.stats.events > not_events || !m.slices.is_empty()
}

/// Runs the trace importer for `format` over the window.
fn trace(
    format: Format,
    name: &str,
    win: &mut stream::Window<'_>,
    progress: &mut dyn FnMut(f64),
) -> Result<Model, ImportError> {
    let mut model = Model::default();
    let mut inner = |f: f64| progress(0.02 + 0.98 * f);
    match format {
        Format::PerfettoProto => perfetto::import_stream(win, &mut model, &mut inner),
        Format::ChromeJson => chrome_json::import_stream(win, name, &mut model, &mut inner)?,
    }
    Ok(model)
}

/// The [`Loaded::Trace`] of an imported model: settles the stream (its early end, the hash)
/// and the decompressed size (`in_memory` when the importer read a copy held in memory).
fn traced(
    name: &str,
    src: &dyn ByteSource,
    compression: Compression,
    format: Format,
    mut model: Model,
    win: &mut stream::Window<'_>,
    in_memory: usize,
) -> Result<Loaded, ImportError> {
    // Drain (and hash) the rest first: a break found there counts too.
    let artifact_id = settled_id(win, src);
    match win.take_failure() {
        Some(e @ ImportError::TooLarge { .. }) => return Err(e),
        Some(e) => {
            let at = win.decoded_bytes();
            model
                .diagnostics
                .add(Diag::CompressedStreamTruncated, Some(at), None, || {
                    Some(format!("after {at} decompressed bytes: {e}"))
                });
        }
        None => {}
    }
    let decompressed = win.decoded_bytes().max(in_memory as u64);
    model.stats.decompressed_bytes = decompressed;
    Ok(Loaded::Trace(Box::new(Artifact {
        name: name.to_string(),
        size_bytes: src.size(),
        artifact_id,
        format,
        compression,
        model,
    })))
}

/// The [`Source`] of a small file read whole (`data`).
fn source_of(
    name: &str,
    src: &dyn ByteSource,
    compression: Compression,
    data: &[u8],
    win: &mut stream::Window<'_>,
) -> Source {
    Source {
        name: name.to_string(),
        size_bytes: src.size(),
        decompressed_bytes: data.len() as u64,
        artifact_id: settled_id(win, src),
        compression,
    }
}

/// Drains `win` ([`stream::Window::finish_hash`]) and gives the artifact id: the pass's hash,
/// else (a pass that could not hash) a fresh read's, else (a window that does not hash,
/// [`LoadOptions::hash`] false) an empty string for the caller to fill.
fn settled_id(win: &mut stream::Window<'_>, src: &dyn ByteSource) -> String {
    let hashes = win.hashes();
    match win.finish_hash() {
        Some(id) => id,
        None if hashes => artifact_id_of(src),
        None => String::new(),
    }
}

/// The artifact id (`sha256:` + hex) from a fresh read of `src`: when a pass could not hash
/// it, and the worker's fallback when Web Crypto cannot.
pub(crate) fn artifact_id_of(src: &dyn ByteSource) -> String {
    let mut h = Sha256::new();
    if let Ok(mut r) = src.open() {
        let mut buf = vec![0u8; 1 << 16];
        while let Ok(k) = r.read(&mut buf) {
            if k == 0 {
                break;
            }
            h.update(&buf[..k]);
        }
    }
    hex_id(&h.finalize())
}

/// `sha256:` + lowercase hex of a digest.
pub(crate) fn hex_id(digest: &[u8]) -> String {
    let mut s = String::with_capacity(7 + 64);
    s.push_str("sha256:");
    for b in digest {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

pub(crate) fn count_inflation() {
    INFLATIONS.with(|c| c.set(c.get() + 1));
}

/// `message` without the leading file name the telemetry reader puts there (the
/// [`FileError`] names the file once): `f: no record` → `no record`, `f:7: bad` → `line 7: bad`.
fn without_file(name: &str, message: &str) -> String {
    match message.strip_prefix(name) {
        Some(rest) if rest.starts_with(": ") => rest[2..].to_string(),
        Some(rest) if rest.starts_with(':') => format!("line {}", &rest[1..]),
        _ => message.to_string(),
    }
}

/// Loads one file that must be a trace (`trialscope inspect`/`slices`, tests): [`load`], then
/// anything but a trace is [`ImportError::NotATrace`] naming what the file is.
pub fn import(name: &str, bytes: &[u8]) -> Result<Artifact, FileError> {
    import_with(name, bytes, &LoadOptions::default(), &mut |_| {})
}

/// [`import`] with options and progress.
pub fn import_with(
    name: &str,
    bytes: &[u8],
    opts: &LoadOptions,
    progress: &mut dyn FnMut(f64),
) -> Result<Artifact, FileError> {
    import_from(name, &bytes, opts, progress)
}

/// [`import_with`] reading the file in chunks from `src` ([`load_from`]).
pub fn import_from(
    name: &str,
    src: &dyn ByteSource,
    opts: &LoadOptions,
    progress: &mut dyn FnMut(f64),
) -> Result<Artifact, FileError> {
    match load_from(name, src, opts, progress)? {
        Loaded::Trace(a) => Ok(*a),
        other => Err(FileError {
            file: name.to_string(),
            error: ImportError::NotATrace {
                seen: other.description().into(),
            },
        }),
    }
}

/// The importers themselves, for tests that must drive one format on bytes the sniffer would
/// not hand it (prefixes of a file, arbitrary bytes). Nothing outside tests uses this: files
/// are read through [`load`].
#[doc(hidden)]
pub mod testing {
    use super::{chrome_json, perfetto, records, telemetry, ImportError};
    use crate::model::compile_record::Pin;
    use crate::model::Model;

    /// The Chrome JSON importer on decompressed `data`.
    pub fn chrome_json_import(
        data: &[u8],
        name: &str,
        model: &mut Model,
        progress: &mut dyn FnMut(f64),
    ) -> Result<(), ImportError> {
        chrome_json::import(data, name, model, progress)
    }

    /// The Perfetto importer on decompressed `data`.
    pub fn perfetto_import(data: &[u8], model: &mut Model, progress: &mut dyn FnMut(f64)) {
        perfetto::import(data, model, progress)
    }

    /// The Perfetto import's decode floor on decompressed `data`: its field walk alone, no
    /// model (see `perfetto::field_walk`).
    pub fn perfetto_field_walk(data: &[u8]) -> perfetto::WalkCounts {
        perfetto::field_walk(data)
    }

    /// The Perfetto importer on decompressed `data` with a first pass that only collects clock
    /// snapshots and track descriptors (the reference its one-pass import must equal).
    pub fn perfetto_import_two_pass(data: &[u8], model: &mut Model) {
        perfetto::import_passes(
            &mut super::stream::Window::from_bytes(data),
            model,
            &mut |_| {},
            true,
        );
    }

    /// How many passes the streaming Perfetto import of `data` makes: 1, or 2 when a clock
    /// snapshot or track descriptor came too late for one pass.
    pub fn perfetto_passes(data: &[u8]) -> u32 {
        perfetto::import_passes(
            &mut super::stream::Window::from_bytes(data),
            &mut Model::default(),
            &mut |_| {},
            false,
        )
    }

    /// The Perfetto sniffer.
    pub fn looks_like_trace(data: &[u8]) -> bool {
        perfetto::looks_like_trace(data)
    }

    /// The XSpace sniffer.
    pub fn looks_like_xspace(data: &[u8]) -> bool {
        perfetto::looks_like_xspace(data)
    }

    /// The compile-record reader on decompressed `data`.
    pub fn parse_records(file: &str, data: &[u8]) -> Result<records::RecordFile, ImportError> {
        records::parse_records(file, data)
    }

    /// The pins reader on decompressed `data`.
    pub fn parse_pins(data: &[u8]) -> Result<Vec<Pin>, ImportError> {
        records::parse_pins(data)
    }

    /// The telemetry sniffer.
    pub fn looks_like_telemetry(data: &[u8]) -> bool {
        telemetry::looks_like_telemetry(data)
    }

    /// The telemetry reader on decompressed `data`.
    pub fn telemetry_import(
        file: &str,
        data: &[u8],
    ) -> Result<telemetry::TelemetryImport, telemetry::TelemetryError> {
        telemetry::import(file, data)
    }
}

/// What [`sniff`] found.
enum Sniffed {
    /// The `PAR1` magic: a Parquet aggregate table.
    Parquet,
    Telemetry,
    Pins,
    /// JSON that is no Chrome trace by its head: records, else a trace.
    Json,
    Trace(Format),
    Unknown(String),
}

/// The one sniffer: decides what decompressed `data` is from its content; `name` only breaks
/// the pins-or-records tie of a bare JSON array.
fn sniff(name: &str, data: &[u8]) -> Sniffed {
    if crate::aggregate::pieces::looks_like_parquet(data) {
        return Sniffed::Parquet;
    }
    if telemetry::looks_like_telemetry(data) {
        return Sniffed::Telemetry;
    }
    match detect_format(data) {
        Ok(Format::ChromeJson) => {
            if records::is_trace_json(data) {
                return Sniffed::Trace(Format::ChromeJson);
            }
            let head = &data[..data.len().min(FORMAT_HEAD_BYTES)];
            let text = String::from_utf8_lossy(head);
            let t = text.trim_start_matches('\u{feff}').trim_start();
            let pins_name = crate::model::facts::is_pins_name(name);
            let object_with_pins = t.starts_with('{') && text.contains("\"pins\"");
            if object_with_pins || (pins_name && t.starts_with('[')) {
                return Sniffed::Pins;
            }
            Sniffed::Json
        }
        Ok(f) => Sniffed::Trace(f),
        Err(ImportError::NotATrace { seen }) => {
            // JSON Lines whose first line starts with a blank or a non-object still may be
            // records; let the record reader decide when the text is JSON-ish.
            if records::looks_like_json_lines(data) && looks_like_text(data) {
                Sniffed::Json
            } else {
                Sniffed::Unknown(seen)
            }
        }
        Err(e) => Sniffed::Unknown(e.to_string()),
    }
}

/// Whether the head of `data` (its first 64 KiB after leading white space, what
/// [`records::looks_like_json_lines`] looks at) could be JSON text: UTF-8 (a character cut at
/// the head's end allowed), with no control character but tab, line feed and carriage return.
/// Random bytes with a `\n{` somewhere were taken for JSON Lines and read as an empty trace.
fn looks_like_text(data: &[u8]) -> bool {
    let data = data.trim_ascii_start();
    let head = &data[..data.len().min(SNIFF_BYTES)];
    let utf8 = match std::str::from_utf8(head) {
        Ok(_) => true,
        Err(e) => e.error_len().is_none(),
    };
    utf8 && !head
        .iter()
        .any(|&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r'))
}

/// Removes gzip (all members) or zlib wrappers, recursively up to 3 levels, enforcing `limit`.
/// Uncompressed input is borrowed, not copied (so a load holds one copy of the text, not two).
/// Counts one inflation ([`inflations_on_this_thread`]) when a wrapper was found.
///
/// Errors: [`ImportError::Empty`], [`ImportError::Decompress`], [`ImportError::TooLarge`].
pub fn decompress(
    bytes: &[u8],
    limit: u64,
) -> Result<(Compression, std::borrow::Cow<'_, [u8]>), ImportError> {
    if bytes.is_empty() {
        return Err(ImportError::Empty);
    }
    let mut compression = Compression::None;
    let mut data: Option<Vec<u8>> = None;
    for _ in 0..3 {
        let cur: &[u8] = data.as_deref().unwrap_or(bytes);
        let next = if cur.starts_with(&[0x1f, 0x8b]) {
            compression = Compression::Gzip;
            read_limited(flate2::read::MultiGzDecoder::new(cur), limit, "gzip")?
        } else if is_zlib_header(cur) {
            compression = Compression::Zlib;
            read_limited(flate2::read::ZlibDecoder::new(cur), limit, "zlib")?
        } else {
            break;
        };
        data = Some(next);
    }
    let data = match data {
        Some(d) => {
            INFLATIONS.with(|c| c.set(c.get() + 1));
            std::borrow::Cow::Owned(d)
        }
        None => {
            if bytes.len() as u64 > limit {
                return Err(ImportError::TooLarge { limit_bytes: limit });
            }
            std::borrow::Cow::Borrowed(bytes)
        }
    };
    if data.is_empty() {
        return Err(ImportError::Empty);
    }
    Ok((compression, data))
}

fn is_zlib_header(b: &[u8]) -> bool {
    b.len() >= 2
        && b[0] == 0x78
        && matches!(b[1], 0x01 | 0x5e | 0x9c | 0xda)
        && (u16::from(b[0]) << 8 | u16::from(b[1])) % 31 == 0
}

/// Reads a decoder to the end, failing once more than `limit` bytes come out.
pub(crate) fn read_limited(
    r: impl Read,
    limit: u64,
    what: &'static str,
) -> Result<Vec<u8>, ImportError> {
    let mut out = Vec::new();
    let mut taken = r.take(limit.saturating_add(1));
    taken
        .read_to_end(&mut out)
        .map_err(|e| ImportError::Decompress {
            what,
            detail: e.to_string(),
        })?;
    if out.len() as u64 > limit {
        return Err(ImportError::TooLarge { limit_bytes: limit });
    }
    Ok(out)
}

/// Detects the trace format of decompressed bytes (trace-formats.md §7), or says what the bytes
/// look like instead.
fn detect_format(data: &[u8]) -> Result<Format, ImportError> {
    let head = &data[..data.len().min(FORMAT_HEAD_BYTES)];
    let first_non_ws = head.iter().position(|b| !b.is_ascii_whitespace());
    let skip_bom = if head.starts_with(&[0xef, 0xbb, 0xbf]) {
        3
    } else {
        0
    };
    let text_start = head[skip_bom..]
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .map(|p| p + skip_bom);
    if let Some(p) = text_start {
        let rest = &head[p..];
        if rest.starts_with(b"{") || rest.starts_with(b"[") {
            let after = rest[1..].iter().find(|b| !b.is_ascii_whitespace());
            if matches!(
                after,
                Some(b'"') | Some(b'{') | Some(b']') | Some(b'}') | None
            ) {
                return Ok(Format::ChromeJson);
            }
            // An event array whose first elements are no objects (`[null, {…}]`, `[1, {…}]`):
            // those are counted and skipped (`event_not_an_object`), as inside `traceEvents`,
            // when an event with a phase follows in the head.
            if rest.starts_with(b"[") && memchr::memmem::find(head, b"\"ph\"").is_some() {
                return Ok(Format::ChromeJson);
            }
        }
    }
    // XSpace (.xplane.pb) also starts with 0x0a and can pass the TracePacket plausibility check.
    if head.first() == Some(&0x0a)
        && !perfetto::looks_like_xspace(data)
        && perfetto::looks_like_trace(data)
    {
        return Ok(Format::PerfettoProto);
    }
    Err(ImportError::NotATrace {
        seen: describe_bytes(data, first_non_ws),
    })
}

/// A short description of what unknown bytes look like, for the error message.
fn describe_bytes(data: &[u8], first_non_ws: Option<usize>) -> String {
    let head = &data[..data.len().min(512)];
    let lower: String = head
        .iter()
        .take(64)
        .map(|&b| (b as char).to_ascii_lowercase())
        .collect();
    let t = lower.trim_start();
    if head.starts_with(b"PK\x03\x04") {
        return "a zip archive (unpack it and drop the trace files inside)".into();
    }
    if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        return "zstd-compressed data (decompress it first: zstd is not supported yet)".into();
    }
    if head.len() > 262 && &head[257..262] == b"ustar" {
        return "a tar archive (unpack it first)".into();
    }
    if head.first() == Some(&0x80) && head.get(1).is_some_and(|&v| (2..=5).contains(&v)) {
        return "a Python pickle".into();
    }
    if t.starts_with("<!doctype html") || t.starts_with("<html") {
        return "an HTML page (a systrace HTML or a saved web page)".into();
    }
    if head.first() == Some(&0x0a) {
        if perfetto::looks_like_xspace(data) {
            return "an XSpace protobuf (.xplane.pb); load the trace.json.gz written beside it"
                .into();
        }
        return "protobuf data that is not a Perfetto trace".into();
    }
    if first_non_ws.is_none() {
        return "only white space".into();
    }
    if head
        .iter()
        .all(|b| b.is_ascii_graphic() || b.is_ascii_whitespace())
    {
        let line: String = String::from_utf8_lossy(head)
            .lines()
            .next()
            .unwrap_or("")
            .chars()
            .take(40)
            .collect();
        return format!("text starting with {line:?}");
    }
    let hex: Vec<String> = head.iter().take(8).map(|b| format!("{b:02x}")).collect();
    format!("binary data starting with bytes {}", hex.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_json_before_protobuf_newline() {
        assert_eq!(
            detect_format(b"\n{\"traceEvents\":[]}").unwrap(),
            Format::ChromeJson
        );
        assert_eq!(
            detect_format(b"[{\"ph\":\"X\"}]").unwrap(),
            Format::ChromeJson
        );
        assert_eq!(detect_format(b"[]").unwrap(), Format::ChromeJson);
    }

    #[test]
    fn names_what_it_saw() {
        let e = detect_format(b"<!DOCTYPE html><html>")
            .unwrap_err()
            .to_string();
        assert!(e.contains("HTML"), "{e}");
        let e = detect_format(b"PK\x03\x04rest").unwrap_err().to_string();
        assert!(e.contains("zip"), "{e}");
        let e = import("x.bin", b"\x00\x01\x02").unwrap_err().to_string();
        assert!(e.starts_with("x.bin: not a trace"), "{e}");
    }

    #[test]
    fn gzip_over_limit_is_an_error() {
        use std::io::Write;
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(&vec![b' '; 10_000]).unwrap();
        let gz = enc.finish().unwrap();
        assert!(matches!(
            decompress(&gz, 1000),
            Err(ImportError::TooLarge { .. })
        ));
        let (c, d) = decompress(&gz, 20_000).unwrap();
        assert_eq!((c, d.len()), (Compression::Gzip, 10_000));
        assert!(matches!(
            decompress(&gz[..gz.len() / 2], 20_000),
            Err(ImportError::Decompress { .. })
        ));
    }
}
