//! Files as streams: a [`ByteSource`] is opened once per pass and read in chunks; the bytes as
//! dropped are hashed (the artifact id) and counted (progress) on the way through, gzip/zlib
//! wrappers are inflated incrementally, and an importer sees the decompressed bytes through a
//! [`Window`] that holds only what it has not consumed yet. No load holds a whole file.

use std::cell::Cell;
use std::io::{self, BufReader, Read};
use std::rc::Rc;

use sha2::{Digest, Sha256};

use super::{Compression, ImportError};

/// Where a file's bytes (as dropped: compressed or not) come from. [`ByteSource::open`] may be
/// called more than once (an importer may read a file twice rather than hold it); every call
/// must yield the same bytes.
pub trait ByteSource {
    /// Size of the file as dropped, bytes (for progress; 0 when unknown).
    fn size(&self) -> u64;
    /// A reader from the first byte. Errors: the file cannot be opened or read.
    fn open(&self) -> io::Result<Box<dyn Read + '_>>;
}

impl ByteSource for &[u8] {
    fn size(&self) -> u64 {
        self.len() as u64
    }
    fn open(&self) -> io::Result<Box<dyn Read + '_>> {
        Ok(Box::new(*self))
    }
}

impl ByteSource for Vec<u8> {
    fn size(&self) -> u64 {
        self.len() as u64
    }
    fn open(&self) -> io::Result<Box<dyn Read + '_>> {
        Ok(Box::new(self.as_slice()))
    }
}

/// A file on disk, read in chunks (native only).
#[cfg(not(target_arch = "wasm32"))]
#[derive(Clone, Debug)]
pub struct FileSource {
    path: std::path::PathBuf,
    size: u64,
}

#[cfg(not(target_arch = "wasm32"))]
impl FileSource {
    /// Opens nothing yet: stats `path` for its size. Errors: the file does not exist or cannot
    /// be read.
    pub fn new(path: impl Into<std::path::PathBuf>) -> io::Result<Self> {
        let path = path.into();
        let meta = std::fs::metadata(&path)?;
        if meta.is_dir() {
            return Err(io::Error::other("is a directory"));
        }
        Ok(FileSource {
            path,
            size: meta.len(),
        })
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl ByteSource for FileSource {
    fn size(&self) -> u64 {
        self.size
    }
    fn open(&self) -> io::Result<Box<dyn Read + '_>> {
        Ok(Box::new(std::fs::File::open(&self.path)?))
    }
}

/// A source that hands out at most `chunk` bytes per read (tests: a chunk boundary anywhere
/// must not change a result).
#[derive(Clone, Debug)]
pub struct Chunked<'a> {
    /// The whole file.
    pub bytes: &'a [u8],
    /// Bytes per read, ≥ 1.
    pub chunk: usize,
}

impl ByteSource for Chunked<'_> {
    fn size(&self) -> u64 {
        self.bytes.len() as u64
    }
    fn open(&self) -> io::Result<Box<dyn Read + '_>> {
        struct R<'b>(&'b [u8], usize);
        impl Read for R<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = buf.len().min(self.1).min(self.0.len());
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        Ok(Box::new(R(self.bytes, self.chunk.max(1))))
    }
}

/// Reads the bytes as dropped, hashing (SHA-256) and counting them.
struct Hashing<'r> {
    inner: Box<dyn Read + 'r>,
    hash: Option<Rc<HashState>>,
    raw: Rc<Cell<u64>>,
}

/// The hash of one pass, shared between the raw reader and its [`Window`].
#[derive(Default)]
struct HashState {
    hasher: std::cell::RefCell<Sha256>,
    /// The raw reader reached the end of the file.
    done: Cell<bool>,
}

impl Read for Hashing<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let Some(h) = &self.hash {
            if n == 0 && !buf.is_empty() {
                h.done.set(true);
            }
            h.hasher.borrow_mut().update(&buf[..n]);
        }
        self.raw.set(self.raw.get() + n as u64);
        Ok(n)
    }
}

/// Counts decompressed bytes and fails past the limit.
struct Limited<R> {
    inner: R,
    count: Rc<Cell<u64>>,
    limit: u64,
}

