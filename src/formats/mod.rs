//! Bytes → [`Model`]: container detection and decompression, then one module per wire format.
//! The only layer that knows wire formats.
//!
//! Architecture Invariant: a bad *event* never fails an import — it is counted in
//! [`Model::diagnostics`]. Only an unreadable container (not a trace, corrupt compression,
//! over the size limit) is an [`ImportError`], and it names the file.

pub mod chrome_json;
pub mod perfetto;
pub mod records;
pub mod telemetry;
mod tracks;

use std::io::Read;

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::model::Model;

/// Default ceiling on decompressed bytes per file (4 GiB natively, 1.5 GiB in the browser).
#[cfg(not(target_arch = "wasm32"))]
pub const DEFAULT_MAX_DECOMPRESSED: u64 = 4 << 30;
/// Default ceiling on decompressed bytes per file (4 GiB natively, 1.5 GiB in the browser).
#[cfg(target_arch = "wasm32")]
pub const DEFAULT_MAX_DECOMPRESSED: u64 = 3 << 29;

/// The trace format of a file, after any compression wrapper.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
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

/// A compression wrapper found around the trace bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Compression {
    None,
    Gzip,
    Zlib,
}

/// Why a file could not be read at all.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ImportError {
    /// The bytes are no trace format this tool reads; `seen` says what they look like.
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
    /// The trace container is broken beyond repair (e.g. JSON with no event array).
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

/// One imported file (an artifact, scaling.md).
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

/// Options for [`import_with`].
#[derive(Clone, Debug)]
pub struct ImportOptions {
    /// Ceiling on decompressed bytes; larger files are rejected with [`ImportError::TooLarge`].
    pub max_decompressed_bytes: u64,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            max_decompressed_bytes: DEFAULT_MAX_DECOMPRESSED,
        }
    }
}

/// `sha256:` + lowercase hex SHA-256 of `bytes`.
pub fn artifact_id(bytes: &[u8]) -> String {
    let d = Sha256::digest(bytes);
    let mut s = String::with_capacity(7 + 64);
    s.push_str("sha256:");
    for b in d {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// Imports one file with default options. See [`import_with`].
pub fn import(name: &str, bytes: &[u8]) -> Result<Artifact, FileError> {
    import_with(name, bytes, &ImportOptions::default(), &mut |_| {})
}

/// Imports one file: detects compression and format from the bytes (never the name),
/// decompresses, and runs the format's importer. `progress` receives fractions in [0, 1].
///
/// Errors: [`FileError`] naming `name` when the container cannot be read.
pub fn import_with(
    name: &str,
    bytes: &[u8],
    opts: &ImportOptions,
    progress: &mut dyn FnMut(f64),
) -> Result<Artifact, FileError> {
    let err = |error| FileError {
        file: name.to_string(),
        error,
    };
    let artifact_id = artifact_id(bytes);
    let (compression, data) = decompress_cow(bytes, opts.max_decompressed_bytes).map_err(err)?;
    progress(0.1);
    let format = detect_format(&data).map_err(err)?;
    let mut model = Model::default();
    model.stats.decompressed_bytes = data.len() as u64;
    let mut inner = |f: f64| progress(0.1 + 0.9 * f);
    match format {
        Format::PerfettoProto => perfetto::import(&data, &mut model, &mut inner),
        Format::ChromeJson => {
            chrome_json::import(&data, name, &mut model, &mut inner).map_err(err)?
        }
    }
    progress(1.0);
    Ok(Artifact {
        name: name.to_string(),
        size_bytes: bytes.len() as u64,
        artifact_id,
        format,
        compression,
        model,
    })
}

/// Removes gzip (all members) or zlib wrappers, recursively up to 3 levels, enforcing `limit`.
pub fn decompress(bytes: &[u8], limit: u64) -> Result<(Compression, Vec<u8>), ImportError> {
    decompress_cow(bytes, limit).map(|(c, d)| (c, d.into_owned()))
}

/// Like [`decompress`], but uncompressed input is borrowed, not copied (so an import holds one
/// copy of the text, not two).
pub fn decompress_cow(
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
        Some(d) => std::borrow::Cow::Owned(d),
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
pub fn detect_format(data: &[u8]) -> Result<Format, ImportError> {
    let head = &data[..data.len().min(4096)];
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
