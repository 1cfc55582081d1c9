//! A tolerant, allocation-light JSON reader over one `&[u8]` (trace-formats.md §8.4).
//!
//! It parses one value at a time over the buffered bytes of one element (the importer calls it
//! once per trace event, and again on more bytes when the element was cut), never the whole
//! file; [`Lexer::skip_value`] and [`Lexer::shallow_value`] read nested values without building
//! them. Tolerated on purpose, each
//! counted in [`Issues`]: trailing and doubled commas, raw control characters and invalid escapes
//! inside strings (kept literally), invalid UTF-8 (left to the caller, who repairs it), `NaN` /
//! `Infinity` tokens (read as null). Nesting deeper than [`MAX_DEPTH`] is a syntax error, so no
//! input can exhaust the stack.

use std::borrow::Cow;

/// Deepest nesting of arrays/objects accepted inside one event.
pub const MAX_DEPTH: usize = 128;

/// One parsed JSON value borrowing from the input.
#[derive(Debug, Clone)]
pub enum JVal<'a> {
    Null,
    Bool(bool),
    /// Raw number text as written (not validated beyond its characters).
    Num(&'a [u8]),
    /// Decoded string bytes (UTF-8 unless the input was not).
    Str(Cow<'a, [u8]>),
    /// Elements and the byte span `[start, end)` of the whole array in the input.
    Arr(Vec<JVal<'a>>, (usize, usize)),
    /// Members in input order and the byte span of the whole object in the input.
    Obj(Vec<(Cow<'a, [u8]>, JVal<'a>)>, (usize, usize)),
}

impl<'a> JVal<'a> {
    /// The member `key` of an object (the last one when repeated).
    pub fn get(&self, key: &str) -> Option<&JVal<'a>> {
        match self {
            JVal::Obj(m, _) => m
                .iter()
                .rev()
                .find(|(k, _)| &k[..] == key.as_bytes())
                .map(|(_, v)| v),
            _ => None,
        }
    }

    /// The string bytes of a `Str`.
    pub fn as_bytes(&self) -> Option<&[u8]> {
        match self {
            JVal::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The value as an integer: numbers with an integral value, or decimal strings.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            JVal::Num(t) => int_of_text(t),
            JVal::Str(s) => int_of_text(s.trim_ascii()),
            _ => None,
        }
    }
}

/// Parses integer text; integral floats (`3.0`) are accepted, u64 beyond i64 wraps (keeps
/// 64-bit ids distinct).
pub fn int_of_text(t: &[u8]) -> Option<i64> {
    let s = std::str::from_utf8(t).ok()?;
    if let Ok(v) = s.parse::<i64>() {
        return Some(v);
    }
    if let Ok(v) = s.parse::<u64>() {
        return Some(v as i64);
    }
    let f: f64 = s.parse().ok()?;
    if f.is_finite() && f.fract() == 0.0 && f.abs() < 9.2e18 {
        return Some(f as i64);
    }
    None
}

/// A syntax error: where and what.
#[derive(Debug, Clone, Copy)]
pub struct SyntaxError {
    pub pos: usize,
    pub what: &'static str,
    /// True when the input ended inside the value (a cut-off write).
    pub eof: bool,
}

/// Counts of tolerated irregularities, with the byte offset of the first one of each.
#[derive(Debug, Default, Clone)]
pub struct Issues {
    pub control_chars: (u64, Option<usize>),
    pub invalid_escapes: (u64, Option<usize>),
    pub extra_commas: (u64, Option<usize>),
    pub non_finite_tokens: (u64, Option<usize>),
    /// `\uD800`–`\uDFFF` escapes without their other half (replaced with U+FFFD).
    pub lone_surrogates: (u64, Option<usize>),
}

fn note(slot: &mut (u64, Option<usize>), pos: usize) {
    slot.0 += 1;
    if slot.1.is_none() {
        slot.1 = Some(pos);
    }
}

/// Event-level keys used by the unescaped-quote repair to decide where a string really ends.
const EVENT_KEYS: &[&str] = &[
    "name", "ph", "cat", "pid", "tid", "ts", "dur", "tts", "tdur", "args", "id", "id2", "scope",
    "s", "bp", "bind_id", "flow_in", "flow_out", "sf", "stack", "esf", "estack", "cname",
];

/// The bytes a number token runs over: digits, `-`, `+`, `.`, `e`, `E` (one table lookup per
/// byte instead of six comparisons).
const NUMBER_BYTE: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = b'0';
    while c <= b'9' {
        t[c as usize] = true;
        c += 1;
    }
    t[b'-' as usize] = true;
    t[b'+' as usize] = true;
    t[b'.' as usize] = true;
    t[b'e' as usize] = true;
    t[b'E' as usize] = true;
    t
};

