#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""aux_stream.py [--gaps] OUT < perf report -D of a perf record -A recording

Lays the trace of every AUX sample with a position (struct
perf_aux_sample_position: stream, offset, size, then the trace at the end
of the sample) at its offset in its stream, and checks that samples agree
byte for byte wherever they overlap.  Writes the one stream to OUT, prints
what it found, and exits 1 if there is not exactly one stream, if samples
disagree, or if any byte between the stream's start and its end is
missing (a gap is trace that no sample holds, or a position that is
wrong by a lap of the hidden buffer), unless --gaps says samples are too
rare to hold all of the stream.
"""
import re
import struct
import sys

RAW = re.compile(r'^\. \.\.\. raw event: size (\d+) bytes')
ROW = re.compile(r'^\.\s+([0-9a-f]{4}):\s+(.*)$')
POS = struct.Struct('<QQQ')


def events(lines):
    """(type, raw bytes) of each event perf -D dumped."""
    size, raw = 0, bytearray()
    for line in lines:
        m = RAW.match(line)
        if m:
            size, raw = int(m.group(1)), bytearray()
            continue
        m = ROW.match(line)
        if m and size:
            n = min(16, size - int(m.group(1), 16))
            raw += bytes(int(t, 16) for t in m.group(2).split()[:n])
            if len(raw) == size:
                yield struct.unpack_from('<I', raw)[0], bytes(raw)
                size = 0


def aux_field(raw):
    """The AUX field of a sample: it ends the record, after its u64 size."""
    for off in range(8, len(raw) - 8, 8):
        (n,) = struct.unpack_from('<Q', raw, off)
        if n >= POS.size and off + 8 + n == len(raw):
            return raw[off + 8:]
    return None


def main():
    streams = {}
    samples = 0
    for typ, raw in events(sys.stdin):
        field = aux_field(raw) if typ == 9 else None	# PERF_RECORD_SAMPLE
        if field is None:
            continue
        stream, offset, size = POS.unpack_from(field)
        if size > len(field) - POS.size:
            print(f'sample {samples}: {size} bytes of trace in a field of {len(field)}')
            return 1
        samples += 1
        if size:
            streams.setdefault(stream, []).append(
                (offset, field[len(field) - size:]))

    if len(streams) != 1:
        print(f'{samples} samples, {len(streams)} streams with trace; want 1')
        return 1
    pieces = sorted(next(iter(streams.values())), key=lambda p: p[0])
    start = pieces[0][0]
    data = bytearray()
    overlap = gaps = 0
    for offset, trace in pieces:
        have = start + len(data)
        if offset > have:
            gaps += offset - have
            data += bytes(offset - have)
            have = offset
        common = min(have - offset, len(trace))
        old = data[offset - start:offset - start + common]
        if old != trace[:common]:
            bad = next(i for i in range(common) if old[i] != trace[i])
            print(f'samples disagree at stream offset {offset + bad}')
            return 1
        overlap += common
        data += trace[common:]
    with open(sys.argv[-1], 'wb') as f:
        f.write(data)
    print(f'{samples} samples, stream bytes {start} to {start + len(data)}, '
          f'{overlap} overlapping and equal, {gaps} missing')
    return 1 if gaps and sys.argv[1] != '--gaps' else 0


sys.exit(main())
