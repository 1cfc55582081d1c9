//! Argument sets ([`ArgSets`]): every slice's args, packed at 16 bytes an entry, with the
//! verbatim texts in a byte store beside them and the structured values in [`NestedValues`].
//!
//! Sets are built from owned [`ArgValue`]s ([`ArgSets::push_entry`], [`ArgSets::add`]) and read
//! as borrowed [`ArgRef`]s ([`ArgSets::get`] gives an [`Args`] view).

use std::cell::Cell;
use std::collections::HashSet;

use super::nested::{NestedId, NestedValues};
use super::strings::{StrId, StringTable};
use super::ArgValue;

/// An argument value as [`ArgSets::get`] lends it: an [`ArgValue`] whose text is borrowed from
/// the sets. Prints (`Debug`) and compares exactly as the [`ArgValue`] it stands for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ArgRef<'a> {
    Int(i64),
    UInt(u64),
    Double(f64),
    Bool(bool),
    Str(StrId),
    /// Text kept verbatim: JSON blobs, integers beyond 64 bits.
    Text(&'a str),
    /// A structured value in [`ArgSets::nested`]; its JSON text is [`ArgSets::nested_text`].
    Nested(NestedId),
}

impl ArgRef<'_> {
    /// The owned value (the text copied into a new `String`).
    pub fn to_value(self) -> ArgValue {
        match self {
            ArgRef::Int(v) => ArgValue::Int(v),
            ArgRef::UInt(v) => ArgValue::UInt(v),
            ArgRef::Double(v) => ArgValue::Double(v),
            ArgRef::Bool(v) => ArgValue::Bool(v),
            ArgRef::Str(v) => ArgValue::Str(v),
            ArgRef::Text(t) => ArgValue::Text(t.to_string()),
            ArgRef::Nested(v) => ArgValue::Nested(v),
        }
    }
}

impl PartialEq<ArgValue> for ArgRef<'_> {
    fn eq(&self, other: &ArgValue) -> bool {
        match (*self, other) {
            (ArgRef::Int(a), ArgValue::Int(b)) => a == *b,
            (ArgRef::UInt(a), ArgValue::UInt(b)) => a == *b,
            (ArgRef::Double(a), ArgValue::Double(b)) => a == *b,
            (ArgRef::Bool(a), ArgValue::Bool(b)) => a == *b,
            (ArgRef::Str(a), ArgValue::Str(b)) => a == *b,
            (ArgRef::Text(a), ArgValue::Text(b)) => a == b,
            (ArgRef::Nested(a), ArgValue::Nested(b)) => a == *b,
            _ => false,
        }
    }
}

const TAG_INT: u32 = 0;
const TAG_UINT: u32 = 1;
const TAG_DOUBLE: u32 = 2;
const TAG_BOOL: u32 = 3;
const TAG_STR: u32 = 4;
const TAG_TEXT: u32 = 5;
const TAG_NESTED: u32 = 6;

/// Merges of at most this many entries in all ([`ArgSets::merge`]) compare keys pairwise
/// instead of hashing them.
const SMALL_MERGE: usize = 16;

/// The length field of a `Text` entry (24 bits) when the text is this long or longer: such a
/// text is longer than [`TEXT_CHUNK`], so it fills a text chunk of its own whose length is the
/// text's.
const LONG_TEXT: u32 = (1 << 24) - 1;

/// One packed entry, 16 bytes: the key, `meta` (bits 0–7 the value's tag; for `Text` bits
/// 8–31 its byte length, [`LONG_TEXT`] for a long one) and 8 bytes of payload: the 64 bits of an
/// `Int`, `UInt` or `Double` (`lo` the low half), `Bool` as 0/1, the id of a `Str` or `Nested`
/// in `lo`, and for `Text` its chunk (`lo`) and byte offset in it (`hi`) in [`TextStore`].
#[derive(Clone, Copy)]
struct Entry {
    key: StrId,
    meta: u32,
    lo: u32,
    hi: u32,
}

const _: () = assert!(std::mem::size_of::<Entry>() == 16);

impl Entry {
    fn with_bits(key: StrId, tag: u32, bits: u64) -> Entry {
        Entry {
            key,
            meta: tag,
            lo: bits as u32,
            hi: (bits >> 32) as u32,
        }
    }

    fn bits(&self) -> u64 {
        u64::from(self.lo) | (u64::from(self.hi) << 32)
    }