/// The reader: input and position.
pub struct Lexer<'a> {
    pub data: &'a [u8],
    pub pos: usize,
    pub issues: Issues,
}

impl<'a> Lexer<'a> {
    /// A reader at offset `pos` of `data`.
    pub fn new(data: &'a [u8], pos: usize) -> Self {
        Lexer {
            data,
            pos,
            issues: Issues::default(),
        }
    }

    /// Skips JSON white space.
    pub fn skip_ws(&mut self) {
        while let Some(&b) = self.data.get(self.pos) {
            if b == b' ' || b == b'\n' || b == b'\r' || b == b'\t' {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    /// The next byte after white space (not consumed).
    pub fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.data.get(self.pos).copied()
    }

    fn err(&self, what: &'static str) -> SyntaxError {
        SyntaxError {
            pos: self.pos,
            what,
            eof: self.pos >= self.data.len(),
        }
    }

    /// Parses one value. `repair_quotes` makes string values of this object level end only at
    /// a quote followed by a plausible continuation (used to re-read an event that failed
    /// because of unescaped quotes, quirk B08b).
    pub fn value(&mut self, depth: usize, repair_quotes: bool) -> Result<JVal<'a>, SyntaxError> {
        if depth > MAX_DEPTH {
            return Err(self.err("nesting too deep"));
        }
        let Some(b) = self.peek() else {
            return Err(self.err("unexpected end of data"));
        };
        match b {
            b'{' => self.object(depth, repair_quotes),
            b'[' => self.array(depth),
            b'"' => {
                self.pos += 1;
                Ok(JVal::Str(self.string(repair_quotes)?))
            }
            b't' => self.literal(b"true", JVal::Bool(true)),
            b'f' => self.literal(b"false", JVal::Bool(false)),
            b'n' => self.literal(b"null", JVal::Null),
            b'N' => {
                note(&mut self.issues.non_finite_tokens, self.pos);
                self.literal(b"NaN", JVal::Null)
            }
            b'I' => {
                note(&mut self.issues.non_finite_tokens, self.pos);
                self.literal(b"Infinity", JVal::Null)
            }
            b'-' if self.data[self.pos..].starts_with(b"-Infinity") => {
                note(&mut self.issues.non_finite_tokens, self.pos);
                self.literal(b"-Infinity", JVal::Null)
            }
            b'-' | b'+' | b'.' | b'0'..=b'9' => self.number(),
            _ => Err(self.err("unexpected character")),
        }
    }

    /// Reads a number token at the position (its characters, not validated further).
    #[inline]
    fn number(&mut self) -> Result<JVal<'a>, SyntaxError> {
        let start = self.pos;
        self.pos += self.data[start..]
            .iter()
            .take_while(|&&c| NUMBER_BYTE[usize::from(c)])
            .count();
        if self.pos >= self.data.len() {
            // A number running into EOF may be cut off.
            return Err(self.err("unexpected end of data in a number"));
        }
        Ok(JVal::Num(&self.data[start..self.pos]))
    }

