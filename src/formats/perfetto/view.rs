//! Borrowed, zero-copy views of the hot Perfetto messages (`TracePacket`, `TrackEvent`,
//! `DebugAnnotation`, `InternedData`): a field walk over the packet bytes that keeps scalars and
//! byte slices into the input, so the per-packet work allocates nothing. Cold sub-messages
//! (descriptors, clock snapshots, defaults, process trees, legacy events, source locations) are
//! still decoded with the prost messages of [`super::proto`].
//!
//! Decoding is as strict as prost's for the fields declared in [`super::proto`]: a known field
//! with the wrong wire type, a truncated field, a malformed nested message of a declared type,
//! or nesting deeper than prost's recursion limit (100) is an error for the whole packet
//! (`packet_decode_error`); unknown fields are skipped by wire type (groups included). The one
//! exception: an event's first [`INLINE_ANNOTATIONS`] debug annotations are validated by the
//! caller ([`EventView::deferred_annotations`], [`validate_annotations`]), which can skip bytes
//! it validated before.

use prost::Message;

use super::proto::*;

/// A wire-level decode error (the packet is dropped and counted).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct DecodeError(pub &'static str);

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

type R<T> = Result<T, DecodeError>;

/// prost's default recursion limit.
const RECURSION_LIMIT: u32 = 100;

/// Wire type of a field value.
pub(super) const VARINT: u8 = 0;
pub(super) const FIXED64: u8 = 1;
pub(super) const LEN: u8 = 2;
pub(super) const FIXED32: u8 = 5;

/// A cursor over one message's bytes.
#[derive(Clone)]
pub(super) struct Rd<'a> {
    d: &'a [u8],
    p: usize,
}

impl<'a> Rd<'a> {
    pub(super) fn new(d: &'a [u8]) -> Self {
        Rd { d, p: 0 }
    }

    #[inline(always)]
    fn varint(&mut self) -> R<u64> {
        // Fast paths: one and two bytes.
        if let Some(&b) = self.d.get(self.p) {
            if b < 0x80 {
                self.p += 1;
                return Ok(u64::from(b));
            }
            if let Some(&c) = self.d.get(self.p + 1) {
                if c < 0x80 {
                    self.p += 2;
                    return Ok(u64::from(b & 0x7f) | u64::from(c) << 7);
                }
            }
        }
        self.varint_slow()
    }

    fn varint_slow(&mut self) -> R<u64> {
        let mut v: u64 = 0;
        for shift in 0..10 {
            let Some(&b) = self.d.get(self.p) else {
                return Err(DecodeError("truncated varint"));
            };
            self.p += 1;
            v |= u64::from(b & 0x7f) << (7 * shift);
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(DecodeError("varint longer than 10 bytes"))
    }

    /// The next field's number and wire type, `None` at the end of the message.
    #[inline(always)]
    pub(super) fn field(&mut self) -> R<Option<(u32, u8)>> {
        if self.p >= self.d.len() {
            return Ok(None);
        }
        let key = self.varint()?;
        if key > u64::from(u32::MAX) {
            return Err(DecodeError("invalid key"));
        }
        let wt = (key & 7) as u8;
        let num = (key >> 3) as u32;
        if num == 0 || wt > 5 {
            return Err(DecodeError("invalid key"));
        }
        Ok(Some((num, wt)))
    }

    #[inline]
    fn bytes(&mut self) -> R<&'a [u8]> {
        let len = self.varint()?;
        let len = usize::try_from(len).map_err(|_| DecodeError("length overflow"))?;
        let end = self
            .p
            .checked_add(len)
            .filter(|&e| e <= self.d.len())
            .ok_or(DecodeError("buffer underflow"))?;
        let b = &self.d[self.p..end];
        self.p = end;
        Ok(b)
    }

