//! Files as streams: a [`ByteSource`] is opened once per pass and read in chunks; the bytes as
//! dropped are hashed (the artifact id) and counted (progress) on the way through, gzip/zlib
//! wrappers are inflated incrementally, and an importer sees the decompressed bytes through a
//! [`Window`] that holds only what it has not consumed yet. No load holds a whole file.
//! Natively, a file is read, hashed and inflated on a second thread that stays at most 2 MiB
//! ahead of the importer (`pipe`); in wasm32, and for bytes in memory, on the caller's thread.

use std::cell::Cell;
use std::io::{self, BufReader, Read};
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

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
    /// Like [`ByteSource::open`], a reader from the first byte, but one another thread may own
    /// (native only): with it, a load ([`load_from`](super::load_from)) reads, hashes and
    /// inflates on a second thread while the importer parses. `None` (the default): the source cannot give one, the pass runs on the
    /// caller's thread. Errors: as [`ByteSource::open`].
    #[cfg(not(target_arch = "wasm32"))]
    fn open_owned(&self) -> Option<io::Result<Box<dyn Read + Send>>> {
        None
    }
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
    fn open_owned(&self) -> Option<io::Result<Box<dyn Read + Send>>> {
        Some(std::fs::File::open(&self.path).map(|f| Box::new(f) as Box<dyn Read + Send>))
    }
}

/// A [`Read`] over a source fetched in pieces of at most `piece` bytes — the web worker's
/// `File.slice` reads (`ui::worker`), the Node stage timer's (`tools/bench/wasm_stages`):
/// `fetch(offset, len, buf)` replaces `buf` by up to `len` bytes at byte `offset` (an empty
/// `buf`: the source ended early). One piece is held at a time. Errors: `fetch`'s.
pub struct PieceReader<F> {
    fetch: F,
    /// Size of the source, bytes; offset of the next piece; bytes per piece (≥ 1).
    size: u64,
    pos: u64,
    piece: u64,
    /// The piece fetched last, and how much of it was handed out.
    chunk: Vec<u8>,
    at: usize,
}

impl<F: FnMut(u64, u64, &mut Vec<u8>) -> io::Result<()>> PieceReader<F> {
    /// A reader from byte 0 of a source of `size` bytes, fetched `piece` bytes at a time.
    pub fn new(size: u64, piece: u64, fetch: F) -> Self {
        PieceReader {
            fetch,
            size,
            pos: 0,
            piece: piece.max(1),
            chunk: Vec::new(),
            at: 0,
        }
    }
}

impl<F: FnMut(u64, u64, &mut Vec<u8>) -> io::Result<()>> Read for PieceReader<F> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.at == self.chunk.len() {
            if self.pos >= self.size {
                return Ok(0);
            }
            let len = self.piece.min(self.size - self.pos);
            (self.fetch)(self.pos, len, &mut self.chunk)?;
            self.at = 0;
            self.pos += len;
            if self.chunk.is_empty() {
                self.pos = self.size;
                return Ok(0);
            }
        }
        let n = buf.len().min(self.chunk.len() - self.at);
        buf[..n].copy_from_slice(&self.chunk[self.at..self.at + n]);
        self.at += n;
        Ok(n)
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
    raw: Arc<AtomicU64>,
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
        self.raw.fetch_add(n as u64, Ordering::Relaxed);
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
    raw: Arc<AtomicU64>,
    decoded: Rc<Cell<u64>>,
    size: u64,
    hash: Option<HashOf>,
    source: Option<&'r dyn ByteSource>,
    /// The decompressed bytes of a window made by [`Window::from_bytes`] (for [`Window::reopen`]).
    mem: Option<&'r [u8]>,
}

