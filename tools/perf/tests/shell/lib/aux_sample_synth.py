#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write a perf.data file as 'perf record -A intel_pt' would, from a raw
Intel PT stream: a sampler event whose samples each carry the newest
--size bytes of the stream of a hidden intel_pt event, after a struct
perf_aux_sample_position that says where those bytes sit in the stream.

The stream is cut into samples that end every --stride bytes (and at its
end), or at the offsets --ends lists (as real samples end where the
hardware stopped: on packet boundaries).  Each sample holds the --size bytes
before its end.  With --size >= --stride nothing is lost; with --size >
--stride the samples overlap.  --gap G makes the stream the trace, G bytes of PAD that no
sample holds, and the trace again: perf must report exactly G bytes lost.
--repeat N makes the stream the trace N times over.  --new-streams puts
each sample in a stream of its own, as no recording has: a made-up file.
--threads puts each sample in a stream of its own too, but of a thread of
its own that exits after it, as many short-lived threads have.

The code the trace runs over (--bin) is mapped, read-only and executable,
at --org in the traced process, under its absolute path: perf reads the
instruction bytes from the file at the mapped offset, ELF or not.
"""

import argparse
import os
import struct

# struct perf_event_attr, PERF_ATTR_SIZE_VER9 (patched uapi header)
ATTR_SIZE = 152
PERF_TYPE_SOFTWARE = 1
PERF_COUNT_SW_CPU_CLOCK = 0
INTEL_PT_PMU_TYPE = 8           # any number that is not a fixed PMU type

# attr.sample_type bits
S_IP, S_TID, S_TIME, S_CPU, S_PERIOD = 1 << 0, 1 << 1, 1 << 2, 1 << 7, 1 << 8
S_IDENTIFIER, S_AUX = 1 << 16, 1 << 20
SAMPLE_TYPE = S_IDENTIFIER | S_IP | S_TID | S_TIME | S_CPU | S_PERIOD | S_AUX

# attr flag bits
A_DISABLED, A_EXCL_KERNEL, A_EXCL_HV = 1 << 0, 1 << 5, 1 << 6
A_SAMPLE_ID_ALL, A_MMAP2 = 1 << 18, 1 << 23
A_MMAP, A_COMM = 1 << 8, 1 << 9

PERF_AUX_SAMPLE_POSITION = 0x01

# intel_pt PMU format bits (/sys/bus/event_source/devices/intel_pt/format)
PT_CFG_PT = 1 << 0              # pass-through: config is RTIT_CTL bits
PT_CFG_CYC = 1 << 1
PT_CFG_MTC = 1 << 9
PT_CFG_TSC = 1 << 10
PT_CFG_NORETCOMP = 1 << 11
PT_CFG_BRANCH = 1 << 13
PT_CFG_MTC_PERIOD = 0xf << 14
# No TSC: perf decodes without timestamps, so only the order counts.
PT_CONFIG = PT_CFG_PT | PT_CFG_BRANCH

# record types
R_COMM, R_EXIT, R_SAMPLE, R_MMAP2 = 3, 4, 9, 10
R_FINISHED_ROUND, R_AUXTRACE_INFO = 68, 70
MISC_USER = 2
PERF_AUXTRACE_INTEL_PT = 1

# header features
HEADER_CPUID = 9
HEADER_PMU_MAPPINGS = 16

SAMPLE_ID = 1001                # the sampler's event id
STREAM_ID = 7                   # the hidden event's id (the stream)
PID = TID = 4242
CPU = 0


def pad8(b):
    return b + bytes(-len(b) % 8)


def record(rtype, misc, body):
    assert len(body) % 8 == 0
    return struct.pack('<IHH', rtype, misc, 8 + len(body)) + body


def id_sample(time, tid=TID):
    """sample_id_all trailer: TID, TIME, CPU, IDENTIFIER."""
    return struct.pack('<IIQIIQ', PID, tid, time, CPU, 0, SAMPLE_ID)


def sampler_attr():
    flags = (A_DISABLED | A_EXCL_KERNEL | A_EXCL_HV | A_SAMPLE_ID_ALL |
             A_MMAP | A_COMM | A_MMAP2)
    return struct.pack(
        '<IIQQQQQIIQQQQIiQIHHIIQQIIQ',
        PERF_TYPE_SOFTWARE, ATTR_SIZE, PERF_COUNT_SW_CPU_CLOCK,
        1000000,                # sample_period
        SAMPLE_TYPE, 0, flags,
        0, 0,                   # wakeup_events, bp_type
        0, 0, 0, 0,             # config1, config2, branch_sample_type, regs
        0, 0,                   # sample_stack_user, clockid
        0,                      # sample_regs_intr
        0, 0, 0,                # aux_watermark, sample_max_stack, reserved
        0, 0,                   # aux_sample_size (set below), reserved
        0, 0,                   # sig_data, config3
        INTEL_PT_PMU_TYPE, PERF_AUX_SAMPLE_POSITION, PT_CONFIG)


def auxtrace_info(filt):
    """Intel PT's AUXTRACE_INFO, with an address filter string if any."""
    fbytes = pad8(filt.encode() + b'\0') if filt else b''
    priv = [
        INTEL_PT_PMU_TYPE,
        0, 1, 0,                # time_shift, time_mult, time_zero
        0,                      # cap_user_time_zero
        PT_CFG_TSC, PT_CFG_NORETCOMP,
        0, 0, 0,                # have_sched_switch, snapshot, per_cpu_mmaps
        PT_CFG_MTC, PT_CFG_MTC_PERIOD,
        0, 0,                   # tsc_ctc_ratio n, d
        PT_CFG_CYC,
        0,                      # max_non_turbo_ratio
        len(filt),              # filter string length
    ]
    body = struct.pack('<II', PERF_AUXTRACE_INTEL_PT, 0)
    body += struct.pack('<%dQ' % len(priv), *priv) + fbytes
    body += struct.pack('<Q', 0)                        # cap event_trace
    return record(R_AUXTRACE_INFO, 0, body)


