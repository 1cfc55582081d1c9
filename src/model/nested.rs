//! Structured argument values (Perfetto nested debug annotations: dicts, arrays, the deprecated
//! `NestedValue` tree) kept in a compact byte encoding instead of rendered JSON text.
//!
//! One value is a byte string in one arena; identical values (Chromium repeats the same
//! `{"function_name", "file_name", "line_number"}` dicts thousands of times) are stored once.
//! Keys and string leaves that the importer interns are [`StrId`]s (varints); other text is
//! inline UTF-8. [`NestedValues::to_json`] renders a value as the `serde_json::Value` the
//! importer used to build on the hot path, so its text ([`NestedValues::text`]) is the JSON text
//! that was kept before (`serde_json`'s map order, number formatting and escaping).
//!
//! Encoding (each value starts with a tag byte; varints are LEB128, integers zigzag):
//! `0` null · `1` int (zigzag varint) · `2` uint (varint) · `3` double (8 bytes LE) ·
//! `4` false · `5` true · `6` interned string (varint id) · `7` text (varint length, UTF-8) ·
//! `8` dict with interned keys (varint n, then n × (varint key id, value)) ·
//! `9` dict with text keys (varint n, then n × (varint length, UTF-8 key, value)) ·
//! `10` array (varint n, then n values).

use std::collections::HashMap;
use std::hash::BuildHasher;

use super::{StrId, StringTable};

/// Index of a structured value in [`NestedValues`] (an [`ArgValue::Nested`](super::ArgValue)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NestedId(pub u32);

const NULL: u8 = 0;
const INT: u8 = 1;
const UINT: u8 = 2;
const DOUBLE: u8 = 3;
const FALSE: u8 = 4;
const TRUE: u8 = 5;
const STR: u8 = 6;
const TEXT: u8 = 7;
const DICT: u8 = 8;
const DICT_TEXT: u8 = 9;
const ARRAY: u8 = 10;

/// Nesting beyond which a malformed encoding renders as null (the encoder never nests deeper
/// than the importers' own limits, 32–64 levels).
const MAX_DEPTH: u32 = 128;

/// One key or string leaf of a structured value, as [`NestedValues::any_string`] gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Leaf<'a> {
    /// Interned: its text is `strings.get(id)` of the model's [`StringTable`].
    Interned(StrId),
    /// Held in the value itself.
    Text(&'a str),
}

/// Writers of the encoding: an importer appends one value (a tag and its payload, children
/// after a container's header) to a scratch buffer, then stores it with
/// [`NestedValues::add`].
pub mod enc {
    use super::*;

    /// Appends `v` as a LEB128 varint (1–10 bytes).
    pub(crate) fn varint(buf: &mut Vec<u8>, mut v: u64) {
        while v >= 0x80 {
            buf.push((v as u8) | 0x80);
            v >>= 7;
        }
        buf.push(v as u8);
    }

    /// `v` zigzag-mapped to an unsigned integer (0, -1, 1, -2 … → 0, 1, 2, 3 …), so that a
    /// small magnitude takes few varint bytes.
    pub(crate) fn zigzag(v: i64) -> u64 {
        ((v << 1) ^ (v >> 63)) as u64
    }

    /// A JSON null.
    pub fn null(buf: &mut Vec<u8>) {
        buf.push(NULL);
    }
    /// A signed integer.
    pub fn int(buf: &mut Vec<u8>, v: i64) {
        buf.push(INT);
        varint(buf, zigzag(v));
    }
    /// An unsigned integer.
    pub fn uint(buf: &mut Vec<u8>, v: u64) {
        buf.push(UINT);
        varint(buf, v);
    }
    /// A double (non-finite values render as null, as `serde_json` does).
    pub fn double(buf: &mut Vec<u8>, v: f64) {
        buf.push(DOUBLE);
        buf.extend_from_slice(&v.to_bits().to_le_bytes());
    }
    /// A boolean.
    pub fn bool(buf: &mut Vec<u8>, v: bool) {
        buf.push(if v { TRUE } else { FALSE });
    }
    /// An interned string.
    pub fn str(buf: &mut Vec<u8>, id: StrId) {
        buf.push(STR);
        varint(buf, u64::from(id.0));
    }
    /// Text held in the value itself.
    pub fn text(buf: &mut Vec<u8>, s: &str) {
        buf.push(TEXT);
        key_text(buf, s);
    }
    /// The header of a dict of `n` entries with interned keys: `n` × ([`key`], value) follow.
    pub fn dict(buf: &mut Vec<u8>, n: usize) {
        buf.push(DICT);
        varint(buf, n as u64);
    }
    /// The header of a dict of `n` entries with text keys: `n` × ([`key_text`], value) follow.
    pub fn dict_text(buf: &mut Vec<u8>, n: usize) {
        buf.push(DICT_TEXT);
        varint(buf, n as u64);
    }
    /// The header of an array of `n` values (which follow).
    pub fn array(buf: &mut Vec<u8>, n: usize) {
        buf.push(ARRAY);
        varint(buf, n as u64);
    }
    /// An interned key of a [`dict`] entry.
    pub fn key(buf: &mut Vec<u8>, id: StrId) {
        varint(buf, u64::from(id.0));
    }
    /// A text key of a [`dict_text`] entry.
    pub fn key_text(buf: &mut Vec<u8>, s: &str) {
        varint(buf, s.len() as u64);
        buf.extend_from_slice(s.as_bytes());
    }
}

