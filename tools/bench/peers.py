"""Peer decoders for `trialscope bench --peers` (issue #9, point 6).

Usage: python peers.py KIND FILE RUNS [CHUNK_MB]   (KIND = perfetto | json | hta)

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
With CHUNK_MB (perfetto and json), the same bytes are decoded in pieces of about CHUNK_MB, so
that the peer's memory stays bounded on a 1 GB trace (upb holds ~16× a generated trace whole):
  perfetto: the trace cut between top-level fields (whole packets), each piece
            `Trace.FromString(piece)` (a Trace is its repeated packets, so the pieces decode to
            the same packets);
  json:     the `traceEvents` array cut between its elements, each piece `json.loads("[" +
            piece + "]")`, and the document around the array `json.loads` with the array empty.
  The cuts are found before the timed runs (not timed); each piece's result is dropped before
  the next is decoded. backend then ends in "/chunked N MB".
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


def perfetto_pieces(data, chunk):
    """(start, end) byte ranges of `data`, a Trace, each whole top-level fields of >= `chunk`
    bytes (the last may be shorter)."""
    pieces, start, i, n = [], 0, 0, len(data)

    def varint(i):
        shift = value = 0
        while True:
            b = data[i]
            i += 1
            value |= (b & 0x7F) << shift
            if b < 0x80:
                return value, i
            shift += 7

    while i < n:
        key, i = varint(i)
        wire = key & 7
        if wire == 0:
            _, i = varint(i)
        elif wire == 1:
            i += 8
        elif wire == 2:
            length, i = varint(i)
            i += length
        elif wire == 5:
            i += 4
        else:
            raise ValueError(f"wire type {wire} at byte {i}: not a Trace")
        if i - start >= chunk:
            pieces.append((start, i))
            start = i
    if start < n:
        pieces.append((start, n))
    return pieces


def json_pieces(data, chunk):
    """The `traceEvents` array of `data` (a JSON object trace, or a JSON array of events) cut
    between its elements: (pieces, around) where pieces are (start, end) byte ranges of whole
    elements, >= `chunk` bytes each but the last, and around the document with the array
    emptied (None for an array trace)."""
    text = data.decode("latin-1")  # one char per byte: indices are byte offsets
    dec = json.JSONDecoder()
    ws = " \t\n\r"

    def skip(i):
        while i < len(text) and text[i] in ws:
            i += 1
        return i

    def elements(i):
        """Element ranges of the array opening at text[i]; returns (ranges, index of ']')."""
        ranges, i = [], skip(i + 1)
        if text[i] == "]":
            return ranges, i
        while True:
            _, end = dec.raw_decode(text, i)
            ranges.append((i, end))
            i = skip(end)
            if text[i] == "]":
                return ranges, i
            i = skip(i + 1)  # the comma

    i = skip(0)
    if text[i] == "[":
        ranges, close = elements(i)
        opening = None
    else:
        i = skip(i + 1)
        while True:
            key, i = dec.raw_decode(text, i)
            i = skip(skip(i) + 1)  # the colon
            if key == "traceEvents" and text[i] == "[":
                opening = i
                ranges, close = elements(i)
                break
            _, i = dec.raw_decode(text, i)
            i = skip(i)
            if text[i] == "}":
                raise ValueError("no traceEvents array")
            i = skip(i + 1)
    del text
    pieces, start = [], None
    for a, b in ranges:
        if start is None:
            start = a
        if b - start >= chunk:
            pieces.append((start, b))
            start = None
    if start is not None:
        pieces.append((start, ranges[-1][1]))
    around = None if opening is None else data[:opening + 1] + data[close:]
    return pieces, around


def main():
    kind, path, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    chunk = int(float(sys.argv[4]) * 1e6) if len(sys.argv) > 4 else None
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
        pieces = perfetto_pieces(data, chunk) if chunk else [(0, len(data))]
        view = memoryview(data)
        for _ in range(runs):
            items = 0
            t0, c0 = time.perf_counter(), time.process_time()
            for a, b in pieces:
                trace = pb.Trace.FromString(view[a:b] if chunk else data)
                items += len(trace.packet)
                del trace
            times.append((time.perf_counter() - t0, time.process_time() - c0))
    elif chunk:
        pieces, around = json_pieces(data, chunk)
        for _ in range(runs):
            items = 0
            t0, c0 = time.perf_counter(), time.process_time()
            for a, b in pieces:
                events = json.loads(b"[" + data[a:b] + b"]")
                items += len(events)
                del events
            if around is not None:
                doc = json.loads(around)
                del doc
            times.append((time.perf_counter() - t0, time.process_time() - c0))
        backend = "json.loads"
    else:
        for _ in range(runs):
            t0, c0 = time.perf_counter(), time.process_time()
            doc = json.loads(data)
            times.append((time.perf_counter() - t0, time.process_time() - c0))
            events = doc.get("traceEvents", []) if isinstance(doc, dict) else doc
            items = len(events)
            del doc, events
        backend = "json.loads"
    if chunk:
        backend += f"/chunked {chunk / 1e6:g} MB"
    report(times, len(data), items, backend)


if __name__ == "__main__":
    main()