    fn fixed(&mut self, n: usize) -> R<&'a [u8]> {
        let end = self
            .p
            .checked_add(n)
            .filter(|&e| e <= self.d.len())
            .ok_or(DecodeError("buffer underflow"))?;
        let b = &self.d[self.p..end];
        self.p = end;
        Ok(b)
    }

    /// Skips a field's value of wire type `wt` (`num` for a group's end tag). Inlined: every
    /// packet Chromium writes has a field the walk skips (`trusted_uid` = 3).
    #[inline(always)]
    pub(super) fn skip(&mut self, num: u32, wt: u8) -> R<()> {
        match wt {
            LEN => self.bytes().map(|_| ()),
            VARINT => self.varint().map(|_| ()),
            _ => self.skip_other(num, wt),
        }
    }

    fn skip_other(&mut self, num: u32, wt: u8) -> R<()> {
        match wt {
            VARINT => self.varint().map(|_| ()),
            FIXED64 => self.fixed(8).map(|_| ()),
            LEN => self.bytes().map(|_| ()),
            FIXED32 => self.fixed(4).map(|_| ()),
            3 => loop {
                match self.field()? {
                    None => return Err(DecodeError("unterminated group")),
                    Some((n, 4)) if n == num => return Ok(()),
                    Some((_, 4)) => return Err(DecodeError("unexpected end group")),
                    Some((n, w)) => self.skip(n, w)?,
                }
            },
            _ => Err(DecodeError("unexpected end group")),
        }
    }

    #[inline]
    fn expect(wt: u8, want: u8) -> R<()> {
        if wt == want {
            Ok(())
        } else {
            Err(DecodeError("invalid wire type"))
        }
    }

    #[inline]
    pub(super) fn u64(&mut self, wt: u8) -> R<u64> {
        Self::expect(wt, VARINT)?;
        self.varint()
    }

    #[inline]
    pub(super) fn i64(&mut self, wt: u8) -> R<i64> {
        self.u64(wt).map(|v| v as i64)
    }

    #[inline]
    pub(super) fn u32(&mut self, wt: u8) -> R<u32> {
        self.u64(wt).map(|v| v as u32)
    }

    #[inline]
    pub(super) fn i32(&mut self, wt: u8) -> R<i32> {
        self.u64(wt).map(|v| v as i32)
    }

    #[inline]
    pub(super) fn bool(&mut self, wt: u8) -> R<bool> {
        self.u64(wt).map(|v| v != 0)
    }

    #[inline]
    pub(super) fn f64(&mut self, wt: u8) -> R<f64> {
        Self::expect(wt, FIXED64)?;
        let b = self.fixed(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(f64::from_bits(u64::from_le_bytes(a)))
    }

    #[inline]
    pub(super) fn len(&mut self, wt: u8) -> R<&'a [u8]> {
        Self::expect(wt, LEN)?;
        self.bytes()
    }
}

/// Calls `f` for each value of a repeated varint field that may be packed or not.
fn each_varint(rd: &mut Rd<'_>, wt: u8, mut f: impl FnMut(u64)) -> R<()> {
    if wt == LEN {
        let b = rd.bytes()?;
        let mut inner = Rd::new(b);
        while inner.p < b.len() {
            f(inner.varint()?);
        }
        Ok(())
    } else {
        f(rd.u64(wt)?);
        Ok(())
    }
}

/// Calls `f` for each value of a repeated double field that may be packed or not.
fn each_f64(rd: &mut Rd<'_>, wt: u8, mut f: impl FnMut(f64)) -> R<()> {
    if wt == LEN {
        let b = rd.bytes()?;
        if b.len() % 8 != 0 {
            return Err(DecodeError("packed double length"));
        }
        for c in b.chunks_exact(8) {
            let mut a = [0u8; 8];
            a.copy_from_slice(c);
            f(f64::from_bits(u64::from_le_bytes(a)));
        }
        Ok(())
    } else {
        f(rd.f64(wt)?);
        Ok(())
    }
}

/// The occurrences of a singular message field (prost merges repeated occurrences of one; the
/// rare second occurrence is the only allocation).
///
/// The rest are in an `Option`: an empty `Vec` would still cost a call to free on every drop
/// (one per packet and part in wasm32, where that call is not inlined).
#[derive(Default)]
pub(super) struct Parts<'a> {
    first: Option<&'a [u8]>,
    more: Option<Vec<&'a [u8]>>,
}

impl<'a> Parts<'a> {
    fn push(&mut self, b: &'a [u8]) {
        if self.first.is_none() {
            self.first = Some(b);
        } else {
            self.more.get_or_insert_with(Vec::new).push(b);
        }
    }

    pub(super) fn is_some(&self) -> bool {
        self.first.is_some()
    }