    fn literal(&mut self, word: &'static [u8], v: JVal<'a>) -> Result<JVal<'a>, SyntaxError> {
        let rest = &self.data[self.pos..];
        if rest.starts_with(word) {
            self.pos += word.len();
            Ok(v)
        } else if word.starts_with(rest) {
            self.pos = self.data.len();
            Err(self.err("unexpected end of data"))
        } else {
            Err(self.err("invalid literal"))
        }
    }

    fn object(&mut self, depth: usize, repair: bool) -> Result<JVal<'a>, SyntaxError> {
        let start = self.pos;
        self.pos += 1; // {
        let mut members = Vec::new();
        let mut need_comma = false;
        loop {
            let Some(b) = self.peek() else {
                return Err(self.err("unexpected end of data in an object"));
            };
            match b {
                b'}' => {
                    self.pos += 1;
                    return Ok(JVal::Obj(members, (start, self.pos)));
                }
                b',' => {
                    if !need_comma {
                        note(&mut self.issues.extra_commas, self.pos);
                    }
                    need_comma = false;
                    self.pos += 1;
                    // A trailing comma before `}` is counted when the `}` is seen.
                    if self.peek() == Some(b'}') {
                        note(&mut self.issues.extra_commas, self.pos);
                    }
                }
                b'"' => {
                    if need_comma {
                        return Err(self.err("expected ',' or '}' in an object"));
                    }
                    self.pos += 1;
                    let key = self.string(false)?;
                    if self.peek() != Some(b':') {
                        return Err(self.err("expected ':' after an object key"));
                    }
                    self.pos += 1;
                    let v = self.value(depth + 1, repair)?;
                    members.push((key, v));
                    need_comma = true;
                }
                _ => return Err(self.err("expected a key in an object")),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<JVal<'a>, SyntaxError> {
        let start = self.pos;
        self.pos += 1; // [
        let mut items = Vec::new();
        let mut need_comma = false;
        loop {
            let Some(b) = self.peek() else {
                return Err(self.err("unexpected end of data in an array"));
            };
            match b {
                b']' => {
                    self.pos += 1;
                    return Ok(JVal::Arr(items, (start, self.pos)));
                }
                b',' => {
                    if !need_comma {
                        note(&mut self.issues.extra_commas, self.pos);
                    }
                    need_comma = false;
                    self.pos += 1;
                    if self.peek() == Some(b']') {
                        note(&mut self.issues.extra_commas, self.pos);
                    }
                }
                _ => {
                    if need_comma {
                        return Err(self.err("expected ',' or ']' in an array"));
                    }
                    items.push(self.value(depth + 1, false)?);
                    need_comma = true;
                }
            }
        }
    }

    /// Skips one value exactly as [`Lexer::value`] would read it (same grammar, same
    /// tolerances counted in [`Issues`]) without building it; returns the number of value
    /// nodes (scalars, arrays, objects) it holds. Allocation-free except for strings with
    /// escapes, whose decoded bytes are dropped at once.
    pub fn skip_value(&mut self, depth: usize, repair_quotes: bool) -> Result<usize, SyntaxError> {
        if depth > MAX_DEPTH {
            return Err(self.err("nesting too deep"));
        }
        match self.peek() {
            Some(b'{') => {
                self.pos += 1;
                let mut nodes = 1;
                let mut need_comma = false;
                loop {
                    let Some(b) = self.peek() else {
                        return Err(self.err("unexpected end of data in an object"));
                    };
                    match b {
                        b'}' => {
                            self.pos += 1;
                            return Ok(nodes);
                        }
                        b',' => {
                            if !need_comma {
                                note(&mut self.issues.extra_commas, self.pos);
                            }
                            need_comma = false;
                            self.pos += 1;
                            if self.peek() == Some(b'}') {
                                note(&mut self.issues.extra_commas, self.pos);
                            }
                        }
                        b'"' => {
                            if need_comma {
                                return Err(self.err("expected ',' or '}' in an object"));
                            }
                            self.pos += 1;
                            self.string(false)?;
                            if self.peek() != Some(b':') {
                                return Err(self.err("expected ':' after an object key"));
                            }
                            self.pos += 1;
                            nodes += self.skip_value(depth + 1, repair_quotes)?;
                            need_comma = true;
                        }
                        _ => return Err(self.err("expected a key in an object")),
                    }
                }
            }
            Some(b'[') => {
                self.pos += 1;
                let mut nodes = 1;
                let mut need_comma = false;
                loop {
                    let Some(b) = self.peek() else {
                        return Err(self.err("unexpected end of data in an array"));
                    };
                    match b {
                        b']' => {
                            self.pos += 1;
                            return Ok(nodes);
                        }
                        b',' => {
                            if !need_comma {
                                note(&mut self.issues.extra_commas, self.pos);
                            }
                            need_comma = false;
                            self.pos += 1;
                            if self.peek() == Some(b']') {
                                note(&mut self.issues.extra_commas, self.pos);
                            }
                        }
                        _ => {
                            if need_comma {
                                return Err(self.err("expected ',' or ']' in an array"));
                            }
                            nodes += self.skip_value(depth + 1, false)?;
                            need_comma = true;
                        }
                    }
                }
            }
            _ => self.value(depth, repair_quotes).map(|_| 1),
        }
    }

    /// Reads one value, but an array or object only as far as its extent: it is skipped (see
    /// [`Lexer::skip_value`]) and returned as an empty `Arr`/`Obj` carrying its byte span, with
    /// its node count. Scalars are read as by [`Lexer::value`] (one node).
    pub fn shallow_value(
        &mut self,
        depth: usize,
        repair_quotes: bool,
    ) -> Result<(JVal<'a>, usize), SyntaxError> {
        match self.peek() {
            Some(c @ (b'{' | b'[')) => {
                let start = self.pos;
                let nodes = self.skip_value(depth, repair_quotes)?;
                let span = (start, self.pos);
                Ok(if c == b'{' {
                    (JVal::Obj(Vec::new(), span), nodes)
                } else {
                    (JVal::Arr(Vec::new(), span), nodes)
                })
            }
            // The common scalars read here directly (as `value` reads them).
            Some(b'"') if depth <= MAX_DEPTH => {
                self.pos += 1;
                Ok((JVal::Str(self.string(repair_quotes)?), 1))
            }
            Some(b'0'..=b'9') if depth <= MAX_DEPTH => Ok((self.number()?, 1)),
            _ => Ok((self.value(depth, repair_quotes)?, 1)),
        }
    }

    /// Reads an object key (after white space, at its opening quote) and the `:` after it.
    pub fn key(&mut self) -> Result<Cow<'a, [u8]>, SyntaxError> {
        self.pos += 1;
        let key = self.string(false)?;
        if self.peek() != Some(b':') {
            return Err(self.err("expected ':' after an object key"));
        }
        self.pos += 1;
        Ok(key)
    }

    /// Reads the separator after an object member: `Ok(true)` at the closing `}` (consumed),
    /// `Ok(false)` when another member follows (commas consumed and counted as
    /// [`Lexer::value`] counts them).
    pub fn member_sep(&mut self, need_comma: &mut bool) -> Result<bool, SyntaxError> {
        loop {
            let Some(b) = self.peek() else {
                return Err(self.err("unexpected end of data in an object"));
            };
            match b {
                b'}' => {
                    self.pos += 1;
                    return Ok(true);
                }
                b',' => {
                    if !*need_comma {
                        note(&mut self.issues.extra_commas, self.pos);
                    }
                    *need_comma = false;
                    self.pos += 1;
                    if self.peek() == Some(b'}') {
                        note(&mut self.issues.extra_commas, self.pos);
                    }
                }
                b'"' => {
                    if *need_comma {
                        return Err(self.err("expected ',' or '}' in an object"));
                    }
                    return Ok(false);
                }
                _ => return Err(self.err("expected a key in an object")),
            }
        }
    }

    /// In repair mode: does the quote at `q` end the string? True when it is followed by
    /// `}` and then `,` / `]` / end, or by `,` and a known event key.
    fn quote_closes(&self, q: usize) -> bool {
        let d = self.data;
        let mut i = q + 1;
        let ws = |i: &mut usize| {
            while *i < d.len() && d[*i].is_ascii_whitespace() {
                *i += 1;
            }
        };
        ws(&mut i);
        match d.get(i) {
            None => true,
            Some(b'}') => {
                i += 1;
                ws(&mut i);
                matches!(d.get(i), None | Some(b',') | Some(b']'))
            }
            Some(b',') => {
                i += 1;
                ws(&mut i);
                if d.get(i) != Some(&b'"') {
                    return false;
                }
                let rest = &d[i + 1..];
                EVENT_KEYS.iter().any(|k| {
                    rest.starts_with(k.as_bytes()) && rest.get(k.len()) == Some(&b'"') && {
                        let mut j = i + 1 + k.len() + 1;
                        ws(&mut j);
                        d.get(j) == Some(&b':')
                    }
                })
            }
            _ => false,
        }
    }

    /// Reads a string body after its opening quote, up to and including the closing quote.
    fn string(&mut self, repair: bool) -> Result<Cow<'a, [u8]>, SyntaxError> {
        let d = self.data;
        let start = self.pos;
        if !repair {
            // Fastest path: the closing quote found by memchr, no escape or control character
            // before it (a vectorised check).
            if let Some(k) = memchr::memchr2(b'"', b'\\', &d[start..]) {
                let body = &d[start..start + k];
                if d[start + k] == b'"' && !body.iter().any(|&c| c < 0x20) {
                    self.pos = start + k + 1;
                    return Ok(Cow::Borrowed(body));
                }
            }
        }
        // Fast path: no escapes, no control characters.
        let mut i = start;
        while i < d.len() {
            let c = d[i];
            if c == b'"' {
                if !repair || self.quote_closes(i) {
                    self.pos = i + 1;
                    return Ok(Cow::Borrowed(&d[start..i]));
                }
                break;
            }
            if c == b'\\' || c < 0x20 || (repair && c == b'}') {
                break;
            }
            i += 1;
        }
        if i >= d.len() {
            self.pos = d.len();
            return Err(self.err("unexpected end of data in a string"));
        }
        let mut out: Vec<u8> = d[start..i].to_vec();
        while i < d.len() {
            let c = d[i];
            if c == b'"' {
                if !repair || self.quote_closes(i) {
                    self.pos = i + 1;
                    return Ok(Cow::Owned(out));
                }
                out.push(c);
                i += 1;
            } else if c == b'\\' {
                let Some(&e) = d.get(i + 1) else {
                    break;
                };
                let simple = match e {
                    b'"' => Some(b'"'),
                    b'\\' => Some(b'\\'),
                    b'/' => Some(b'/'),
                    b'b' => Some(8),
                    b'f' => Some(12),
                    b'n' => Some(b'\n'),
                    b'r' => Some(b'\r'),
                    b't' => Some(b'\t'),
                    _ => None,
                };
                if let Some(s) = simple {
                    out.push(s);
                    i += 2;
                } else if e == b'u' {
                    match hex4(d, i + 2) {
                        Some(hi) => {
                            let mut cp = hi as u32;
                            let mut used = 6;
                            if (0xD800..0xDC00).contains(&hi)
                                && d.get(i + 6) == Some(&b'\\')
                                && d.get(i + 7) == Some(&b'u')
                            {
                                if let Some(lo) = hex4(d, i + 8) {
                                    if (0xDC00..0xE000).contains(&lo) {
                                        cp = 0x10000
                                            + ((hi as u32 - 0xD800) << 10)
                                            + (lo as u32 - 0xDC00);
                                        used = 12;
                                    }
                                }
                            }
                            let ch = char::from_u32(cp).unwrap_or_else(|| {
                                note(&mut self.issues.lone_surrogates, i);
                                '\u{FFFD}'
                            });
                            let mut buf = [0u8; 4];
                            out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                            i += used;
                        }
                        None => {
                            if i + 6 > d.len() {
                                break;
                            }
                            note(&mut self.issues.invalid_escapes, i);
                            out.push(b'\\');
                            i += 1;
                        }
                    }
                } else {
                    // `\c`, `\_`, … (unescaped Windows paths): keep the backslash literally.
                    note(&mut self.issues.invalid_escapes, i);
                    out.push(b'\\');
                    i += 1;
                }
            } else {
                if repair && (c < 0x20 || (c == b'}' && event_boundary(d, i))) {
                    // A repaired string never spans lines or events.
                    self.pos = i;
                    return Err(self.err("string crosses an event boundary"));
                }
                if c < 0x20 {
                    note(&mut self.issues.control_chars, i);
                }
                out.push(c);
                i += 1;
            }
        }
        self.pos = d.len();
        Err(self.err("unexpected end of data in a string"))
    }
}