/// All structured values of a model: one byte arena, each distinct value once.
#[derive(Clone, Default)]
pub struct NestedValues {
    bytes: Vec<u8>,
    /// `ends[i]` is where value `i` ends in `bytes` (it starts where value `i - 1` ends).
    ends: Vec<usize>,
    /// Hash of a value's bytes → its id (import time only: dropped by `shrink_to_fit`).
    index: HashMap<u64, u32, foldhash::fast::RandomState>,
    hasher: foldhash::fast::RandomState,
}

/// The values only: the import-time index (and its randomly seeded hasher) never shows, so
/// two imports of one trace print the same.
impl std::fmt::Debug for NestedValues {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NestedValues")
            .field("bytes", &self.bytes)
            .field("ends", &self.ends)
            .finish()
    }
}

impl NestedValues {
    /// Stores one encoded value (see [`enc`]) and returns its id: the id of an identical value
    /// stored before when there is one (since the last [`NestedValues::shrink_to_fit`]).
    pub fn add(&mut self, encoded: &[u8]) -> NestedId {
        let h = self.hasher.hash_one(encoded);
        if let Some(&id) = self.index.get(&h) {
            if self.get(NestedId(id)) == encoded {
                return NestedId(id);
            }
        }
        self.bytes.extend_from_slice(encoded);
        self.ends.push(self.bytes.len());
        let id = (self.ends.len() - 1) as u32;
        self.index.entry(h).or_insert(id);
        NestedId(id)
    }

    /// The encoded bytes of `id` (empty for an unknown id).
    pub fn get(&self, id: NestedId) -> &[u8] {
        let i = id.0 as usize;
        let Some(&end) = self.ends.get(i) else {
            return &[];
        };
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.bytes[start..end]
    }

    /// Number of distinct values.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// True when no value is stored.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The value `id` as JSON (`Value::Null` for an unknown id or a malformed encoding);
    /// interned strings are resolved in `strings`.
    pub fn to_json(&self, id: NestedId, strings: &StringTable) -> serde_json::Value {
        let mut rd = Reader {
            d: self.get(id),
            p: 0,
        };
        rd.value(strings, 0).unwrap_or(serde_json::Value::Null)
    }

    /// The value `id` as JSON text (what the Perfetto importer kept as `ArgValue::Text` before).
    pub fn text(&self, id: NestedId, strings: &StringTable) -> String {
        self.to_json(id, strings).to_string()
    }

    /// Calls `f` on every key and string leaf of value `id` ([`Leaf`]: an interned id, so a
    /// caller can remember per-string facts, or text held in the value) in encoding order — a
    /// key that a later duplicate overwrites in the JSON, and its value, included — until `f`
    /// returns true. Returns `Some(true)` when `f` did (the rest is not read), `Some(false)`
    /// when it saw them all, `None` for a malformed encoding (the value renders as null).
    /// Every string of [`NestedValues::text`] is one `f` sees, not the reverse.
    pub fn any_string(&self, id: NestedId, f: &mut dyn FnMut(Leaf<'_>) -> bool) -> Option<bool> {
        let mut rd = Reader {
            d: self.get(id),
            p: 0,
        };
        rd.strings(0, f)
    }

    /// Estimated heap bytes, O(1).
    pub fn heap_bytes(&self) -> usize {
        self.bytes.capacity()
            + self.ends.capacity() * std::mem::size_of::<usize>()
            + self.index.capacity() * (std::mem::size_of::<(u64, u32)>() + 1)
    }

    /// Gives back spare capacity and the import-time index.
    pub fn shrink_to_fit(&mut self) {
        self.bytes.shrink_to_fit();
        self.ends.shrink_to_fit();
        self.index = HashMap::default();
    }
}

/// A bounds-checked reader of the encoding (`None` on malformed bytes).
struct Reader<'a> {
    d: &'a [u8],
    p: usize,
}

impl<'a> Reader<'a> {
    fn byte(&mut self) -> Option<u8> {
        let b = *self.d.get(self.p)?;
        self.p += 1;
        Some(b)
    }

    fn varint(&mut self) -> Option<u64> {
        let mut v = 0u64;
        for shift in 0..10 {
            let b = self.byte()?;
            v |= u64::from(b & 0x7f) << (7 * shift);
            if b & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    }

    fn text(&mut self) -> Option<String> {
        self.text_ref().map(str::to_string)
    }

    fn text_ref(&mut self) -> Option<&'a str> {
        let n = usize::try_from(self.varint()?).ok()?;
        let end = self.p.checked_add(n).filter(|&e| e <= self.d.len())?;
        let s = std::str::from_utf8(&self.d[self.p..end]).ok()?;
        self.p = end;
        Some(s)
    }