    /// Whether there is exactly one occurrence.
    pub(super) fn is_single(&self) -> bool {
        self.first.is_some() && self.more.is_none()
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = &'a [u8]> + '_ {
        self.first
            .into_iter()
            .chain(self.more.iter().flat_map(|m| m.iter().copied()))
    }
}

/// Decodes a cold prost message into `slot`, merging into an earlier occurrence (prost
/// semantics for a repeated occurrence of a singular message field).
fn merge_msg<M: Message + Default>(slot: &mut Option<M>, b: &[u8]) -> R<()> {
    match slot {
        Some(m) => m
            .merge(b)
            .map_err(|_| DecodeError("invalid nested message")),
        None => {
            *slot = Some(M::decode(b).map_err(|_| DecodeError("invalid nested message"))?);
            Ok(())
        }
    }
}

/// The fields of one `TracePacket` the importer reads (tags as in [`TracePacket`]).
///
/// The fields of most packets are inline; the rare ones are in [`PacketCold`], boxed, so that
/// building and dropping a view for every packet touches a few hundred bytes and one pointer
/// for them all.
#[derive(Default)]
pub(super) struct PacketView<'a> {
    pub timestamp: Option<u64>,
    pub timestamp_clock_id: Option<u32>,
    pub trusted_packet_sequence_id: Option<u32>,
    pub sequence_flags: Option<u32>,
    pub incremental_state_cleared: Option<bool>,
    pub previous_packet_dropped: Option<u32>,
    /// `interned_data` = 12, walked by [`InternedView`].
    pub interned_data: Parts<'a>,
    /// `track_event` = 11, validated; read by [`EventView`].
    pub track_event: Option<EventView<'a>>,
    pub compressed_packets: Option<&'a [u8]>,
    pub zstd_compressed_packets: bool,
    /// The rare fields, when the packet has one.
    cold: Option<Box<PacketCold<'a>>>,
}

/// The rare fields of a `TracePacket` (descriptors, clock snapshots, defaults, process trees):
/// decoded with the prost messages of [`super::proto`], merged as prost merges a repeated
/// occurrence of a singular message field.
#[derive(Default)]
pub(super) struct PacketCold<'a> {
    pub trace_packet_defaults: Option<TracePacketDefaults>,
    pub track_descriptor: Option<TrackDescriptor>,
    /// Each `track_descriptor` occurrence (the first pass decodes each on its own).
    pub descriptor_parts: Parts<'a>,
    pub clock_snapshot: Option<ClockSnapshot>,
    /// Each `clock_snapshot` occurrence (the first pass adds each as its own snapshot).
    pub snapshot_parts: Parts<'a>,
    pub process_descriptor: Option<ProcessDescriptor>,
    pub thread_descriptor: Option<ThreadDescriptor>,
    pub process_tree: Option<ProcessTree>,
}

impl<'a> PacketView<'a> {
    /// Walks a `TracePacket` body into `v` (a default view: built in place, as the view is
    /// too large to move for every packet). Errors: as prost would reject it, except that the
    /// event's first debug annotations are not validated ([`EventView::deferred_annotations`]):
    /// on `Ok`, the packet is valid when they are; on `Err`, [`PacketView::first_error`] gives
    /// the error prost would report.
    pub(super) fn parse_into(v: &mut PacketView<'a>, body: &'a [u8]) -> R<()> {
        let mut rd = Rd::new(body);
        let mut ev_parts: Parts<'a> = Parts::default();
        while let Some((num, wt)) = rd.field()? {
            match num {
                8 => v.timestamp = Some(rd.u64(wt)?),
                58 => v.timestamp_clock_id = Some(rd.u32(wt)?),
                10 => v.trusted_packet_sequence_id = Some(rd.u32(wt)?),
                13 => v.sequence_flags = Some(rd.u32(wt)?),
                41 => v.incremental_state_cleared = Some(rd.bool(wt)?),
                42 => v.previous_packet_dropped = Some(rd.u32(wt)?),
                87 => {
                    rd.bool(wt)?;
                }
                12 => {
                    let b = rd.len(wt)?;
                    InternedView::validate(b)?;
                    v.interned_data.push(b);
                }
                59 => merge_msg(&mut v.cold_mut().trace_packet_defaults, rd.len(wt)?)?,
                11 => ev_parts.push(rd.len(wt)?),
                60 => {
                    let b = rd.len(wt)?;
                    let c = v.cold_mut();
                    merge_msg(&mut c.track_descriptor, b)?;
                    c.descriptor_parts.push(b);
                }
                6 => {
                    let b = rd.len(wt)?;
                    let c = v.cold_mut();
                    merge_msg(&mut c.clock_snapshot, b)?;
                    c.snapshot_parts.push(b);
                }
                50 => v.compressed_packets = Some(rd.len(wt)?),
                133 => {
                    rd.len(wt)?;
                    v.zstd_compressed_packets = true;
                }
                43 => merge_msg(&mut v.cold_mut().process_descriptor, rd.len(wt)?)?,
                44 => merge_msg(&mut v.cold_mut().thread_descriptor, rd.len(wt)?)?,
                2 => merge_msg(&mut v.cold_mut().process_tree, rd.len(wt)?)?,
                _ => rd.skip(num, wt)?,
            }
        }
        if ev_parts.is_some() {
            v.track_event
                .insert(EventView::default())
                .parse_into(ev_parts)?;
        }
        Ok(())
    }