/// True when `}` at `i` is followed by `,` and `{` (white space allowed): the end of an event.
pub fn event_boundary(d: &[u8], i: usize) -> bool {
    let mut j = i + 1;
    while j < d.len() && d[j].is_ascii_whitespace() {
        j += 1;
    }
    if d.get(j) != Some(&b',') {
        return false;
    }
    j += 1;
    while j < d.len() && d[j].is_ascii_whitespace() {
        j += 1;
    }
    d.get(j) == Some(&b'{')
}

fn hex4(d: &[u8], at: usize) -> Option<u16> {
    let s = d.get(at..at + 4)?;
    let mut v: u16 = 0;
    for &c in s {
        let h = (c as char).to_digit(16)? as u16;
        v = v * 16 + h;
    }
    Some(v)
}

/// Converts a microsecond text in any JSON number notation (`"1712195495519689.047"`, `"250.5"`,
/// `"1e3"`, `"1.7312345678901235e+15"`, `"1.2E+3"`) to integer nanoseconds, exactly from its
/// digits in integer arithmetic (no f64 rounding, so values beyond 2^53 keep their last digit,
/// in decimal and exponent notation alike); digits below the nanosecond round half away from
/// zero. `None` for anything that is not entirely a number (`"100a"`, `"invalid"`, `""`,
/// `"1.5e"`) or does not fit in i64 ns; [`us_text_to_ns_checked`] tells the two apart.
pub fn us_text_to_ns(t: &[u8]) -> Option<i64> {
    us_text_to_ns_checked(t).ok()
}

