//! String interning: every name, category, file and arg key is stored once per model.
//!
//! The index hashes with foldhash (fast and randomly seeded, so crafted trace strings cannot
//! degrade the table) and is keyed by the strings' bytes, so a lookup of bytes read from a
//! trace ([`StringTable::intern_lossy`]) needs no UTF-8 check when the string is known. Ids are
//! assigned in first-seen order, so they never depend on the hash.

use std::borrow::Borrow;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

/// An index key: the string, hashed and compared as its bytes (so `&[u8]` can look it up).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Key(Box<str>);

impl Hash for Key {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.as_bytes().hash(state);
    }
}

impl Borrow<[u8]> for Key {
    fn borrow(&self) -> &[u8] {
        self.0.as_bytes()
    }
}

type Index = HashMap<Key, StrId, foldhash::fast::RandomState>;

/// Index of an interned string in a [`StringTable`]. `StrId(0)` is always the empty string.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct StrId(pub u32);

/// An append-only table of unique strings (samply's `StringTable` pattern).
#[derive(Clone, Debug)]
pub struct StringTable {
    strings: Vec<Box<str>>,
    index: Index,
    /// Bytes of string text held (each string is held twice: in the list and as its key).
    text_bytes: usize,
}

impl Default for StringTable {
    fn default() -> Self {
        let mut t = StringTable {
            strings: Vec::new(),
            index: Index::default(),
            text_bytes: 0,
        };
        t.intern("");
        t
    }
}

impl StringTable {
    /// Interns `s`, returning its id (the existing one when `s` was seen before).
    pub fn intern(&mut self, s: &str) -> StrId {
        if let Some(&id) = self.index.get(s.as_bytes()) {
            return id;
        }
        self.insert(s)
    }

    /// Adds `s`, known to be absent.
    fn insert(&mut self, s: &str) -> StrId {
        let id = StrId(self.strings.len() as u32);
        self.strings.push(s.into());
        self.index.insert(Key(s.into()), id);
        self.text_bytes += 2 * s.len();
        id
    }

    /// Interns bytes that should be UTF-8, replacing invalid sequences with U+FFFD.
    /// Returns the id and whether a repair was needed. A known string costs one hash lookup
    /// of the bytes (every key is valid UTF-8, so invalid bytes never match one).
    pub fn intern_lossy(&mut self, bytes: &[u8]) -> (StrId, bool) {
        if let Some(&id) = self.index.get(bytes) {
            return (id, false);
        }
        match std::str::from_utf8(bytes) {
            Ok(s) => (self.insert(s), false),
            Err(_) => (self.intern(&String::from_utf8_lossy(bytes)), true),
        }
    }

    /// The string for `id`; the empty string for an id from another table that is out of range.
    pub fn get(&self, id: StrId) -> &str {
        self.strings.get(id.0 as usize).map(|s| &**s).unwrap_or("")
    }

    /// Looks a string up without interning it.
    pub fn find(&self, s: &str) -> Option<StrId> {
        self.index.get(s.as_bytes()).copied()
    }

    /// Number of distinct strings (including the empty string).
    pub fn len(&self) -> usize {
        self.strings.len()
    }

    /// Estimated heap bytes of the table (string text, list and index), O(1).
    pub fn heap_bytes(&self) -> usize {
        let entry = std::mem::size_of::<Key>();
        self.text_bytes
            + self.strings.capacity() * entry
            + self.index.capacity() * (entry + std::mem::size_of::<StrId>() + 1)
    }

    /// Always false: the empty string is present from the start.
    pub fn is_empty(&self) -> bool {
        self.strings.is_empty()
    }
}