    /// The rare fields, allocated at the first one.
    fn cold_mut(&mut self) -> &mut PacketCold<'a> {
        self.cold.get_or_insert_with(Box::default)
    }

    /// The rare fields ([`PacketCold`]; `None` when the packet has none of them).
    pub(super) fn cold(&self) -> Option<&PacketCold<'a>> {
        self.cold.as_deref()
    }

    /// Validates the event's deferred debug annotations
    /// ([`EventView::deferred_annotations`]) as they are, without a cache.
    pub(super) fn validate_deferred(&self) -> R<()> {
        self.track_event
            .as_ref()
            .map_or(Ok(()), |ev| validate_annotations(ev.deferred_annotations()))
    }

    /// The error prost would report for a packet whose walk into `self` failed with `e`: a
    /// deferred annotation's, which came before the field that failed, else `e`.
    pub(super) fn first_error(&self, e: DecodeError) -> DecodeError {
        self.validate_deferred().err().unwrap_or(e)
    }
}

/// The fields of one `TrackEvent` (tags as in [`TrackEvent`]); repeated fields are read from
/// the event bytes on demand ([`EventView::each`]).
#[derive(Default)]
pub(super) struct EventView<'a> {
    parts: Parts<'a>,
    pub r#type: Option<i32>,
    pub track_uuid: Option<u64>,
    pub name_iid: Option<u64>,
    pub name: Option<&'a [u8]>,
    pub n_category_iids: usize,
    pub n_categories: usize,
    /// The first `category_iids` value and the first `categories` text (the common single
    /// category, read without a second walk of the event).
    pub first_category_iid: Option<u64>,
    /// The second `category_iids` value (Chromium's two-category flow events).
    pub second_category_iid: Option<u64>,
    pub first_category: Option<&'a [u8]>,
    pub counter_value: Option<i64>,
    pub double_counter_value: Option<f64>,
    pub n_extra_counter_track_uuids: usize,
    pub n_extra_counter_values: usize,
    /// The first [`INLINE_COUNTER_VALUES`] `extra_counter_values` (12), packed or not (proto2
    /// writers such as Chromium's protozero put each value in a field of its own): read
    /// without a second walk when there are no more.
    extra_counter_values_inline: [u64; INLINE_COUNTER_VALUES],
    pub n_extra_double_counter_track_uuids: usize,
    pub n_extra_double_counter_values: usize,
    pub n_debug_annotations: usize,
    /// The first [`INLINE_ANNOTATIONS`] `debug_annotations`, in wire order (all of them when
    /// `n_debug_annotations` is at most that; else [`EventView::each`] walks them).
    pub annotations: [&'a [u8]; INLINE_ANNOTATIONS],
    pub task_execution: Option<TaskExecution>,
    pub log_message: Option<LogMessage>,
    pub source_location_iid: Option<u64>,
    pub timestamp_delta_us: Option<i64>,
    pub timestamp_absolute_us: Option<i64>,
    pub thread_time_delta_us: Option<i64>,
    pub thread_time_absolute_us: Option<i64>,
    pub thread_instruction_count_delta: Option<i64>,
    pub thread_instruction_count_absolute: Option<i64>,
    /// The rare fields, when the event has one.
    cold: Option<Box<EventCold>>,
}

/// The rare fields of a `TrackEvent`, boxed as [`PacketCold`] is.
#[derive(Default)]
pub(super) struct EventCold {
    pub source_location: Option<SourceLocation>,
    pub legacy_event: Option<LegacyEvent>,
}

/// Debug annotations an [`EventView`] keeps without a second walk.
pub(super) const INLINE_ANNOTATIONS: usize = 6;

/// Unpacked `extra_counter_values` an [`EventView`] keeps without a second walk.
const INLINE_COUNTER_VALUES: usize = 4;

/// One value of a repeated `TrackEvent` field, from [`EventView::each`].
pub(super) enum Rep<'a> {
    U64(u64),
    F64(f64),
    Bytes(&'a [u8]),
}