impl<R: Read> Read for Limited<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        let total = self.count.get() + n as u64;
        self.count.set(total);
        if total > self.limit {
            return Err(io::Error::other(TooLargeMarker));
        }
        Ok(n)
    }
}

#[derive(Debug)]
struct TooLargeMarker;
impl std::fmt::Display for TooLargeMarker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("decompressed size over the limit")
    }
}
impl std::error::Error for TooLargeMarker {}

/// Bytes per read from the decoder into a [`Window`].
const CHUNK: usize = 1 << 20;

/// One pass over a file: the decompressed bytes, buffered only as far as the importer has not
/// consumed them. Offsets are positions in the decompressed stream.
#[allow(dead_code)]
pub(crate) struct Window<'r> {
    /// Buffer; `buf[..end]` holds bytes read, the rest is zeroed space for the next read.
    buf: Vec<u8>,
    end: usize,
    /// Consumed bytes at the front of `buf`.
    pos: usize,
    /// Stream offset of `buf[0]`.
    base: u64,
    src: Box<dyn Read + 'r>,
    eof: bool,
    /// Why the stream ended early, when it did (a corrupt or truncated compressed stream).
    failure: Option<ImportError>,
    what: &'static str,
    limit: u64,
    raw: Rc<Cell<u64>>,
    decoded: Rc<Cell<u64>>,
    size: u64,
    hash: Option<Rc<HashState>>,
    source: Option<&'r dyn ByteSource>,
    /// The decompressed bytes of a window made by [`Window::from_bytes`] (for [`Window::reopen`]).
    mem: Option<&'r [u8]>,
}

// The streaming importers (issue #9) use the whole interface; until then some of it is idle.
#[allow(dead_code)]
impl<'r> Window<'r> {
    /// A window over decompressed bytes already in memory (tests, small files).
    pub(crate) fn from_bytes(data: &'r [u8]) -> Window<'r> {
        let raw = Rc::new(Cell::new(0));
        let decoded = Rc::new(Cell::new(0));
        Window {
            buf: Vec::new(),
            end: 0,
            pos: 0,
            base: 0,
            src: Box::new(Counting {
                inner: data,
                raw: raw.clone(),
            }),
            eof: false,
            failure: None,
            what: "data",
            limit: u64::MAX,
            raw,
            decoded,
            size: data.len() as u64,
            hash: None,
            source: None,
            mem: Some(data),
        }
    }

    /// A second, independent pass over the same decompressed stream from its first byte (an
    /// importer that must read a file twice rather than hold it): same source, same limit, no
    /// hashing. `None` when the window has nothing to reopen. Errors: as [`open`].
    pub(crate) fn reopen(&self) -> Option<Result<Window<'r>, ImportError>> {
        if let Some(data) = self.mem {
            return Some(Ok(Window::from_bytes(data)));
        }
        let src = self.source?;
        Some(open(src, self.limit, false).map(|(_, w)| w))
    }

    /// The buffered, unconsumed bytes.
    pub(crate) fn data(&self) -> &[u8] {
        &self.buf[self.pos..self.end]
    }

    /// Stream offset of `data()[0]`.
    pub(crate) fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// True once the source is exhausted (what is buffered is all there is).
    pub(crate) fn at_eof(&self) -> bool {
        self.eof
    }