    fn tag(&self) -> u32 {
        self.meta & 0xff
    }

    /// Byte length of a `Text` value (0 for other tags).
    fn text_len(&self, texts: &TextStore) -> usize {
        if self.tag() != TAG_TEXT {
            return 0;
        }
        match self.meta >> 8 {
            LONG_TEXT => texts.chunks.get(self.lo as usize).map_or(0, String::len),
            n => n as usize,
        }
    }

    fn value<'a>(&self, texts: &'a TextStore) -> ArgRef<'a> {
        match self.tag() {
            TAG_INT => ArgRef::Int(self.bits() as i64),
            TAG_UINT => ArgRef::UInt(self.bits()),
            TAG_DOUBLE => ArgRef::Double(f64::from_bits(self.bits())),
            TAG_BOOL => ArgRef::Bool(self.lo != 0),
            TAG_STR => ArgRef::Str(StrId(self.lo)),
            TAG_NESTED => ArgRef::Nested(NestedId(self.lo)),
            _ => {
                let len = self.text_len(texts);
                let at = self.hi as usize;
                ArgRef::Text(
                    texts
                        .chunks
                        .get(self.lo as usize)
                        .and_then(|c| c.get(at..at + len))
                        .unwrap_or(""),
                )
            }
        }
    }
}

/// Bytes of the text chunk after a first one of [`TEXT_FIRST`]: each new chunk twice the size
/// of the one before, up to this.
const TEXT_CHUNK: usize = 1 << 20;
/// Bytes of the first text chunk.
const TEXT_FIRST: usize = 1 << 10;

/// The `Text` values of all sets, one after another in chunks that never grow past the capacity
/// they were made with (a text never spans two chunks; one that does not fit in the last chunk
/// starts a new one, and one longer than [`TEXT_CHUNK`] gets a chunk of its own length), so
/// the store never copies itself — no per-value heap block either.
#[derive(Clone, Default)]
struct TextStore {
    chunks: Vec<String>,
}

impl TextStore {
    /// Appends `t` (not empty) and returns its chunk and byte offset in the chunk. A chunk of
    /// more than [`TEXT_CHUNK`] bytes holds one text only (its length is that text's).
    fn push(&mut self, t: &str) -> (u32, u32) {
        let fits = self
            .chunks
            .last()
            .is_some_and(|c| c.capacity() <= TEXT_CHUNK && c.capacity() - c.len() >= t.len());
        if !fits {
            let next = self.chunks.last().map_or(TEXT_FIRST, |c| {
                (2 * c.capacity()).clamp(TEXT_FIRST, TEXT_CHUNK)
            });
            self.chunks.push(String::with_capacity(next.max(t.len())));
        }
        let c = self.chunks.len() - 1;
        let chunk = &mut self.chunks[c];
        let at = chunk.len();
        chunk.push_str(t);
        // Offsets are u32: only a text in a chunk of its own (offset 0) can lie past 4 GiB.
        (c as u32, at as u32)
    }

    fn heap_bytes(&self) -> usize {
        self.chunks.iter().map(String::capacity).sum::<usize>()
            + self.chunks.capacity() * std::mem::size_of::<String>()
    }

    fn shrink_to_fit(&mut self) {
        for c in &mut self.chunks {
            c.shrink_to_fit();
        }
        self.chunks.shrink_to_fit();
    }
}

/// Entries per chunk of [`ArgSets`] once its first chunk has grown to that size (16 bytes
/// each: 1 MiB a chunk).
const ARG_CHUNK: usize = 1 << 16;