impl<'a> EventView<'a> {
    /// Walks the occurrences of a `TrackEvent` into a default view `v`.
    fn parse_into(&mut self, parts: Parts<'a>) -> R<()> {
        let v = self;
        for b in parts.iter() {
            let mut rd = Rd::new(b);
            while let Some((num, wt)) = rd.field()? {
                match num {
                    9 => v.r#type = Some(rd.i32(wt)?),
                    11 => v.track_uuid = Some(rd.u64(wt)?),
                    10 => v.name_iid = Some(rd.u64(wt)?),
                    23 => v.name = Some(rd.len(wt)?),
                    3 => {
                        let (n, first, second) = (
                            &mut v.n_category_iids,
                            &mut v.first_category_iid,
                            &mut v.second_category_iid,
                        );
                        each_varint(&mut rd, wt, |x| {
                            if *n == 0 {
                                *first = Some(x);
                            } else if *n == 1 {
                                *second = Some(x);
                            }
                            *n += 1;
                        })?
                    }
                    22 => {
                        let b = rd.len(wt)?;
                        if v.n_categories == 0 {
                            v.first_category = Some(b);
                        }
                        v.n_categories += 1;
                    }
                    30 => v.counter_value = Some(rd.i64(wt)?),
                    44 => v.double_counter_value = Some(rd.f64(wt)?),
                    31 => each_varint(&mut rd, wt, |_| v.n_extra_counter_track_uuids += 1)?,
                    12 => {
                        let (n, inline) = (
                            &mut v.n_extra_counter_values,
                            &mut v.extra_counter_values_inline,
                        );
                        each_varint(&mut rd, wt, |x| {
                            if let Some(slot) = inline.get_mut(*n) {
                                *slot = x;
                            }
                            *n += 1;
                        })?
                    }
                    45 => each_varint(&mut rd, wt, |_| v.n_extra_double_counter_track_uuids += 1)?,
                    46 => each_f64(&mut rd, wt, |_| v.n_extra_double_counter_values += 1)?,
                    4 => {
                        let b = rd.len(wt)?;
                        // The first ones are kept unvalidated: see `deferred_annotations`.
                        match v.annotations.get_mut(v.n_debug_annotations) {
                            Some(slot) => *slot = b,
                            None => validate_annotation(b, 3)?,
                        }
                        v.n_debug_annotations += 1;
                    }
                    5 => merge_msg(&mut v.task_execution, rd.len(wt)?)?,
                    21 => merge_msg(&mut v.log_message, rd.len(wt)?)?,
                    33 => merge_msg(&mut v.cold_mut().source_location, rd.len(wt)?)?,
                    34 => v.source_location_iid = Some(rd.u64(wt)?),
                    6 => merge_msg(&mut v.cold_mut().legacy_event, rd.len(wt)?)?,
                    1 => v.timestamp_delta_us = Some(rd.i64(wt)?),
                    16 => v.timestamp_absolute_us = Some(rd.i64(wt)?),
                    2 => v.thread_time_delta_us = Some(rd.i64(wt)?),
                    17 => v.thread_time_absolute_us = Some(rd.i64(wt)?),
                    8 => v.thread_instruction_count_delta = Some(rd.i64(wt)?),
                    20 => v.thread_instruction_count_absolute = Some(rd.i64(wt)?),
                    _ => rd.skip(num, wt)?,
                }
            }
        }
        v.parts = parts;
        Ok(())
    }

    /// The rare fields, allocated at the first one.
    fn cold_mut(&mut self) -> &mut EventCold {
        self.cold.get_or_insert_with(Box::default)
    }

    /// `source_location` (33), when the event has one.
    pub(super) fn source_location(&self) -> Option<&SourceLocation> {
        self.cold.as_ref()?.source_location.as_ref()
    }

    /// `legacy_event` (6), when the event has one.
    pub(super) fn legacy_event(&self) -> Option<&LegacyEvent> {
        self.cold.as_ref()?.legacy_event.as_ref()
    }

    /// The debug annotations [`EventView::parse_into`] kept without validating them: the first
    /// [`INLINE_ANNOTATIONS`] (those past them it validates). The packet is valid, as prost
    /// would read it, only when each of these is ([`validate_annotations`]); the caller may
    /// skip that for bytes it validated before.
    pub(super) fn deferred_annotations(&self) -> &[&'a [u8]] {
        &self.annotations[..self.n_debug_annotations.min(INLINE_ANNOTATIONS)]
    }