def comm(name, time):
    body = struct.pack('<II', PID, TID) + pad8(name.encode() + b'\0')
    return record(R_COMM, 0, body + id_sample(time))


def mmap2(path, start, length, time):
    body = struct.pack('<IIQQQIIQQII', PID, TID, start, length, 0,
                       0, 0, 0, 0,      # maj, min, ino, ino_generation
                       5, 2)            # PROT_READ|PROT_EXEC, MAP_PRIVATE
    body += pad8(path.encode() + b'\0')
    return record(R_MMAP2, MISC_USER, body + id_sample(time))


def exit_(tid, time):
    body = struct.pack('<IIIIQ', PID, PID, tid, tid, time)
    return record(R_EXIT, 0, body + id_sample(time, tid))


def sample(ip, time, stream, offset, trace, tid=TID, period=1):
    """A sample with the kernel's AUX layout: position, padding, trace.
    Period 0 for the one the kernel takes at the task's exit."""
    hdr = struct.pack('<QQQ', stream, offset, len(trace))
    aux = hdr + bytes(-(len(hdr) + len(trace)) % 8) + trace
    body = struct.pack('<QQIIQIIQQ', SAMPLE_ID, ip, PID, tid, time,
                       CPU, 0, period, len(aux)) + aux
    return record(R_SAMPLE, MISC_USER, body)


def cuts(seg_start, seg_end, size, stride):
    """(offset, length) of samples ending every stride bytes in a segment."""
    out = []
    end = seg_start
    while end < seg_end:
        end = min(end + stride, seg_end)
        start = max(seg_start, end - size)
        out.append((start, end - start))
    return out


def ends_cuts(ends, size, length):
    """(offset, length) of samples ending at each of ends."""
    out, prev = [], 0
    for end in ends:
        if not prev < end <= length:
            raise ValueError('end %#x: not after %#x and within the %#x '
                             'bytes' % (end, prev, length))
        start = max(0, end - size)
        if start > prev:
            raise ValueError('end %#x: bytes %#x..%#x would be in no sample'
                             % (end, prev, start))
        out.append((start, end - start))
        prev = end
    if prev != length:
        raise ValueError('the last end must be the stream\'s end, %#x' % length)
    return out


def header_string(s):
    b = pad8(s.encode() + b'\0')
    return struct.pack('<I', len(b)) + b