/// All argument sets of a model, columnar: every set's entries in one sequence, a set being
/// the range between two offsets (no allocation per set). Set 0 is empty.
///
/// The sequence is stored in chunks of `ARG_CHUNK` (65,536) entries of 16 bytes that never move
/// once full (a set never spans two chunks: one that would is moved whole to the next chunk),
/// so the column grows without ever copying itself — in wasm32 a growing `Vec` is copied, its
/// old and new blocks live at once. `Text` values are kept in a byte store of fixed chunks
/// beside it (no `String` per value), structured values in [`NestedValues`].
#[derive(Clone)]
pub struct ArgSets {
    /// `starts[i]..starts[i + 1]` are the entries of set `i` (positions in the whole
    /// sequence); the entries after the last offset belong to the set being built
    /// ([`ArgSets::push_entry`]).
    starts: Vec<u32>,
    /// The sequence: chunk `c` holds positions `chunk_starts[c]..` (`chunks[c].len()` of them).
    chunks: Vec<Vec<Entry>>,
    /// Position of each chunk's first entry (strictly increasing).
    chunk_starts: Vec<u32>,
    /// Entries over all chunks.
    len: u32,
    /// The bytes of the `Text` values.
    texts: TextStore,
    /// The capacities the `Text` values' `String`s had when handed in (a copy made by
    /// [`ArgSets::merge`] counts its length, as a cloned `String`'s capacity). Not memory held
    /// any more (see [`ArgSets::heap_bytes`]): kept because `Debug` prints it as the model
    /// dumps always had it.
    text_bytes: usize,
    /// The structured values [`ArgValue::Nested`] entries refer to.
    nested: NestedValues,
}

/// Formats the chunks as the one list of `(StrId, ArgValue)` entries they hold.
struct FlatEntries<'a>(&'a ArgSets);

impl std::fmt::Debug for FlatEntries<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let texts = &self.0.texts;
        f.debug_list()
            .entries(
                self.0
                    .chunks
                    .iter()
                    .flatten()
                    .map(|e| (e.key, e.value(texts))),
            )
            .finish()
    }
}

/// As derived over one list of `(StrId, ArgValue)` entries, with the structured values only
/// when there are any (so a model without them prints as it did before they existed).
impl std::fmt::Debug for ArgSets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("ArgSets");
        d.field("starts", &self.starts)
            .field("entries", &FlatEntries(self))
            .field("text_bytes", &self.text_bytes);
        if !self.nested.is_empty() {
            d.field("nested", &self.nested);
        }
        d.finish()
    }
}

impl Default for ArgSets {
    fn default() -> Self {
        ArgSets {
            starts: vec![0, 0],
            chunks: Vec::new(),
            chunk_starts: Vec::new(),
            len: 0,
            texts: TextStore::default(),
            text_bytes: 0,
            nested: NestedValues::default(),
        }
    }
}

impl ArgSets {
    /// Stores a set and returns its id ([`ArgsId(0)`](super::ArgsId) for an empty set).
    /// Entries pushed with [`ArgSets::push_entry`] and not finished yet become part of this
    /// set.
    pub fn add(&mut self, args: Vec<(StrId, ArgValue)>) -> super::ArgsId {
        for (k, v) in args {
            self.push_entry(k, v);
        }
        self.finish_set()
    }

    /// Appends one entry to the set being built (closed by [`ArgSets::finish_set`]).
    pub fn push_entry(&mut self, key: StrId, value: ArgValue) {
        let e = match value {
            ArgValue::Int(v) => Entry::with_bits(key, TAG_INT, v as u64),
            ArgValue::UInt(v) => Entry::with_bits(key, TAG_UINT, v),
            ArgValue::Double(v) => Entry::with_bits(key, TAG_DOUBLE, v.to_bits()),
            ArgValue::Bool(v) => Entry::with_bits(key, TAG_BOOL, u64::from(v)),
            ArgValue::Str(s) => Entry::with_bits(key, TAG_STR, u64::from(s.0)),
            ArgValue::Nested(n) => Entry::with_bits(key, TAG_NESTED, u64::from(n.0)),
            ArgValue::Text(t) => {
                self.text_bytes += t.capacity() - t.len();
                return self.push_text_entry(key, &t);
            }
        };
        self.push_packed(e);
    }

    /// As [`ArgSets::push_entry`] with `ArgValue::Text(t.to_string())`, without the `String`.
    pub fn push_text_entry(&mut self, key: StrId, t: &str) {
        self.text_bytes += t.len();
        let (chunk, at) = if t.is_empty() {
            (0, 0)
        } else {
            self.texts.push(t)
        };
        let len = u32::try_from(t.len()).map_or(LONG_TEXT, |n| n.min(LONG_TEXT));
        self.push_packed(Entry {
            key,
            meta: TAG_TEXT | (len << 8),
            lo: chunk,
            hi: at,
        });
    }

    /// Appends a packed entry to the set being built.
    fn push_packed(&mut self, e: Entry) {
        self.chunk_for_one_more().push(e);
        self.len += 1;
    }