    /// Calls `f` for each value of repeated field `num` (3, 22, 31, 12, 45, 46 or 4), in
    /// wire order. The event was validated by [`EventView::parse_into`] and
    /// [`validate_annotations`].
    pub(super) fn each(&self, num: u32, mut f: impl FnMut(Rep<'a>)) {
        for b in self.parts.iter() {
            let mut rd = Rd::new(b);
            while let Ok(Some((n, wt))) = rd.field() {
                if n != num {
                    if rd.skip(n, wt).is_err() {
                        return;
                    }
                    continue;
                }
                let ok = match num {
                    46 => each_f64(&mut rd, wt, |x| f(Rep::F64(x))),
                    4 | 22 => rd.len(wt).map(|b| f(Rep::Bytes(b))),
                    _ => each_varint(&mut rd, wt, |x| f(Rep::U64(x))),
                };
                if ok.is_err() {
                    return;
                }
            }
        }
    }

    /// Calls `f` for each `extra_counter_values` (12) value in wire order, as
    /// `each(12, …)` does, without walking the event again when there are at most
    /// [`INLINE_COUNTER_VALUES`].
    pub(super) fn extra_counter_values(&self, mut f: impl FnMut(u64)) {
        match self
            .extra_counter_values_inline
            .get(..self.n_extra_counter_values)
        {
            Some(inline) => inline.iter().for_each(|&x| f(x)),
            None => self.each(12, |r| {
                if let Rep::U64(x) = r {
                    f(x)
                }
            }),
        }
    }

    /// The values of a repeated varint field, collected (cold fields only).
    pub(super) fn u64s(&self, num: u32) -> Vec<u64> {
        let mut out = Vec::new();
        self.each(num, |r| {
            if let Rep::U64(x) = r {
                out.push(x)
            }
        });
        out
    }
}

/// Validates debug annotations of a `TrackEvent` in a `TracePacket` (message depth 3), in
/// order: the first error, as prost would report it.
pub(super) fn validate_annotations(annotations: &[&[u8]]) -> R<()> {
    annotations
        .iter()
        .try_for_each(|b| validate_annotation(b, 3))
}

/// Validates a `DebugAnnotation` (wire types of the declared fields, nested messages), at
/// message depth `depth`.
fn validate_annotation(b: &[u8], depth: u32) -> R<()> {
    if depth > RECURSION_LIMIT {
        return Err(DecodeError("recursion limit reached"));
    }
    let mut rd = Rd::new(b);
    while let Some((num, wt)) = rd.field()? {
        match num {
            1 | 3 | 7 | 17 => {
                rd.u64(wt)?;
            }
            2 => {
                rd.bool(wt)?;
            }
            4 => {
                rd.i64(wt)?;
            }
            5 => {
                rd.f64(wt)?;
            }
            6 | 9 | 10 => {
                rd.len(wt)?;
            }
            8 => validate_nested(rd.len(wt)?, depth + 1)?,
            11 | 12 => validate_annotation(rd.len(wt)?, depth + 1)?,
            _ => rd.skip(num, wt)?,
        }
    }
    Ok(())
}

/// Validates a `NestedValue` at message depth `depth`.
fn validate_nested(b: &[u8], depth: u32) -> R<()> {
    if depth > RECURSION_LIMIT {
        return Err(DecodeError("recursion limit reached"));
    }
    let mut rd = Rd::new(b);
    while let Some((num, wt)) = rd.field()? {
        match num {
            1 => {
                rd.i32(wt)?;
            }
            5 => {
                rd.i64(wt)?;
            }
            6 => {
                rd.f64(wt)?;
            }
            7 => {
                rd.bool(wt)?;
            }
            2 | 8 => {
                rd.len(wt)?;
            }
            3 | 4 => validate_nested(rd.len(wt)?, depth + 1)?,
            _ => rd.skip(num, wt)?,
        }
    }
    Ok(())
}

/// A flat `DebugAnnotation` (tags as in [`DebugAnnotation`]); `complex` when it has a nested
/// value, dict entries or array values (then the importer decodes it with prost).
#[derive(Default)]
pub(super) struct AnnView<'a> {
    pub name_iid: Option<u64>,
    pub name: Option<&'a [u8]>,
    pub bool_value: Option<bool>,
    pub uint_value: Option<u64>,
    pub int_value: Option<i64>,
    pub double_value: Option<f64>,
    pub string_value: Option<&'a [u8]>,
    pub string_value_iid: Option<u64>,
    pub pointer_value: Option<u64>,
    pub legacy_json_value: Option<&'a [u8]>,
    /// It has a nested value, dict entries or array values.
    pub complex: bool,
    /// Occurrences of `nested_value` (8), `dict_entries` (11) and `array_values` (12).
    pub n_nested: usize,
    pub n_dict: usize,
    pub n_array: usize,
}