/// Why a microsecond text gave no nanosecond value ([`us_text_to_ns_checked`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NsTextError {
    /// The text is not entirely a number (`"100a"`, `""`, `"1.5e"`).
    NotANumber,
    /// A number whose value in ns is beyond i64 (`1e400`, `99999999999999999999`).
    OutOfRange,
}

/// [`us_text_to_ns`], telling a text that is no number from a number beyond i64 ns.
///
/// # Errors
/// [`NsTextError::NotANumber`] or [`NsTextError::OutOfRange`].
pub fn us_text_to_ns_checked(t: &[u8]) -> Result<i64, NsTextError> {
    let t = t.trim_ascii();
    match plain_us_to_ns(t) {
        Some(v) => Ok(v),
        None => any_us_to_ns(t),
    }
}

/// [`us_text_to_ns_checked`] for every notation (the text trimmed).
fn any_us_to_ns(t: &[u8]) -> Result<i64, NsTextError> {
    use NsTextError::{NotANumber, OutOfRange};
    let (neg, body) = match *t.first().ok_or(NotANumber)? {
        b'-' => (true, &t[1..]),
        b'+' => (false, &t[1..]),
        _ => (false, t),
    };
    let (mantissa, exp_text) = match body.iter().position(|&c| c == b'e' || c == b'E') {
        Some(p) => (&body[..p], Some(&body[p + 1..])),
        None => (body, None),
    };
    let (int_part, frac) = match mantissa.iter().position(|&c| c == b'.') {
        Some(p) => (&mantissa[..p], &mantissa[p + 1..]),
        None => (mantissa, &mantissa[mantissa.len()..]),
    };
    if int_part.is_empty() && frac.is_empty() {
        return Err(NotANumber);
    }
    if !int_part.iter().all(u8::is_ascii_digit) || !frac.iter().all(u8::is_ascii_digit) {
        return Err(NotANumber);
    }
    // The decimal exponent, saturated far beyond any value that fits (digits are bounded).
    let exp: i64 = match exp_text {
        None => 0,
        Some(e) => {
            let (eneg, ed) = match e.first() {
                Some(b'-') => (true, &e[1..]),
                Some(b'+') => (false, &e[1..]),
                _ => (false, e),
            };
            if ed.is_empty() || !ed.iter().all(u8::is_ascii_digit) {
                return Err(NotANumber);
            }
            let mut v: i64 = 0;
            for &c in ed {
                v = (v * 10 + i64::from(c - b'0')).min(1 << 40);
            }
            if eneg {
                -v
            } else {
                v
            }
        }
    };
    // All mantissa digits, leading zeros dropped; `point` is where the ns decimal point falls
    // (µs → ns is three more places).
    // (Read in place: digit `k` of the mantissa without its leading zeros, 0 past its end.)
    let n_int = int_part.len();
    let lead = int_part
        .iter()
        .chain(frac)
        .take_while(|&&c| c == b'0')
        .count();
    let n_digits = n_int + frac.len() - lead;
    if n_digits == 0 {
        return Ok(0);
    }
    let digit = |k: usize| -> u8 {
        let i = lead + k;
        let c = if i < n_int {
            int_part[i]
        } else {
            frac.get(i - n_int).copied().unwrap_or(b'0')
        };
        c - b'0'
    };
    let point = n_int as i64 - lead as i64 + exp + 3;
    if point > 19 {
        return Err(OutOfRange); // at least 20 integer digits: beyond i64
    }
    let mut v: i128 = 0;
    for k in 0..point.max(0) as usize {
        v = v * 10 + i128::from(digit(k));
    }
    let round_up = point >= 0 && (point as usize) < n_digits && digit(point as usize) >= 5;
    let mut ns = v + i128::from(round_up);
    if neg {
        ns = -ns;
    }
    i64::try_from(ns).map_err(|_| OutOfRange)
}