    /// The chunk the next entry goes to: the last one, unless it is a full chunk of
    /// [`ARG_CHUNK`] entries or more — then a new chunk, with the set being built moved to
    /// it (a set that alone fills its chunk stays and its chunk grows).
    fn chunk_for_one_more(&mut self) -> &mut Vec<Entry> {
        let set_start = self.starts.last().copied().unwrap_or(0);
        let need_new = match (self.chunks.last(), self.chunk_starts.last()) {
            (Some(c), Some(&cs)) => {
                c.len() == c.capacity() && c.len() >= ARG_CHUNK && set_start > cs
            }
            _ => true,
        };
        if need_new {
            let mut next = Vec::new();
            if let (Some(c), Some(&cs)) = (self.chunks.last_mut(), self.chunk_starts.last()) {
                let at = ((set_start - cs) as usize).min(c.len());
                next.reserve_exact(ARG_CHUNK.max(2 * (c.len() - at)));
                next.extend(c.drain(at..));
            }
            self.chunks.push(next);
            self.chunk_starts.push(set_start);
        }
        let last = self.chunks.len() - 1;
        &mut self.chunks[last]
    }

    /// Closes the set built by [`ArgSets::push_entry`] and returns its id
    /// ([`ArgsId(0)`](super::ArgsId) when no entry was pushed).
    pub fn finish_set(&mut self) -> super::ArgsId {
        let start = self.starts.last().copied().unwrap_or(0);
        // Offsets are u32: past 2^32 entries (over 64 GB of them) sets would read as empty.
        let end = self.len;
        if end == start {
            return super::ArgsId(0);
        }
        self.starts.push(end);
        super::ArgsId(self.starts.len() as u32 - 2)
    }

    /// The packed entries of set `id` (empty for an unknown id).
    fn entries(&self, id: super::ArgsId) -> &[Entry] {
        let i = id.0 as usize;
        let (Some(&a), Some(&b)) = (self.starts.get(i), self.starts.get(i + 1)) else {
            return &[];
        };
        if b <= a {
            return &[];
        }
        // The chunk holding position `a` (a set lies in one chunk).
        let c = self.chunk_starts.partition_point(|&s| s <= a);
        let Some(c) = c.checked_sub(1) else {
            return &[];
        };
        let at = (a - self.chunk_starts[c]) as usize;
        self.chunks[c].get(at..at + (b - a) as usize).unwrap_or(&[])
    }

