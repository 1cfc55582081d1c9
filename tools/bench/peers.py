"""Peer decoders for `trialscope bench --peers` (issue #9, point 6).

Usage: python peers.py KIND FILE RUNS   (KIND = perfetto | json)

Reads FILE, inflates gzip/zlib outside the timed region, then times the peer on the
decompressed bytes, best of RUNS:
  perfetto: protobuf's upb backend decoding the real schema, `Trace.FromString(data)`, with
            the `perfetto` PyPI package's `perfetto_trace_pb2` (every TracePacket field the
            schema declares is decoded, not skipped);
  json:     `json.loads(data)`.
Prints one JSON object: seconds (best), median_seconds, decompressed_bytes, items (packets or
top-level events), peak_rss_bytes (ru_maxrss of this process), backend.
"""
import gzip
import json
import resource
import sys
import time
import zlib


def inflate(raw):
    if raw[:2] == b"\x1f\x8b":
        return gzip.decompress(raw)
    if len(raw) >= 2 and raw[0] & 0x0F == 8 and (raw[0] << 8 | raw[1]) % 31 == 0:
        return zlib.decompress(raw)
    return raw


def main():
    kind, path, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with open(path, "rb") as f:
        data = inflate(f.read())
    times = []
    items = 0
    backend = "python"
    if kind == "perfetto":
        from google.protobuf.internal import api_implementation
        from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

        backend = "protobuf-" + api_implementation.Type()
        for _ in range(runs):
            t0 = time.perf_counter()
            trace = pb.Trace.FromString(data)
            times.append(time.perf_counter() - t0)
            items = len(trace.packet)
            del trace
    else:
        for _ in range(runs):
            t0 = time.perf_counter()
            doc = json.loads(data)
            times.append(time.perf_counter() - t0)
            events = doc.get("traceEvents", []) if isinstance(doc, dict) else doc
            items = len(events)
            del doc, events
        backend = "json.loads"
    times.sort()
    print(json.dumps({
        "seconds": times[0],
        "median_seconds": times[len(times) // 2],
        "decompressed_bytes": len(data),
        "items": items,
        "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
        "backend": backend,
    }))


if __name__ == "__main__":
    main()
