#!/usr/bin/env python3
"""Splits an uncompressed Perfetto trace into N files by incremental-state segment.

The ceiling of importing one trace on several cores (issue #9, docs/benchmarks.md, "Perfetto
native ≥ 5× upb", session 31): a *segment* is the run of a packet sequence's track-event packets
between two packets that clear its incremental state (`SEQ_INCREMENTAL_STATE_CLEARED`), so each
segment can be read without the others' interned data. Segments are dealt to N parts, largest
first, each to the part with the fewest bytes so far; every packet without a track event
(descriptors, clock snapshots, metadata) goes to every part. Importing the parts at once, each in
its own process, then times an ideal split: no merge of the parts' models and no shared state.

Usage: split_sequences.py TRACE.pb OUT_PREFIX [N]   (writes OUT_PREFIX0.pb … OUT_PREFIX{N-1}.pb)
Needs the `perfetto` package (the peer venv of README "Command line", `bench`). The rounds of
session 31: tools/bench/split_ceiling.sh.
"""

import collections
import sys

from leb128 import varint
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

SEQ_INCREMENTAL_STATE_CLEARED = 1


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    path, prefix = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) == 4 else 2
    data = open(path, "rb").read()
    generation = collections.Counter()
    records = []  # (segment or None, start, end) of each top-level packet record
    segment_bytes = collections.Counter()
    shared = 0
    i = 0
    while i < len(data):
        start = i
        tag, i = varint(data, i)
        if tag != 0x0A:
            sys.exit(f"{path}: byte {start}: not a packet record (tag {tag:#x})")
        size, i = varint(data, i)
        packet = pb.TracePacket.FromString(data[i : i + size])
        i += size
        seq = packet.trusted_packet_sequence_id
        if packet.sequence_flags & SEQ_INCREMENTAL_STATE_CLEARED:
            generation[seq] += 1
        if packet.HasField("track_event"):
            segment = (seq, generation[seq])
            segment_bytes[segment] += i - start
        else:
            segment = None
            shared += i - start
        records.append((segment, start, i))
    parts = [set() for _ in range(n)]
    totals = [0] * n
    for segment, size in sorted(segment_bytes.items(), key=lambda kv: -kv[1]):
        k = totals.index(min(totals))
        parts[k].add(segment)
        totals[k] += size
    for k in range(n):
        with open(f"{prefix}{k}.pb", "wb") as out:
            for segment, start, end in records:
                if segment is None or segment in parts[k]:
                    out.write(data[start:end])
    print(
        f"{len(segment_bytes)} segments; track-event bytes per part {totals}; "
        f"{shared} bytes of other packets in every part"
    )


if __name__ == "__main__":
    main()