    /// The entries of set `id`, in the order they were added (empty for an unknown id).
    pub fn get(&self, id: super::ArgsId) -> Args<'_> {
        Args {
            entries: self.entries(id),
            texts: &self.texts,
        }
    }

    /// A set holding the entries of `a` followed by those of `b` whose keys `a` lacks (the first
    /// of `b`'s entries with a key, when `b` repeats it). Linear in the sizes of both sets; the
    /// texts are shared with `a` and `b`, not copied.
    pub fn merge(&mut self, a: super::ArgsId, b: super::ArgsId) -> super::ArgsId {
        self.merge_small_up_to(a, b, SMALL_MERGE)
    }

    /// [`ArgSets::merge`], comparing keys pairwise when the two sets hold at most `small`
    /// entries in all (a test compares both ways).
    fn merge_small_up_to(
        &mut self,
        a: super::ArgsId,
        b: super::ArgsId,
        small: usize,
    ) -> super::ArgsId {
        if b.0 == 0 {
            return a;
        }
        if a.0 == 0 {
            return b;
        }
        let (first, second) = (self.entries(a), self.entries(b));
        MERGE_PROBES.with(|c| c.set(c.get() + (first.len() + second.len()) as u64));
        let n = first.len() + second.len();
        if n <= small.min(SMALL_MERGE) {
            // The common case (an END's few args merged into its BEGIN's): the keys compared
            // pairwise, the entries gathered on the stack. A `HashSet` and a `Vec` per merge
            // were ~120 ns of the ~50,000 merges that finish Chromium's 59 MB trace.
            let mut merged = [Entry::with_bits(StrId(0), 0, 0); SMALL_MERGE];
            merged[..first.len()].copy_from_slice(first);
            let mut m = first.len();
            for (j, e) in second.iter().enumerate() {
                let earlier = |x: &Entry| x.key == e.key;
                if !first.iter().any(earlier) && !second[..j].iter().any(earlier) {
                    merged[m] = *e;
                    m += 1;
                }
            }
            for &e in &merged[..m] {
                self.text_bytes += e.text_len(&self.texts);
                self.push_packed(e);
            }
            return self.finish_set();
        }
        let mut seen: HashSet<StrId> = first.iter().map(|e| e.key).collect();
        let mut merged = first.to_vec();
        merged.extend(second.iter().filter(|e| seen.insert(e.key)));
        for e in merged {
            self.text_bytes += e.text_len(&self.texts);
            self.push_packed(e);
        }
        self.finish_set()
    }

    /// Stores an encoded structured value ([`nested::enc`](super::nested::enc)) for an
    /// [`ArgValue::Nested`] entry; an identical value stored before is shared.
    pub fn add_nested(&mut self, encoded: &[u8]) -> NestedId {
        self.nested.add(encoded)
    }

    /// The structured values of all sets.
    pub fn nested(&self) -> &NestedValues {
        &self.nested
    }

    /// The JSON text of structured value `id` (interned strings resolved in `strings`).
    pub fn nested_text(&self, id: NestedId, strings: &StringTable) -> String {
        self.nested.text(id, strings)
    }

    /// Number of sets, the empty set 0 included.
    pub fn set_count(&self) -> usize {
        self.starts.len() - 1
    }

    /// Number of entries over all sets.
    pub fn entry_count(&self) -> usize {
        self.len as usize
    }

    /// Heap bytes of all sets (capacities of the entry chunks, the text chunks, the offsets and
    /// the structured values; allocator overhead not counted), O(chunks): one chunk per 65,536
    /// entries and per MiB of text.
    pub fn heap_bytes(&self) -> usize {
        self.texts.heap_bytes()
            + self.nested.heap_bytes()
            + self
                .chunks
                .iter()
                .map(|c| c.capacity() * std::mem::size_of::<Entry>())
                .sum::<usize>()
            + self.chunks.capacity() * std::mem::size_of::<Vec<Entry>>()
            + (self.starts.capacity() + self.chunk_starts.capacity()) * std::mem::size_of::<u32>()
    }

    /// Gives back spare capacity (a model sized for its data).
    pub fn shrink_to_fit(&mut self) {
        for c in &mut self.chunks {
            c.shrink_to_fit();
        }
        self.starts.shrink_to_fit();
        self.texts.shrink_to_fit();
        self.nested.shrink_to_fit();
    }

    /// Key lookups [`ArgSets::merge`] has made for imports run on this thread (those made on
    /// an import's slice-builder thread included). A test hook for the complexity tests:
    /// merging sets of n and m entries costs n + m.
    #[doc(hidden)]
    pub fn merge_probes_on_this_thread() -> u64 {
        MERGE_PROBES.with(Cell::get)
    }

    /// Adds probes made for this thread's import on another (a `SliceSink`'s builder thread,
    /// which merges END args as it finishes), so [`ArgSets::merge_probes_on_this_thread`] counts
    /// them where the import ran.
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn add_merge_probes(n: u64) {
        MERGE_PROBES.with(|c| c.set(c.get() + n));
    }
}

thread_local! {
    static MERGE_PROBES: Cell<u64> = const { Cell::new(0) };
}

/// The entries of one set ([`ArgSets::get`]): `(key, value)` pairs with the values borrowed.
/// Prints (`Debug`) as the list of `(StrId, ArgValue)` tuples it stands for.
#[derive(Clone, Copy)]
pub struct Args<'a> {
    entries: &'a [Entry],
    texts: &'a TextStore,
}

impl<'a> Args<'a> {
    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the set has no entry.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Entry `i` (in the order added), `None` past the end.
    pub fn get(&self, i: usize) -> Option<(StrId, ArgRef<'a>)> {
        self.entries.get(i).map(|e| (e.key, e.value(self.texts)))
    }

    /// The entries in the order added.
    pub fn iter(&self) -> ArgsIter<'a> {
        ArgsIter {
            entries: self.entries.iter(),
            texts: self.texts,
        }
    }

    /// The entries as owned values (texts copied).
    pub fn to_vec(&self) -> Vec<(StrId, ArgValue)> {
        self.iter().map(|(k, v)| (k, v.to_value())).collect()
    }
}

impl<'a> IntoIterator for Args<'a> {
    type Item = (StrId, ArgRef<'a>);
    type IntoIter = ArgsIter<'a>;

    fn into_iter(self) -> ArgsIter<'a> {
        self.iter()
    }
}