impl AnnView<'_> {
    /// True when a leaf value field is set (it wins over nested values, as in the importer's
    /// reading of a decoded annotation).
    pub(super) fn has_leaf(&self) -> bool {
        self.bool_value.is_some()
            || self.uint_value.is_some()
            || self.int_value.is_some()
            || self.double_value.is_some()
            || self.string_value.is_some()
            || self.string_value_iid.is_some()
            || self.pointer_value.is_some()
            || self.legacy_json_value.is_some()
    }
}

/// Calls `f` with the bytes of each occurrence of length-delimited field `num` of a validated
/// message, in wire order.
pub(super) fn each_len<'a>(b: &'a [u8], num: u32, mut f: impl FnMut(&'a [u8])) {
    let mut rd = Rd::new(b);
    while let Ok(Some((n, wt))) = rd.field() {
        if n == num && wt == LEN {
            match rd.bytes() {
                Ok(v) => f(v),
                Err(_) => return,
            }
        } else if rd.skip(n, wt).is_err() {
            return;
        }
    }
}

/// The next occurrence of length-delimited field `num` from `rd` on (a validated message).
fn next_len<'a>(rd: &mut Rd<'a>, num: u32) -> Option<&'a [u8]> {
    while let Ok(Some((n, wt))) = rd.field() {
        if n == num && wt == LEN {
            return rd.bytes().ok();
        }
        rd.skip(n, wt).ok()?;
    }
    None
}

/// The first `m` pairs of a validated message's length-delimited fields `a` and `b` (the i-th
/// occurrence of `a` with the i-th of `b`), as `f(a, b)`; fewer when either runs out. Writers
/// put each pair's two fields side by side (a `NestedValue`'s dict keys and values), so one
/// walk pairs them; where they do not, the pairs from the first unpaired repeat on are found by
/// a walk for each field.
pub(super) fn each_pair<'a>(
    msg: &'a [u8],
    (a, b): (u32, u32),
    m: usize,
    mut f: impl FnMut(&'a [u8], &'a [u8]),
) {
    let mut rd = Rd::new(msg);
    let mut pending: Option<(u32, &'a [u8])> = None;
    let mut done = 0usize;
    while done < m {
        let Ok(Some((n, wt))) = rd.field() else {
            return;
        };
        if (n == a || n == b) && wt == LEN {
            let Ok(x) = rd.bytes() else { return };
            match pending.take() {
                None => pending = Some((n, x)),
                Some((p, y)) if p != n => {
                    if p == a {
                        f(y, x)
                    } else {
                        f(x, y)
                    }
                    done += 1;
                }
                // Two of one field in a row: pair the rest by field.
                Some(_) => break,
            }
        } else if rd.skip(n, wt).is_err() {
            return;
        }
    }
    if done == m {
        return;
    }
    let (mut ra, mut rb) = (Rd::new(msg), Rd::new(msg));
    for i in 0..m {
        let (Some(x), Some(y)) = (next_len(&mut ra, a), next_len(&mut rb, b)) else {
            return;
        };
        if i >= done {
            f(x, y);
        }
    }
}

/// The fields of a validated `NestedValue` (tags as in [`NestedValue`]; scalars: the last
/// occurrence, as prost decodes them).
#[derive(Default)]
pub(super) struct NestedView<'a> {
    pub nested_type: Option<i32>,
    pub n_dict_keys: usize,
    pub n_dict_values: usize,
    pub n_array_values: usize,
    pub int_value: Option<i64>,
    pub double_value: Option<f64>,
    pub bool_value: Option<bool>,
    pub string_value: Option<&'a [u8]>,
}