    /// Marks `n` buffered bytes consumed (`n ≤ data().len()`).
    pub(crate) fn consume(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.end);
    }

    /// Makes at least `n` unconsumed bytes available, reading more when needed; fewer only at
    /// the end of the stream. Returns how many are available.
    pub(crate) fn fill(&mut self, n: usize) -> usize {
        while self.end - self.pos < n && !self.eof {
            self.read_more(n);
        }
        self.end - self.pos
    }

    /// Reads one more chunk (at least one byte unless at the end); returns false at the end.
    pub(crate) fn more(&mut self) -> bool {
        if self.eof {
            return false;
        }
        let have = self.end - self.pos;
        self.read_more(have + 1);
        self.end - self.pos > have
    }

    fn read_more(&mut self, want: usize) {
        // Drop the consumed front before growing.
        if self.pos > 0 && (self.pos >= self.end / 2 || self.pos >= CHUNK) {
            self.buf.copy_within(self.pos..self.end, 0);
            self.end -= self.pos;
            self.base += self.pos as u64;
            self.pos = 0;
        }
        let have = self.end - self.pos;
        let need = want.saturating_sub(have).max(CHUNK);
        let start = self.end;
        // Zeroed space is grown only, never re-zeroed: short reads stay cheap.
        if self.buf.len() < start + need {
            self.buf.resize(start + need, 0);
        }
        let mut got = 0;
        while got < need {
            match self.src.read(&mut self.buf[start + got..start + need]) {
                Ok(0) => {
                    self.eof = true;
                    break;
                }
                Ok(k) => {
                    got += k;
                    if got >= want.saturating_sub(have) {
                        break;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.eof = true;
                    self.failure = Some(self.error_of(e));
                    break;
                }
            }
        }
        self.end = start + got;
    }

    fn error_of(&self, e: io::Error) -> ImportError {
        if e.get_ref().is_some_and(|i| i.is::<TooLargeMarker>()) {
            ImportError::TooLarge {
                limit_bytes: self.limit,
            }
        } else {
            ImportError::Decompress {
                what: self.what,
                detail: e.to_string(),
            }
        }
    }

    /// Reads the rest of the stream into one buffer (small files: records, pins, telemetry),
    /// failing past `cap` bytes in total. Errors: [`ImportError::TooLarge`] past `cap`; a
    /// corrupt compressed stream.
    pub(crate) fn read_all(&mut self, cap: u64) -> Result<Vec<u8>, ImportError> {
        while !self.eof {
            if self.end as u64 > cap {
                return Err(ImportError::TooLarge { limit_bytes: cap });
            }
            self.read_more(CHUNK);
        }
        if let Some(e) = self.failure.take() {
            return Err(e);
        }
        if (self.end - self.pos) as u64 > cap {
            return Err(ImportError::TooLarge { limit_bytes: cap });
        }
        let mut out = std::mem::take(&mut self.buf);
        out.truncate(self.end);
        self.end = 0;
        out.drain(..self.pos);
        self.base += self.pos as u64;
        self.pos = 0;
        Ok(out)
    }

    /// Reads the rest of the stream into one buffer, up to its end or to where it broke off
    /// (the failure stays for [`Window::take_failure`]). Only for the importers' whole-buffer
    /// fallback until they stream.
    pub(crate) fn read_available(&mut self) -> Vec<u8> {
        while !self.eof {
            self.read_more(CHUNK);
        }
        let mut out = std::mem::take(&mut self.buf);
        out.drain(..self.pos);
        self.base += self.pos as u64;
        self.pos = 0;
        out
    }

    /// Fraction of the file (as dropped) read so far, in [0, 1].
    pub(crate) fn fraction(&self) -> f64 {
        if self.size == 0 {
            return 0.0;
        }
        (self.raw.get() as f64 / self.size as f64).min(1.0)
    }

    /// Decompressed bytes produced so far.
    pub(crate) fn decoded_bytes(&self) -> u64 {
        self.decoded.get().max(self.base + self.end as u64)
    }

    /// Takes the error that ended the stream early, if any.
    pub(crate) fn take_failure(&mut self) -> Option<ImportError> {
        self.failure.take()
    }

    /// Reads (and discards) the rest of the stream so the hash covers every byte, and returns
    /// the artifact id (`sha256:` + hex) when this window hashes (one opened by [`open`] with
    /// `hash`). When the stream ended early (a corrupt compressed stream), the rest of the file
    /// is hashed from a fresh read of the source.
    pub(crate) fn finish_hash(&mut self) -> Option<String> {
        let state = self.hash.clone()?;
        self.buf = Vec::new();
        self.end = 0;
        self.pos = 0;
        let mut sink = vec![0u8; CHUNK];
        while !self.eof {
            match self.src.read(&mut sink) {
                Ok(0) => self.eof = true,
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                // A stream that breaks while being drained is reported like one that broke
                // while the importer read it (a corrupt checksum after the last event).
                Err(e) => {
                    self.eof = true;
                    if self.failure.is_none() {
                        self.failure = Some(self.error_of(e));
                    }
                }
            }
        }
        if !state.done.get() {
            // The decoder stopped before the end of the file: hash the file from the start.
            let mut h = Sha256::new();
            let mut r = self.source?.open().ok()?;
            loop {
                match r.read(&mut sink) {
                    Ok(0) => break,
                    Ok(k) => h.update(&sink[..k]),
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(_) => return None,
                }
            }
            return Some(super::hex_id(&h.finalize()));
        }
        let h = std::mem::take(&mut *state.hasher.borrow_mut());
        Some(super::hex_id(&h.finalize()))
    }
}