/// The common case of [`us_text_to_ns`] in one pass: `[-]<1–15 digits>[.<digits>]` (what
/// Kineto and Chrome write); `None` for anything else, which the general path reads.
fn plain_us_to_ns(t: &[u8]) -> Option<i64> {
    let (neg, body) = match t.first()? {
        b'-' => (true, &t[1..]),
        _ => (false, t),
    };
    let int_len = body.iter().take_while(|c| c.is_ascii_digit()).count();
    if int_len == 0 || int_len > 15 {
        return None; // 15 digits of µs stay below 10^18 ns: no overflow below
    }
    let mut us: i64 = 0;
    for &c in &body[..int_len] {
        us = us * 10 + i64::from(c - b'0');
    }
    let mut frac_ns: i64 = 0;
    if let Some((&dot, frac)) = body[int_len..].split_first() {
        if dot != b'.' || !frac.iter().all(u8::is_ascii_digit) {
            return None;
        }
        for k in 0..3 {
            frac_ns = frac_ns * 10 + frac.get(k).map_or(0, |&c| i64::from(c - b'0'));
        }
        // Digits below the nanosecond round half away from zero, as the general path.
        frac_ns += i64::from(frac.get(3).is_some_and(|&c| c >= b'5'));
    }
    let ns = us * 1000 + frac_ns;
    Some(if neg { -ns } else { ns })
}