// The streaming importers (issue #9) use the whole interface; until then some of it is idle.
#[allow(dead_code)]
impl<'r> Window<'r> {
    /// A window over decompressed bytes already in memory (tests, small files).
    pub(crate) fn from_bytes(data: &'r [u8]) -> Window<'r> {
        let raw = Arc::new(AtomicU64::new(0));
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
    #[inline]
    pub(crate) fn data(&self) -> &[u8] {
        &self.buf[self.pos..self.end]
    }

    /// Stream offset of `data()[0]`.
    #[inline]
    pub(crate) fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// True once the source is exhausted (what is buffered is all there is).
    #[inline]
    pub(crate) fn at_eof(&self) -> bool {
        self.eof
    }

    /// Marks `n` buffered bytes consumed (`n ≤ data().len()`).
    #[inline]
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
        (self.raw.load(Ordering::Relaxed) as f64 / self.size as f64).min(1.0)
    }

    /// Decompressed bytes produced so far.
    pub(crate) fn decoded_bytes(&self) -> u64 {
        self.decoded.get().max(self.base + self.end as u64)
    }

    /// Takes the error that ended the stream early, if any.
    pub(crate) fn take_failure(&mut self) -> Option<ImportError> {
        self.failure.take()
    }

    /// True when the window hashes the bytes as dropped ([`open`] with `hash`), until
    /// [`Window::finish_hash`] takes the hash.
    pub(crate) fn hashes(&self) -> bool {
        self.hash.is_some()
    }

    /// Reads (and discards) the rest of the stream so the hash covers every byte (and a break
    /// after the last event is found, hashing or not), and returns the artifact id
    /// (`sha256:` and hex) when this window hashes (one opened by [`open`] with `hash`). When
    /// the stream ended early (a corrupt compressed stream), the rest of the file is hashed
    /// from a fresh read of the source.
    pub(crate) fn finish_hash(&mut self) -> Option<String> {
        let of = self.hash.take();
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
        let (hasher, done) = match of? {
            HashOf::Here(state) => (
                std::mem::take(&mut *state.hasher.borrow_mut()),
                state.done.get(),
            ),
            #[cfg(not(target_arch = "wasm32"))]
            HashOf::Pipe(thread) => {
                // Dropping the reader stops a second thread still inflating (its next hand-over
                // fails): it then has not reached the end of the file.
                self.src = Box::new(io::empty());
                thread.join().ok()??
            }
        };
        if !done {
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
        Some(super::hex_id(&hasher.finalize()))
    }
}

/// Where a pass's hash of the bytes as dropped is made.
enum HashOf {
    /// On this thread, by the raw reader of the window's decoder chain.
    Here(Rc<HashState>),
    /// On the pass's second thread ([`pipe`]), which gives back the hasher and whether it read
    /// to the end of the file.
    #[cfg(not(target_arch = "wasm32"))]
    Pipe(std::thread::JoinHandle<Option<(Sha256, bool)>>),
}

/// Counts bytes read (a window over memory).
struct Counting<R> {
    inner: R,
    raw: Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.raw.fetch_add(n as u64, Ordering::Relaxed);
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

/// Peels up to three gzip/zlib layers off `cur` (each inflated as read): the outermost
/// compression found, the name of its format for errors, and the decompressed reader. Errors:
/// the first bytes cannot be read.
fn decoders<'s>(
    mut cur: Box<dyn Read + 's>,
) -> io::Result<(Compression, &'static str, Box<dyn Read + 's>)> {
    let mut compression = Compression::None;
    let mut what = "data";
    for _ in 0..3 {
        let (head, next) = peek(cur, 2).map_err(|e| match compression {
            Compression::None => e,
            // Nothing came out of the layer: say which and that it may be cut off, not only
            // the decoder's "incomplete deflate stream".
            _ => io::Error::new(
                e.kind(),
                format!(
                    "the {what} stream breaks off before any data (file cut off or corrupt): {e}"
                ),
            ),
        })?;
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
    Ok((compression, what, cur))
}

/// A pass's decoder chain as [`open`] starts it: the outermost compression, its format name
/// for errors, the decompressed reader, and where the hash comes from (when hashing).
type Decoded<'s> = (
    Compression,
    &'static str,
    Box<dyn Read + 's>,
    Option<HashOf>,
);

/// Opens one pass over `src`: peels up to three gzip/zlib layers (inflated as read), limits the
/// decompressed bytes to `limit`, and when `hash` hashes the bytes as dropped (the artifact id
/// comes from [`Window::finish_hash`]). Natively, a source with [`ByteSource::open_owned`]
/// (a file) is read, hashed and inflated on a second thread ([`pipe`]) while the caller parses;
/// the bytes, errors and hash are the same either way.
///
/// Errors: the source cannot be opened; [`ImportError::Empty`]; a wrapper whose first bytes do
/// not inflate ([`ImportError::Decompress`]).
pub(crate) fn open<'s>(
    src: &'s dyn ByteSource,
    limit: u64,
    hash: bool,
) -> Result<(Compression, Window<'s>), ImportError> {
    let raw = Arc::new(AtomicU64::new(0));
    let decoded = Rc::new(Cell::new(0));
    let cannot_read = |e: io::Error| ImportError::Malformed(format!("cannot read: {e}"));
    #[cfg(not(target_arch = "wasm32"))]
    let piped = match src.open_owned() {
        Some(reader) => {
            pipe::start(reader.map_err(cannot_read)?, hash, raw.clone()).map_err(cannot_read)?
        }
        None => None,
    };
    #[cfg(target_arch = "wasm32")]
    let piped: Option<Decoded<'s>> = None;
    let (compression, what, cur, state) = match piped {
        Some((compression, what, reader, state)) => (compression, what, reader, state),
        None => {
            let reader = src.open().map_err(cannot_read)?;
            let state = hash.then(|| Rc::new(HashState::default()));
            let hashing = Hashing {
                inner: reader,
                hash: state.clone(),
                raw: raw.clone(),
            };
            let (compression, what, cur) = decoders(Box::new(hashing)).map_err(cannot_read)?;
            (compression, what, cur, state.map(HashOf::Here))
        }
    };
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

/// The second thread of a native pass (issue #9's two-stage pipeline): it reads the file,
/// hashes the bytes as dropped, inflates them, and hands the decompressed bytes to the parsing
/// thread in chunks of [`pipe::CHUNK`] bytes. At most [`pipe::BUFFERS`] chunks exist (they go
/// back to the second thread once read), so a pass holds at most 2 MiB more than on one thread,
/// and the second thread never runs more than that ahead of the parser.
#[cfg(not(target_arch = "wasm32"))]
mod pipe {
    use std::io::{self, Read};
    use std::rc::Rc;
    use std::sync::atomic::AtomicU64;
    use std::sync::mpsc::{channel, sync_channel, Receiver, Sender};
    use std::sync::Arc;

    use sha2::Sha256;

    use super::{decoders, Compression, Decoded, HashOf, HashState, Hashing};

    /// Bytes per hand-over.
    pub(super) const CHUNK: usize = 256 << 10;
    /// Chunks in flight at most (made by the second thread, reused once read).
    pub(super) const BUFFERS: usize = 8;

    enum Msg {
        /// What the first bytes showed: the compression and its format name, or why they
        /// could not be read.
        Head(io::Result<(Compression, &'static str)>),
        /// A chunk and how many of its bytes hold data.
        Data(Vec<u8>, usize),
        /// The decompressed stream broke (no message follows).
        Fail(io::Error),
    }

    /// The parsing thread's end: the decompressed bytes in order, then the error that ended
    /// them, if one did; `Ok(0)` after that.
    struct Reader {
        rx: Receiver<Msg>,
        free: Sender<Vec<u8>>,
        cur: Vec<u8>,
        pos: usize,
        len: usize,
        done: bool,
    }

    impl Read for Reader {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            loop {
                if self.pos < self.len {
                    let n = buf.len().min(self.len - self.pos);
                    buf[..n].copy_from_slice(&self.cur[self.pos..self.pos + n]);
                    self.pos += n;
                    return Ok(n);
                }
                if self.done || buf.is_empty() {
                    return Ok(0);
                }
                let used = std::mem::take(&mut self.cur);
                if used.capacity() > 0 {
                    // The second thread may have stopped already: the chunk is then freed.
                    let _ = self.free.send(used);
                }
                match self.rx.recv() {
                    Ok(Msg::Data(b, n)) => {
                        self.cur = b;
                        self.pos = 0;
                        self.len = n;
                    }
                    Ok(Msg::Fail(e)) => {
                        self.done = true;
                        return Err(e);
                    }
                    Ok(Msg::Head(_)) | Err(_) => {
                        self.done = true;
                        return Ok(0);
                    }
                }
            }
        }
    }

    /// The decoder chain's stream read into chunks and handed over until its end, its first
    /// error, or the reader's drop (a send or a wait for a free chunk then fails).
    fn pump(mut r: Box<dyn Read>, tx: &std::sync::mpsc::SyncSender<Msg>, free: &Receiver<Vec<u8>>) {
        let mut made = 0;
        loop {
            let mut buf = match free.try_recv() {
                Ok(b) => b,
                Err(_) if made < BUFFERS => {
                    made += 1;
                    vec![0u8; CHUNK]
                }
                Err(_) => match free.recv() {
                    Ok(b) => b,
                    Err(_) => return,
                },
            };
            let mut n = 0;
            let mut failed = None;
            let mut end = false;
            while n < CHUNK {
                match r.read(&mut buf[n..]) {
                    Ok(0) => {
                        end = true;
                        break;
                    }
                    Ok(k) => n += k,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        failed = Some(e);
                        break;
                    }
                }
            }
            if n > 0 && tx.send(Msg::Data(buf, n)).is_err() {
                return;
            }
            if let Some(e) = failed {
                let _ = tx.send(Msg::Fail(e));
                return;
            }
            if end {
                return;
            }
        }
    }

    /// Starts the second thread over `reader` (the file as dropped) and waits for what its
    /// first bytes showed: the compression, its format name, the decompressed reader and, when
    /// `hash`, where the hash comes from. `Ok(None)`: no thread could be started (the caller
    /// reads on its own thread). Errors: the first bytes cannot be read.
    pub(super) fn start(
        reader: Box<dyn Read + Send>,
        hash: bool,
        raw: Arc<AtomicU64>,
    ) -> io::Result<Option<Decoded<'static>>> {
        let (tx, rx) = sync_channel::<Msg>(BUFFERS + 1);
        let (free_tx, free_rx) = channel::<Vec<u8>>();
        let spawned = std::thread::Builder::new()
            .name("trialscope-inflate".into())
            .spawn(move || -> Option<(Sha256, bool)> {
                let state = hash.then(|| Rc::new(HashState::default()));
                let hashing = Hashing {
                    inner: reader,
                    hash: state.clone(),
                    raw,
                };
                match decoders(Box::new(hashing)) {
                    Ok((compression, what, r)) => {
                        if tx.send(Msg::Head(Ok((compression, what)))).is_ok() {
                            pump(r, &tx, &free_rx);
                        }
                    }
                    Err(e) => {
                        let _ = tx.send(Msg::Head(Err(e)));
                    }
                }
                let state = state?;
                let done = state.done.get();
                let hasher = std::mem::take(&mut *state.hasher.borrow_mut());
                Some((hasher, done))
            });
        let Ok(thread) = spawned else {
            return Ok(None);
        };
        let (compression, what) = match rx.recv() {
            Ok(Msg::Head(head)) => head?,
            _ => return Err(io::Error::other("the inflating thread stopped")),
        };
        let reader = Reader {
            rx,
            free: free_tx,
            cur: Vec::new(),
            pos: 0,
            len: 0,
            done: false,
        };
        let state = hash.then_some(HashOf::Pipe(thread));
        Ok(Some((compression, what, Box::new(reader), state)))
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use std::io::Write;

    use super::*;

    /// A piece reader hands out every byte once, in order, whatever the piece and read sizes,
    /// fetching each piece at its offset; a source that ends early ends the stream.
    #[test]
    fn a_piece_reader_reads_every_byte_once() {
        let data: Vec<u8> = (0..10_007u32).map(|i| (i * 31 % 251) as u8).collect();
        for (piece, step) in [(1u64, 1usize), (7, 3), (4096, 1000), (1 << 20, 64 << 10)] {
            let mut offsets = Vec::new();
            let mut r =
                PieceReader::new(data.len() as u64, piece, |off, len, buf: &mut Vec<u8>| {
                    offsets.push(off);
                    buf.clear();
                    buf.extend_from_slice(&data[off as usize..(off + len) as usize]);
                    Ok(())
                });
            let mut out = Vec::new();
            let mut b = vec![0u8; step];
            loop {
                let n = r.read(&mut b).unwrap();
                if n == 0 {
                    break;
                }
                out.extend_from_slice(&b[..n]);
            }
            drop(r);
            assert!(out == data, "piece {piece}, step {step}");
            let want: Vec<u64> = (0..data.len() as u64).step_by(piece as usize).collect();
            assert_eq!(offsets, want, "piece {piece}");
        }
        // The source says 100 bytes but has 40: the stream ends after them.
        let mut r = PieceReader::new(100, 64, |off, _len, buf: &mut Vec<u8>| {
            buf.clear();
            if off == 0 {
                buf.extend_from_slice(&[7u8; 40]);
            }
            Ok(())
        });
        let mut out = Vec::new();
        r.read_to_end(&mut out).unwrap();
        assert_eq!(out, vec![7u8; 40]);
    }

    /// `bytes` written to a fresh file of the test's temporary directory, and the guard that
    /// removes it (with the directory, once empty) when dropped.
    fn file(name: &str, bytes: &[u8]) -> (FileSource, Scratch) {
        let dir = std::env::temp_dir().join(format!("trialscope-stream-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        (FileSource::new(path.clone()).unwrap(), Scratch(path))
    }

    /// Removes its file when dropped, and the file's directory if nothing else is left in it.
    struct Scratch(std::path::PathBuf);

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
            if let Some(dir) = self.0.parent() {
                let _ = std::fs::remove_dir(dir);
            }
        }
    }

    /// What one hashed pass gives: compression, every decompressed byte, the error that ended
    /// the stream (as text), the artifact id. Reads in `step`-byte fills, as an importer does.
    fn pass(src: &dyn ByteSource, limit: u64, step: usize) -> Result<PassOut, String> {
        let (c, mut w) = open(src, limit, true).map_err(|e| e.to_string())?;
        let mut data = Vec::new();
        loop {
            let n = w.fill(step).min(step);
            if n == 0 {
                break;
            }
            data.extend_from_slice(&w.data()[..n]);
            w.consume(n);
        }
        let failure = w.take_failure().map(|e| e.to_string());
        let id = w.finish_hash();
        Ok((c, data, failure, id, w.fraction()))
    }

    type PassOut = (Compression, Vec<u8>, Option<String>, Option<String>, f64);

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    /// Bytes that compress poorly (so the gzip spans many of the second thread's chunks).
    fn noise(n: usize) -> Vec<u8> {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x % 200) as u8
            })
            .collect()
    }

    /// A file read on the second thread gives what the same bytes give read on this one: the
    /// same bytes, the same error where the stream breaks, the same artifact id — for plain,
    /// gzip, truncated gzip, a corrupt checksum, trailing garbage and a stream over the limit.
    #[test]
    fn a_file_read_on_a_second_thread_gives_what_memory_gives() {
        let plain = noise(3 * pipe::CHUNK * pipe::BUFFERS + 12_345);
        let gz = gzip(&plain);
        let mut bad_crc = gz.clone();
        let n = bad_crc.len();
        bad_crc[n - 6] ^= 0x55;
        let mut garbage = gz.clone();
        garbage.extend_from_slice(b"not gzip at all");
        let twice = [gz.clone(), gz.clone()].concat();
        let cases: Vec<(&str, Vec<u8>, u64)> = vec![
            ("plain", plain.clone(), u64::MAX),
            ("gzip", gz.clone(), u64::MAX),
            ("two members", twice, u64::MAX),
            ("truncated", gz[..gz.len() / 2].to_vec(), u64::MAX),
            ("bad crc", bad_crc, u64::MAX),
            ("garbage after", garbage, u64::MAX),
            ("over the limit", gz.clone(), plain.len() as u64 / 3),
            ("plain over the limit", plain.clone(), 1 << 20),
            ("not gzip", b"\x1f\x8bxx".to_vec(), u64::MAX),
            ("empty", Vec::new(), u64::MAX),
        ];
        for (name, bytes, limit) in cases {
            let (f, _scratch) = file(&name.replace(' ', "_"), &bytes);
            assert!(f.open_owned().is_some());
            for step in [1 << 20, 7_777] {
                let mut here = pass(&bytes, limit, step);
                let mut there = pass(&f, limit, step);
                if limit != u64::MAX {
                    // Over the limit the file is rejected: what came before is read in
                    // different pieces, and not kept; the second thread has read ahead.
                    for p in [&mut here, &mut there].into_iter().flatten() {
                        assert!(
                            p.2.as_deref().is_some_and(|e| e.contains("limit")),
                            "{name}"
                        );
                        p.1.clear();
                        p.4 = 0.0;
                    }
                }
                assert_eq!(here, there, "{name}, {step}-byte fills");
                if let Ok((_, data, _, id, fraction)) = &there {
                    let want = super::super::hex_id(&Sha256::digest(&bytes));
                    assert_eq!(id.as_deref(), Some(want.as_str()), "{name}");
                    assert!(data.len() <= plain.len() * 2, "{name}");
                    if name == "gzip" || name == "plain" {
                        assert_eq!(data, &plain, "{name}");
                        assert_eq!(*fraction, 1.0, "{name}");
                    }
                }
            }
        }
    }

    /// A pass dropped half way stops its second thread (which then frees its chunks) and leaves
    /// the file readable again.
    #[test]
    fn a_pass_dropped_half_way_can_be_opened_again() {
        let plain = noise(4 * pipe::CHUNK * pipe::BUFFERS);
        let (f, _scratch) = file("dropped", &gzip(&plain));
        for _ in 0..3 {
            let (_, mut w) = open(&f, u64::MAX, true).unwrap();
            assert_eq!(w.fill(1000), w.data().len());
            assert_eq!(&w.data()[..1000], &plain[..1000]);
            drop(w);
        }
        let again = pass(&f, u64::MAX, 1 << 20).unwrap();
        assert_eq!(again.1, plain);
    }
}
