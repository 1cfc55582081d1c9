//! String interning: every name, category, file and arg key is stored once per model.

use std::collections::HashMap;

/// Index of an interned string in a [`StringTable`]. `StrId(0)` is always the empty string.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct StrId(pub u32);

/// An append-only table of unique strings (samply's `StringTable` pattern).
#[derive(Clone, Debug)]
pub struct StringTable {
    strings: Vec<Box<str>>,
    index: HashMap<Box<str>, StrId>,
    /// Bytes of string text held (each string is held twice: in the list and as its key).
    text_bytes: usize,
}

impl Default for StringTable {
    fn default() -> Self {
        let mut t = StringTable {
            strings: Vec::new(),
            index: HashMap::new(),
            text_bytes: 0,
        };
        t.intern("");
        t
    }
}

impl StringTable {
    /// Interns `s`, returning its id (the existing one when `s` was seen before).
    pub fn intern(&mut self, s: &str) -> StrId {
        if let Some(&id) = self.index.get(s) {
            return id;
        }
        let id = StrId(self.strings.len() as u32);
        self.strings.push(s.into());
        self.index.insert(s.into(), id);
        self.text_bytes += 2 * s.len();
        id
    }

    /// Interns bytes that should be UTF-8, replacing invalid sequences with U+FFFD.
    /// Returns the id and whether a repair was needed.
    pub fn intern_lossy(&mut self, bytes: &[u8]) -> (StrId, bool) {
        match std::str::from_utf8(bytes) {
            Ok(s) => (self.intern(s), false),
            Err(_) => (self.intern(&String::from_utf8_lossy(bytes)), true),
        }
    }

    /// The string for `id`; the empty string for an id from another table that is out of range.
    pub fn get(&self, id: StrId) -> &str {
        self.strings.get(id.0 as usize).map(|s| &**s).unwrap_or("")
    }

    /// Looks a string up without interning it.
    pub fn find(&self, s: &str) -> Option<StrId> {
        self.index.get(s).copied()
    }

    /// Number of distinct strings (including the empty string).
    pub fn len(&self) -> usize {
        self.strings.len()
    }

    /// Estimated heap bytes of the table (string text, list and index), O(1).
    pub fn heap_bytes(&self) -> usize {
        let entry = std::mem::size_of::<Box<str>>();
        self.text_bytes
            + self.strings.capacity() * entry
            + self.index.capacity() * (entry + std::mem::size_of::<StrId>() + 1)
    }

    /// Always false: the empty string is present from the start.
    pub fn is_empty(&self) -> bool {
        self.strings.is_empty()
    }
}