/// Parses a counter value: a JSON number, or a string holding a decimal number in the forms
/// Perfetto accepts (`".75"`, `"246."`, `"01.23"`, `"+10.5"`; not `"1.5e"`, `"."`, `"+"`).
pub fn number_of(v: &JVal<'_>) -> Option<f64> {
    let t: &[u8] = match v {
        JVal::Num(t) => t,
        JVal::Str(s) => s.trim_ascii(),
        _ => return None,
    };
    if !t.iter().any(u8::is_ascii_digit) {
        return None;
    }
    let s = std::str::from_utf8(t).ok()?;
    let f: f64 = s.parse().ok()?;
    f.is_finite().then_some(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_decimal_microseconds() {
        assert_eq!(
            us_text_to_ns(b"1712195495519689.047"),
            Some(1_712_195_495_519_689_047)
        );
        assert_eq!(us_text_to_ns(b"250.5"), Some(250_500));
        assert_eq!(us_text_to_ns(b"0.001"), Some(1));
        assert_eq!(us_text_to_ns(b"1.0005"), Some(1_001));
        assert_eq!(us_text_to_ns(b"-2.5"), Some(-2_500));
        assert_eq!(us_text_to_ns(b"1e3"), Some(1_000_000));
        assert_eq!(us_text_to_ns(b"100a"), None);
        assert_eq!(us_text_to_ns(b"invalid"), None);
        assert_eq!(us_text_to_ns(b"."), None);
        assert_eq!(us_text_to_ns(b"99999999999999999999"), None);
        // No value: a number too large for i64 ns is told apart from a text that is no number.
        use NsTextError::{NotANumber, OutOfRange};
        for (t, want) in [
            (&b"99999999999999999999"[..], OutOfRange),
            (b"1e400", OutOfRange),
            (b"-1e400", OutOfRange),
            (b"9.3e15", OutOfRange),
            (b"100a", NotANumber),
            (b"1.5e", NotANumber),
            (b"", NotANumber),
            (b"-", NotANumber),
        ] {
            assert_eq!(us_text_to_ns_checked(t), Err(want), "{t:?}");
        }
        // Exponent notation is exact too (google/perfetto #559).
        assert_eq!(
            us_text_to_ns(b"1.7312345678901235e+15"),
            Some(1_731_234_567_890_123_500)
        );
        assert_eq!(us_text_to_ns(b"1.2E+3"), Some(1_200_000));
        assert_eq!(us_text_to_ns(b"12345e-3"), Some(12_345));
        assert_eq!(us_text_to_ns(b"15e-4"), Some(2));
        assert_eq!(us_text_to_ns(b"-15e-4"), Some(-2));
        assert_eq!(us_text_to_ns(b"1e-9"), Some(0));
        assert_eq!(us_text_to_ns(b"0e999999999999"), Some(0));
        assert_eq!(us_text_to_ns(b"1e999999999999"), None);
        assert_eq!(us_text_to_ns(b"9.2e15"), Some(9_200_000_000_000_000_000));
        assert_eq!(us_text_to_ns(b"9.3e15"), None);
        for bad in ["1.5e", "2e+", "e3", "1e3.5", "1ee3", "-"] {
            assert_eq!(us_text_to_ns(bad.as_bytes()), None, "{bad}");
        }
    }

    #[test]
    fn plain_notation_fast_path_agrees_with_the_general_path() {
        let mut cases: Vec<String> = [
            "0",
            "-0",
            "0.0",
            "-0.0004",
            "0.0005",
            "-0.0005",
            "007.5",
            "1.",
            "-",
            ".5",
            "1.2.3",
            "12a",
            "999999999999999.9995",
            "1000000000000000",
            "5090832481421.792",
            "1712195495519689.047",
            "+3",
            "1e3",
            "",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let int = x % 10u64.pow((x >> 60) as u32 % 16 + 1);
            let frac_len = (x >> 56) as usize % 8;
            let frac: String = (0..frac_len)
                .map(|k| char::from(b'0' + ((x >> (k * 4)) % 10) as u8))
                .collect();
            let sign = if x & 1 == 0 { "-" } else { "" };
            cases.push(if frac_len == 7 {
                format!("{sign}{int}")
            } else {
                format!("{sign}{int}.{frac}")
            });
        }
        for c in &cases {
            let t = c.as_bytes();
            if let Some(fast) = plain_us_to_ns(t) {
                assert_eq!(Ok(fast), any_us_to_ns(t), "{c}");
            }
        }
        assert_eq!(plain_us_to_ns(b"1e3"), None);
        assert_eq!(
            plain_us_to_ns(b"5090832481421.792"),
            Some(5_090_832_481_421_792)
        );
    }

    #[test]
    fn counter_strings_follow_perfetto() {
        let ok = |s: &'static str| number_of(&JVal::Str(Cow::Borrowed(s.as_bytes())));
        assert_eq!(ok(".75"), Some(0.75));
        assert_eq!(ok("246."), Some(246.0));
        assert_eq!(ok("050"), Some(50.0));
        assert_eq!(ok("+10.5"), Some(10.5));
        for bad in ["1.5e", "2e+", ".", "+", "-"] {
            assert_eq!(ok(bad), None, "{bad}");
        }
    }

    #[test]
    fn lenient_strings_and_commas() {
        let data = b"{\"a\":\"x\\cy\",\"b\":\"l1\nl2\",\"c\":[1,2,],}";
        let mut lx = Lexer::new(data, 0);
        let v = lx.value(0, false).unwrap();
        assert_eq!(v.get("a").unwrap().as_bytes().unwrap(), b"x\\cy");
        assert_eq!(v.get("b").unwrap().as_bytes().unwrap(), b"l1\nl2");
        assert_eq!(lx.issues.invalid_escapes.0, 1);
        assert_eq!(lx.issues.control_chars.0, 1);
        assert_eq!(lx.issues.extra_commas.0, 2);
    }

    #[test]
    fn lone_surrogate_escapes_are_replaced_and_counted() {
        // A pair is one character; a lone high or low half is U+FFFD, counted.
        let data = br#"["\ud83d\ude00", "a\ud800b", "\udc00", "\ud800\u0041"]"#;
        let mut lx = Lexer::new(data, 0);
        let v = lx.value(0, false).unwrap();
        let JVal::Arr(items, _) = v else {
            panic!("not an array")
        };
        let texts: Vec<String> = items
            .iter()
            .map(|x| String::from_utf8(x.as_bytes().unwrap().to_vec()).unwrap())
            .collect();
        assert_eq!(texts, ["\u{1F600}", "a\u{FFFD}b", "\u{FFFD}", "\u{FFFD}A"]);
        assert_eq!(lx.issues.lone_surrogates.0, 3);
        assert_eq!(lx.issues.lone_surrogates.1, Some(19));
        assert_eq!(lx.issues.invalid_escapes.0, 0);
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let data = vec![b'['; 100_000];
        let mut lx = Lexer::new(&data, 0);
        assert!(lx.value(0, false).is_err());
    }
}