/// Counts bytes read (a window over memory).
struct Counting<R> {
    inner: R,
    raw: Rc<Cell<u64>>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.raw.set(self.raw.get() + n as u64);
        Ok(n)
    }
}

/// The first `n` bytes of `r` (fewer at its end), and a reader that still yields them first.
fn peek<'s>(mut r: Box<dyn Read + 's>, n: usize) -> io::Result<(Vec<u8>, Box<dyn Read + 's>)> {
    let mut head = vec![0u8; n];
    let mut got = 0;
    while got < n {
        match r.read(&mut head[got..]) {
            Ok(0) => break,
            Ok(k) => got += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    head.truncate(got);
    let again = io::Cursor::new(head.clone()).chain(r);
    Ok((head, Box::new(again)))
}

/// Opens one pass over `src`: peels up to three gzip/zlib layers (inflated as read), limits the
/// decompressed bytes to `limit`, and when `hash` hashes the bytes as dropped (the artifact id
/// comes from [`Window::finish_hash`]).
///
/// Errors: the source cannot be opened; [`ImportError::Empty`]; a wrapper whose first bytes do
/// not inflate ([`ImportError::Decompress`]).
pub(crate) fn open<'s>(
    src: &'s dyn ByteSource,
    limit: u64,
    hash: bool,
) -> Result<(Compression, Window<'s>), ImportError> {
    let raw = Rc::new(Cell::new(0));
    let decoded = Rc::new(Cell::new(0));
    let reader = src
        .open()
        .map_err(|e| ImportError::Malformed(format!("cannot read: {e}")))?;
    let state = hash.then(|| Rc::new(HashState::default()));
    let hashing = Hashing {
        inner: reader,
        hash: state.clone(),
        raw: raw.clone(),
    };
    let mut cur: Box<dyn Read + 's> = Box::new(hashing);
    let mut compression = Compression::None;
    let mut what = "data";
    for _ in 0..3 {
        let (head, next) =
            peek(cur, 2).map_err(|e| ImportError::Malformed(format!("cannot read: {e}")))?;
        cur = next;
        if head.starts_with(&[0x1f, 0x8b]) {
            compression = Compression::Gzip;
            what = "gzip";
            cur = Box::new(flate2::bufread::MultiGzDecoder::new(
                BufReader::with_capacity(1 << 16, cur),
            ));
        } else if super::is_zlib_header(&head) {
            compression = Compression::Zlib;
            what = "zlib";
            cur = Box::new(flate2::bufread::ZlibDecoder::new(BufReader::with_capacity(
                1 << 16,
                cur,
            )));
        } else {
            break;
        }
    }
    if compression != Compression::None {
        super::count_inflation();
    }
    let limited = Limited {
        inner: cur,
        count: decoded.clone(),
        limit,
    };
    let mut w = Window {
        buf: Vec::new(),
        end: 0,
        pos: 0,
        base: 0,
        src: Box::new(limited),
        eof: false,
        failure: None,
        what,
        limit,
        raw,
        decoded,
        size: src.size(),
        hash: state,
        source: Some(src),
        mem: None,
    };
    w.fill(1);
    if w.data().is_empty() {
        return Err(w.take_failure().unwrap_or(ImportError::Empty));
    }
    Ok((compression, w))
}