impl<'a> NestedView<'a> {
    /// Reads a validated `NestedValue`'s top-level fields.
    pub(super) fn parse(b: &'a [u8]) -> NestedView<'a> {
        let mut v = NestedView::default();
        let mut rd = Rd::new(b);
        let r: R<()> = (|| {
            while let Some((num, wt)) = rd.field()? {
                match num {
                    1 => v.nested_type = Some(rd.i32(wt)?),
                    2 => {
                        rd.len(wt)?;
                        v.n_dict_keys += 1;
                    }
                    3 => {
                        rd.len(wt)?;
                        v.n_dict_values += 1;
                    }
                    4 => {
                        rd.len(wt)?;
                        v.n_array_values += 1;
                    }
                    5 => v.int_value = Some(rd.i64(wt)?),
                    6 => v.double_value = Some(rd.f64(wt)?),
                    7 => v.bool_value = Some(rd.bool(wt)?),
                    8 => v.string_value = Some(rd.len(wt)?),
                    _ => rd.skip(num, wt)?,
                }
            }
            Ok(())
        })();
        debug_assert!(r.is_ok());
        v
    }
}

impl<'a> AnnView<'a> {
    /// Reads a validated annotation's top-level fields.
    pub(super) fn parse(b: &'a [u8]) -> AnnView<'a> {
        let mut v = AnnView::default();
        let mut rd = Rd::new(b);
        let r: R<()> = (|| {
            while let Some((num, wt)) = rd.field()? {
                match num {
                    1 => v.name_iid = Some(rd.u64(wt)?),
                    10 => v.name = Some(rd.len(wt)?),
                    2 => v.bool_value = Some(rd.bool(wt)?),
                    3 => v.uint_value = Some(rd.u64(wt)?),
                    4 => v.int_value = Some(rd.i64(wt)?),
                    5 => v.double_value = Some(rd.f64(wt)?),
                    6 => v.string_value = Some(rd.len(wt)?),
                    17 => v.string_value_iid = Some(rd.u64(wt)?),
                    7 => v.pointer_value = Some(rd.u64(wt)?),
                    9 => v.legacy_json_value = Some(rd.len(wt)?),
                    8 => {
                        rd.len(wt)?;
                        v.complex = true;
                        v.n_nested += 1;
                    }
                    11 => {
                        rd.len(wt)?;
                        v.complex = true;
                        v.n_dict += 1;
                    }
                    12 => {
                        rd.len(wt)?;
                        v.complex = true;
                        v.n_array += 1;
                    }
                    _ => rd.skip(num, wt)?,
                }
            }
            Ok(())
        })();
        debug_assert!(r.is_ok());
        v
    }
}

/// Which interning table an `InternedData` entry belongs to.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Table {
    EventCategories,
    EventNames,
    AnnotationNames,
    AnnotationStrings,
    LogBodies,
}

/// One entry of an `InternedData` message.
pub(super) enum Interned<'a> {
    /// `{iid = 1, name = 2}` of a name table.
    Name {
        table: Table,
        iid: Option<u64>,
        name: Option<&'a [u8]>,
    },
    /// `source_locations` = 4, decoded with prost (its strings are few).
    Location(&'a [u8]),
}

/// Walks `InternedData`.
pub(super) struct InternedView;

impl InternedView {
    fn table(num: u32) -> Option<Table> {
        Some(match num {
            1 => Table::EventCategories,
            2 => Table::EventNames,
            3 => Table::AnnotationNames,
            29 => Table::AnnotationStrings,
            20 => Table::LogBodies,
            _ => return None,
        })
    }

    fn name_entry(b: &[u8]) -> R<(Option<u64>, Option<&[u8]>)> {
        let mut rd = Rd::new(b);
        let (mut iid, mut name) = (None, None);
        while let Some((num, wt)) = rd.field()? {
            match num {
                1 => iid = Some(rd.u64(wt)?),
                2 => name = Some(rd.len(wt)?),
                _ => rd.skip(num, wt)?,
            }
        }
        Ok((iid, name))
    }

    fn validate(b: &[u8]) -> R<()> {
        let mut rd = Rd::new(b);
        while let Some((num, wt)) = rd.field()? {
            if Self::table(num).is_some() {
                Self::name_entry(rd.len(wt)?)?;
            } else if num == 4 {
                SourceLocation::decode(rd.len(wt)?)
                    .map_err(|_| DecodeError("invalid nested message"))?;
            } else {
                rd.skip(num, wt)?;
            }
        }
        Ok(())
    }

    /// Calls `f` for each entry of a validated `InternedData`, grouped by table (event names,
    /// categories, annotation names, annotation strings, log bodies, then source locations;
    /// wire order within a table), so strings are interned in a fixed order.
    pub(super) fn each<'a>(b: &'a [u8], mut f: impl FnMut(Interned<'a>)) {
        const ORDER: [u32; 5] = [2, 1, 3, 29, 20];
        for want in ORDER.into_iter().map(Some).chain([None]) {
            let mut rd = Rd::new(b);
            while let Ok(Some((num, wt))) = rd.field() {
                let Ok(body) = (if wt == LEN {
                    rd.bytes()
                } else {
                    rd.skip(num, wt).map(|_| &b[..0])
                }) else {
                    return;
                };
                if wt != LEN {
                    continue;
                }
                match want {
                    Some(w) if w == num => {
                        if let (Some(table), Ok((iid, name))) =
                            (Self::table(num), Self::name_entry(body))
                        {
                            f(Interned::Name { table, iid, name });
                        }
                    }
                    None if num == 4 => f(Interned::Location(body)),
                    _ => {}
                }
            }
        }
    }
}