impl<'a> IntoIterator for &Args<'a> {
    type Item = (StrId, ArgRef<'a>);
    type IntoIter = ArgsIter<'a>;

    fn into_iter(self) -> ArgsIter<'a> {
        self.iter()
    }
}

impl std::fmt::Debug for Args<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// Iterator over the entries of one set ([`Args::iter`]).
#[derive(Clone)]
pub struct ArgsIter<'a> {
    entries: std::slice::Iter<'a, Entry>,
    texts: &'a TextStore,
}

impl<'a> Iterator for ArgsIter<'a> {
    type Item = (StrId, ArgRef<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        self.entries.next().map(|e| (e.key, e.value(self.texts)))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.entries.size_hint()
    }
}

impl DoubleEndedIterator for ArgsIter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.entries
            .next_back()
            .map(|e| (e.key, e.value(self.texts)))
    }
}

impl ExactSizeIterator for ArgsIter<'_> {}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_kinds(texts: &[String]) -> Vec<(StrId, ArgValue)> {
        let mut v = vec![
            (StrId(1), ArgValue::Int(-5)),
            (StrId(2), ArgValue::Int(i64::MIN)),
            (StrId(3), ArgValue::UInt(u64::MAX)),
            (StrId(4), ArgValue::Double(-0.0)),
            (StrId(5), ArgValue::Double(f64::NAN)),
            (StrId(6), ArgValue::Bool(true)),
            (StrId(7), ArgValue::Bool(false)),
            (StrId(8), ArgValue::Str(StrId(u32::MAX))),
            (StrId(9), ArgValue::Nested(NestedId(7))),
        ];
        for (i, t) in texts.iter().enumerate() {
            v.push((StrId(100 + i as u32), ArgValue::Text(t.clone())));
        }
        v
    }

    /// `Debug` of owned values, as the model dumps print them.
    fn owned_debug(v: &[(StrId, ArgValue)]) -> String {
        format!("{v:?}")
    }

    #[test]
    fn entries_are_16_bytes_and_read_back_as_added() {
        assert_eq!(std::mem::size_of::<Entry>(), 16);
        let texts: Vec<String> = vec![
            String::new(),
            "0xff".into(),
            "é\"\\\n{\"k\":[1,2]}".into(),
            "x".repeat(TEXT_FIRST + 1),
            "y".repeat(TEXT_CHUNK + 3),
        ];
        let mut sets = ArgSets::default();
        let want = all_kinds(&texts);
        let id = sets.add(want.clone());
        let second = sets.add(vec![(StrId(1), ArgValue::Text("after".into()))]);
        let got = sets.get(id);
        assert_eq!(got.len(), want.len());
        assert_eq!(format!("{got:?}"), owned_debug(&want));
        assert_eq!(format!("{got:#?}"), format!("{want:#?}"));
        for (i, (k, v)) in got.iter().enumerate() {
            assert_eq!(k, want[i].0);
            if let (ArgRef::Double(a), ArgValue::Double(b)) = (v, &want[i].1) {
                assert_eq!(a.to_bits(), b.to_bits());
            } else {
                assert_eq!(v.to_value(), want[i].1.clone());
                assert_eq!(v, want[i].1);
            }
        }
        assert_eq!(
            sets.get(second).to_vec(),
            vec![(StrId(1), ArgValue::Text("after".into()))]
        );
        assert!(sets.get(crate::model::ArgsId(99)).is_empty());
    }

    proptest::proptest! {
        /// Small merges (keys compared pairwise) make the sets the hashed merge makes, with
        /// keys repeated within a set and across both.
        #[test]
        fn small_merges_equal_the_hashed_merge(
            a in proptest::collection::vec((0u32..6, 0i64..4), 0..10),
            b in proptest::collection::vec((0u32..6, 0i64..4), 0..10),
        ) {
            let set = |v: &[(u32, i64)]| -> Vec<(StrId, ArgValue)> {
                v.iter().map(|&(k, x)| (StrId(k), ArgValue::Int(x))).collect()
            };
            let mut sets = ArgSets::default();
            let (ia, ib) = (sets.add(set(&a)), sets.add(set(&b)));
            let small = sets.merge_small_up_to(ia, ib, SMALL_MERGE);
            let hashed = sets.merge_small_up_to(ia, ib, 0);
            let (small, hashed) = (sets.get(small).to_vec(), sets.get(hashed).to_vec());
            proptest::prop_assert_eq!(&small, &hashed);
            // What the merge means: a's entries, then b's first entry of each key a lacks
            // (an empty `a` gives `b` itself).
            let mut seen: Vec<StrId> = a.iter().map(|&(k, _)| StrId(k)).collect();
            let mut expected = set(&a);
            for (k, v) in set(&b) {
                if !seen.contains(&k) {
                    seen.push(k);
                    expected.push((k, v));
                }
            }
            if a.is_empty() {
                expected = set(&b);
            }
            proptest::prop_assert_eq!(small, expected);
        }
    }

    #[test]
    fn a_text_over_16_mib_reads_back_whole() {
        let big = "z".repeat((1 << 24) + 5);
        let mut sets = ArgSets::default();
        sets.add(vec![(StrId(1), ArgValue::Text("a".into()))]);
        let id = sets.add(vec![
            (StrId(2), ArgValue::Text(big.clone())),
            (StrId(3), ArgValue::Text("b".into())),
        ]);
        let got = sets.get(id);
        assert_eq!(got.get(0), Some((StrId(2), ArgRef::Text(&big))));
        assert_eq!(got.get(1), Some((StrId(3), ArgRef::Text("b"))));
        let merged = sets.merge(id, crate::model::ArgsId(1));
        let m = sets.get(merged);
        assert_eq!(m.len(), 3);
        assert_eq!(m.get(0), Some((StrId(2), ArgRef::Text(&big))));
        assert_eq!(m.get(2), Some((StrId(1), ArgRef::Text("a"))));
    }

    #[test]
    fn debug_prints_as_the_owned_entries_with_the_texts_capacities() {
        let mut sets = ArgSets::default();
        let mut t = String::with_capacity(40);
        t.push_str("0x1f");
        let a = sets.add(vec![
            (StrId(1), ArgValue::Text(t)),
            (StrId(2), ArgValue::Int(3)),
        ]);
        let b = sets.add(vec![
            (StrId(2), ArgValue::Int(4)),
            (StrId(3), ArgValue::Text("abc".into())),
        ]);
        sets.merge(a, b);
        let entries = "[(StrId(1), Text(\"0x1f\")), (StrId(2), Int(3)), \
             (StrId(2), Int(4)), (StrId(3), Text(\"abc\")), \
             (StrId(1), Text(\"0x1f\")), (StrId(2), Int(3)), (StrId(3), Text(\"abc\"))]";
        // 40 + 3 handed in, 4 + 3 for the merged copies (a clone's capacity is its length).
        assert_eq!(
            format!("{sets:?}"),
            format!("ArgSets {{ starts: [0, 0, 2, 4, 7], entries: {entries}, text_bytes: 50 }}")
        );
    }

    #[test]
    fn text_chunks_never_grow_and_heap_bytes_counts_them() {
        let mut sets = ArgSets::default();
        let mut want = Vec::new();
        for i in 0..20_000u32 {
            let t = format!("text number {i} {}", "#".repeat((i % 97) as usize));
            want.push(t.clone());
            sets.add(vec![(StrId(i), ArgValue::Text(t))]);
        }
        for c in &sets.texts.chunks {
            assert!(c.capacity() <= TEXT_CHUNK);
        }
        let text: usize = want.iter().map(String::len).sum();
        let held: usize = sets.texts.chunks.iter().map(String::capacity).sum();
        // Only the tail of each chunk a text did not fit in is spare (at most 110 bytes each).
        assert!(held >= text && held <= text + sets.texts.chunks.len() * 110 + TEXT_CHUNK);
        let entries: usize = sets.chunks.iter().map(Vec::capacity).sum::<usize>() * 16;
        assert!(sets.heap_bytes() >= held + entries);
        for (i, t) in want.iter().enumerate() {
            let got = sets.get(crate::model::ArgsId(i as u32 + 1));
            assert_eq!(got.get(0), Some((StrId(i as u32), ArgRef::Text(t))));
        }
        sets.shrink_to_fit();
        let after: usize = sets.texts.chunks.iter().map(String::capacity).sum();
        assert_eq!(
            after,
            sets.texts.chunks.iter().map(String::len).sum::<usize>()
        );
        assert_eq!(after, text);
    }
}
