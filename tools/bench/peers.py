"""Peer decoders for `trialscope bench --peers` (issue #9, point 6).

Usage: python peers.py KIND FILE RUNS   (KIND = perfetto | json | hta)

Reads FILE, inflates gzip/zlib outside the timed region, then times the peer on the
decompressed bytes, best of RUNS:
  perfetto: protobuf's upb backend decoding the real schema, `Trace.FromString(data)`, with
            the `perfetto` PyPI package's `perfetto_trace_pb2` (every TracePacket field the
            schema declares is decoded, not skipped);
  json:     `json.loads(data)`;
  hta:      HolisticTraceAnalysis' own parser, `parse_trace_dataframe(FILE, ParserConfig())`
            (its default JSON backend: the whole file into a pandas DataFrame, args columns
            and the symbol table included). HTA reads the file itself (gunzip included in the
            time for `.gz`); exits with status 3 when HTA is not installed.
Prints one JSON object: seconds (best, wall), median_seconds, cpu_seconds (user + system of
the best run), decompressed_bytes, items (packets, top-level events or HTA's rows),
peak_rss_bytes (ru_maxrss of this process), backend.
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


def decompressed_size(path):
    """Bytes of the file after gzip (by HTA's rule: a `.gz` name), read in chunks."""
    size = 0
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        while True:
            chunk = f.read(1 << 20)
            if not chunk:
                return size
            size += len(chunk)


def report(times, size, items, backend):
    """Prints the result object (best and median of `times`, (wall, CPU) pairs)."""
    times.sort()
    print(json.dumps({
        "seconds": times[0][0],
        "median_seconds": times[len(times) // 2][0],
        "cpu_seconds": times[0][1],
        "decompressed_bytes": size,
        "items": items,
        "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
        "backend": backend,
    }))


def main():
    kind, path, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    times = []
    items = 0
    backend = "python"
    if kind == "hta":
        try:
            import logging

            from hta.common.trace_parser import parse_trace_dataframe
            from hta.configs.parser_config import ParserConfig
            from hta.version import __version_tuple__ as hta_version
        except ImportError as e:
            print(f"HolisticTraceAnalysis is not installed: {e}", file=sys.stderr)
            sys.exit(3)
        logging.disable(logging.WARNING)
        size = decompressed_size(path)  # streamed: the peak stays HTA's own
        backend = "hta-" + ".".join(map(str, hta_version))
        for _ in range(runs):
            t0, c0 = time.perf_counter(), time.process_time()
            _meta, df, _symbols = parse_trace_dataframe(path, ParserConfig())
            times.append((time.perf_counter() - t0, time.process_time() - c0))
            items = len(df)
            del df
        report(times, size, items, backend)
        return
    with open(path, "rb") as f:
        data = inflate(f.read())
    if kind == "perfetto":
        try:
            from google.protobuf.internal import api_implementation
            from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb
        except ImportError as e:
            print(
                f"the upb peer needs protobuf and perfetto ({e}): python3 -m venv "
                "target/peervenv && target/peervenv/bin/pip install protobuf perfetto",
                file=sys.stderr,
            )
            sys.exit(3)

        backend = "protobuf-" + api_implementation.Type()
        for _ in range(runs):
            t0, c0 = time.perf_counter(), time.process_time()
            trace = pb.Trace.FromString(data)
            times.append((time.perf_counter() - t0, time.process_time() - c0))
            items = len(trace.packet)
            del trace
    else:
        for _ in range(runs):
            t0, c0 = time.perf_counter(), time.process_time()
            doc = json.loads(data)
            times.append((time.perf_counter() - t0, time.process_time() - c0))
            events = doc.get("traceEvents", []) if isinstance(doc, dict) else doc
            items = len(events)
            del doc, events
        backend = "json.loads"
    report(times, len(data), items, backend)


if __name__ == "__main__":
    main()
