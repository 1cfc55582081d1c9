"""LEB128 (protobuf varint, wasm unsigned integer) decoding for the bench scripts."""


def varint(b, i):
    """The unsigned LEB128 integer at b[i] and the index after it."""
    v, shift = 0, 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return v, i