    fn str_id(&mut self) -> Option<StrId> {
        Some(StrId(u32::try_from(self.varint()?).ok()?))
    }

    fn count(&mut self) -> Option<usize> {
        let n = usize::try_from(self.varint()?).ok()?;
        // Every entry takes at least one byte: a count beyond the bytes left is malformed.
        (n <= self.d.len() - self.p).then_some(n)
    }

    /// [`NestedValues::any_string`] of the value at the reader's position: the walk of
    /// [`Reader::value`] without building the value.
    fn strings(&mut self, depth: u32, f: &mut dyn FnMut(Leaf<'_>) -> bool) -> Option<bool> {
        if depth > MAX_DEPTH {
            return None;
        }
        match self.byte()? {
            NULL | FALSE | TRUE => {}
            INT | UINT => {
                self.varint()?;
            }
            DOUBLE => {
                self.p = self.p.checked_add(8).filter(|&e| e <= self.d.len())?;
            }
            STR => return Some(f(Leaf::Interned(self.str_id()?))),
            TEXT => return Some(f(Leaf::Text(self.text_ref()?))),
            DICT | DICT_TEXT => {
                let interned = self.d[self.p - 1] == DICT;
                for _ in 0..self.count()? {
                    let stop = if interned {
                        f(Leaf::Interned(self.str_id()?))
                    } else {
                        f(Leaf::Text(self.text_ref()?))
                    };
                    if stop || self.strings(depth + 1, f)? {
                        return Some(true);
                    }
                }
            }
            ARRAY => {
                for _ in 0..self.count()? {
                    if self.strings(depth + 1, f)? {
                        return Some(true);
                    }
                }
            }
            _ => return None,
        }
        Some(false)
    }

    fn value(&mut self, strings: &StringTable, depth: u32) -> Option<serde_json::Value> {
        use serde_json::Value;
        if depth > MAX_DEPTH {
            return None;
        }
        Some(match self.byte()? {
            NULL => Value::Null,
            INT => {
                let z = self.varint()?;
                (((z >> 1) as i64) ^ -((z & 1) as i64)).into()
            }
            UINT => self.varint()?.into(),
            DOUBLE => {
                let end = self.p.checked_add(8).filter(|&e| e <= self.d.len())?;
                let mut a = [0u8; 8];
                a.copy_from_slice(&self.d[self.p..end]);
                self.p = end;
                serde_json::Number::from_f64(f64::from_bits(u64::from_le_bytes(a)))
                    .map(Value::Number)
                    .unwrap_or(Value::Null)
            }
            FALSE => false.into(),
            TRUE => true.into(),
            STR => {
                let id = u32::try_from(self.varint()?).ok()?;
                strings.get(StrId(id)).into()
            }
            TEXT => self.text()?.into(),
            DICT | DICT_TEXT => {
                let interned = self.d[self.p - 1] == DICT;
                let n = self.count()?;
                let mut m = serde_json::Map::new();
                for _ in 0..n {
                    let k = if interned {
                        let id = u32::try_from(self.varint()?).ok()?;
                        strings.get(StrId(id)).to_string()
                    } else {
                        self.text()?
                    };
                    let v = self.value(strings, depth + 1)?;
                    m.insert(k, v);
                }
                Value::Object(m)
            }
            ARRAY => {
                let n = self.count()?;
                let mut a = Vec::with_capacity(n);
                for _ in 0..n {
                    a.push(self.value(strings, depth + 1)?);
                }
                Value::Array(a)
            }
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_render_as_json_and_repeat_once() {
        let mut t = StringTable::default();
        let (k, s) = (t.intern("k"), t.intern("v\"q"));
        let mut vals = NestedValues::default();
        let mut b = Vec::new();
        enc::dict(&mut b, 3);
        enc::key(&mut b, k);
        enc::array(&mut b, 4);
        enc::int(&mut b, -1);
        enc::bool(&mut b, true);
        enc::double(&mut b, 0.5);
        enc::double(&mut b, f64::NAN);
        enc::key(&mut b, s);
        enc::str(&mut b, s);
        enc::key(&mut b, k);
        enc::uint(&mut b, u64::MAX);
        let id = vals.add(&b);
        // A repeated key keeps one entry, the later value (serde_json's map).
        assert_eq!(
            vals.text(id, &t),
            r#"{"k":18446744073709551615,"v\"q":"v\"q"}"#
        );
        assert_eq!(vals.add(&b), id);
        let mut c = Vec::new();
        enc::dict_text(&mut c, 1);
        enc::key_text(&mut c, "x");
        enc::array(&mut c, 2);
        enc::text(&mut c, "0xff");
        enc::null(&mut c);
        let id2 = vals.add(&c);
        assert_ne!(id2, id);
        assert_eq!(vals.text(id2, &t), r#"{"x":["0xff",null]}"#);
        assert_eq!(vals.len(), 2);
        // Malformed bytes render as null, never panic.
        for cut in 0..b.len() {
            let bad = vals.add(&b[..cut]);
            let _ = vals.text(bad, &t);
        }
        assert_eq!(vals.text(NestedId(999), &t), "null");
    }
}