def features(cpuid):
    feats = {HEADER_PMU_MAPPINGS:
             struct.pack('<II', 1, INTEL_PT_PMU_TYPE) +
             header_string('intel_pt')}
    if cpuid:
        feats[HEADER_CPUID] = header_string(cpuid)
    return feats


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--pt', required=True, help='raw Intel PT stream')
    ap.add_argument('--bin', required=True, help='code image')
    ap.add_argument('--org', required=True, type=lambda s: int(s, 0),
                    help='load address of the code image')
    ap.add_argument('--size', type=int, default=16,
                    help='trace bytes per sample (the newest ones)')
    ap.add_argument('--stride', type=int, default=7,
                    help='stream bytes between the ends of two samples')
    ap.add_argument('--ends', default='',
                    help='comma-separated offsets where samples end '
                    '(instead of --stride)')
    ap.add_argument('--gap', type=int, default=0,
                    help='repeat the trace after this many unsampled bytes')
    ap.add_argument('--cpuid', default='',
                    help='HEADER_CPUID, e.g. GenuineIntel,6,92,9')
    ap.add_argument('--filter', default='',
                    help='address filter as perf record --filter takes it')
    ap.add_argument('--repeat', type=int, default=1,
                    help='the stream is the trace this many times over')
    ap.add_argument('--new-streams', action='store_true',
                    help='(made-up file) each sample in a new stream')
    ap.add_argument('--threads', action='store_true',
                    help='each sample in the stream of a new thread')
    ap.add_argument('--no-exit', action='store_true',
                    help='the last sample is not the one the kernel takes '
                    'at the task\'s exit')
    ap.add_argument('--misplace', type=int, default=-1, metavar='N',
                    help='(test the test) say sample N starts 1 byte later')
    ap.add_argument('-o', '--output', required=True)
    args = ap.parse_args()
    if args.size < 1 or args.stride < 1 or args.gap < 0 or args.repeat < 1:
        ap.error('--size, --stride and --repeat must be positive, '
                 '--gap not negative')
    if args.ends and args.gap:
        ap.error('--ends and --gap do not go together')

    with open(args.pt, 'rb') as f:
        trace = f.read() * args.repeat
    path = os.path.abspath(args.bin)
    code_len = os.path.getsize(path)

    stream = trace
    if args.ends:
        try:
            ends = [int(e, 0) for e in args.ends.split(',')]
            pieces = ends_cuts(ends, args.size, len(trace))
        except ValueError as e:
            ap.error('--ends: %s' % e)
    else:
        pieces = cuts(0, len(trace), args.size, args.stride)
    if args.gap:
        second = len(trace) + args.gap
        stream = trace + bytes(args.gap) + trace
        pieces += cuts(second, len(stream), args.size, args.stride)

    data = bytearray(auxtrace_info(args.filter))
    data += comm(os.path.basename(args.pt), 1)
    data += mmap2(path, args.org, code_len, 2)
    data += record(R_FINISHED_ROUND, 0, b'')
    for i, (off, n) in enumerate(pieces):
        at = off + 1 if i == args.misplace else off
        new = args.new_streams or args.threads
        sid = STREAM_ID + i if new else STREAM_ID
        tid = TID + 1 + i if args.threads else TID
        # A stream's last sample is its task's exit's
        last = new or (i == len(pieces) - 1 and not args.no_exit)
        data += sample(args.org, 100 + i, sid, at, stream[off:off + n], tid,
                       0 if last else 1)
        if args.threads:
            data += exit_(tid, 100 + i)
        data += record(R_FINISHED_ROUND, 0, b'')

    attr = bytearray(sampler_attr())
    struct.pack_into('<I', attr, 112, args.size)        # aux_sample_size
    assert len(attr) == ATTR_SIZE

    hdr_size = 104
    ids_off = hdr_size
    attrs_off = ids_off + 8
    attr_size = ATTR_SIZE + 16
    data_off = attrs_off + attr_size
    feats = features(args.cpuid)
    feat_bits = 0
    for bit in feats:
        feat_bits |= 1 << bit
    # The feature sections follow the data, then their contents.
    sec_off = data_off + len(data)
    body_off = sec_off + 16 * len(feats)
    sections, bodies = b'', b''
    for bit in sorted(feats):
        sections += struct.pack('<QQ', body_off + len(bodies), len(feats[bit]))
        bodies += feats[bit]

    out = b'PERFILE2' + struct.pack('<QQ', hdr_size, attr_size)
    out += struct.pack('<QQ', attrs_off, attr_size)     # attrs
    out += struct.pack('<QQ', data_off, len(data))      # data
    out += struct.pack('<QQ', 0, 0)                     # event_types
    out += feat_bits.to_bytes(32, 'little')
    assert len(out) == hdr_size
    out += struct.pack('<Q', SAMPLE_ID)                 # the sampler's ids
    out += bytes(attr) + struct.pack('<QQ', ids_off, 8)
    out += data + sections + bodies

    with open(args.output, 'wb') as f:
        f.write(out)


if __name__ == '__main__':
    main()
