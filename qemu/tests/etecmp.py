#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""etecmp.py [--prefix] DECODE EXEC_LOG SYMBOLS EXCEPTIONS [LO HI]: does OpenCSD's decode of the
emulated ETE's trace (trc_pkt_lister -decode_only output) give the
instructions QEMU executed, in order?

EXEC_LOG is QEMU's -singlestep -d exec,nochain,int log (one block per
instruction, and the exceptions taken), SYMBOLS nm's output for ete.elf.  The instructions executed
from traced_begin (or past collection_on, where there is one) up to
traced_end (or, given LO HI, those of them at
addresses in [LO, HI) by symbol: the EL0 code, when only EL0 is traced)
must be the decoded ones, in order, but for instructions after the last
P0 element (a branch, ISB, WFx) before traced_end, which nothing in the
trace commits: at most 2 of them.  With --prefix (a buffer that filled),
the decoded instructions need only be the first of those, at least 1000.  The exceptions decoded must be
EXCEPTIONS, their types comma-separated, each where QEMU took it (a
call's preferred return address is past its SVC, an interrupt's where it
came, a fault's at the instruction that faulted)."""
import re
import sys

RANGE = re.compile(r'INSTR_RANGE\(exec range=0x([0-9a-f]+):\[0x([0-9a-f]+)\] '
                   r'num_i\((\d+)\)')
EXCEPTION = re.compile(r'EXCEPTION\(pref ret addr:0x([0-9a-f]+); '
                       r'excep num \((0x[0-9a-f]+)\)')
TRACE = re.compile(r'^Trace \d+: \S+ \[[0-9a-f]+/([0-9a-f]+)/')
ELR = re.compile(r'^\.\.\.with ELR 0x([0-9a-f]+)')
REWOUND = re.compile(r'^cpu_io_recompile: rewound execution of TB to '
                     r'([0-9a-f]+)')


def decoded(path):
    """The decoded instruction addresses, the exceptions, the errors."""
    insns, excs, errors = [], [], []
    for line in open(path):
        m = RANGE.search(line)
        if m:
            start, end, n = int(m[1], 16), int(m[2], 16), int(m[3])
            addrs = list(range(start, end, 4))
            if len(addrs) != n:
                errors.append('range of %d, num_i %d: %s' %
                              (len(addrs), n, line.strip()))
            insns += addrs
            continue
        m = EXCEPTION.search(line)
        if m:
            excs.append((int(m[1], 16), int(m[2], 16)))
            continue
        if 'ADDR_NACC' in line or 'ERR' in line:
            errors.append(line.strip())
    return insns, excs, errors


def executed(path, syms, lo, hi):
    """What QEMU ran, and the instructions that faulted (their exception's
    ELR is the instruction itself: they never completed).  Under icount,
    a block that did I/O before its end is rewound and run again: the
    first run did not complete."""
    pcs, faulted = [], set()
    for line in open(path):
        m = TRACE.match(line)
        if m:
            pcs.append(int(m[1], 16))
        m = REWOUND.match(line)
        if m and pcs and int(m[1], 16) == pcs[-1]:
            pcs.pop()
        m = ELR.match(line)
        if m and pcs and int(m[1], 16) == pcs[-1]:
            faulted.add(pcs.pop())
    if 'collection_on' in syms:
        begin = pcs.index(syms['collection_on']) + 1
    else:
        begin = pcs.index(syms['traced_begin'])
    end = pcs.index(syms['traced_end'], begin)
    return [pc for pc in pcs[begin:end] if lo <= pc < hi], faulted


def taken_where_decoded(ret, num, executed_pcs, faulted):
    """A call returns past its SVC, an interrupt to where it came, a
    fault to the instruction that faulted."""
    if num == 0x2:
        return ret - 4 in executed_pcs
    if num in (0xe, 0xf):
        return ret in executed_pcs
    return ret in faulted


def main():
    args = sys.argv[1:]
    prefix = args[0] == '--prefix'
    if prefix:
        args = args[1:]
    dec, log, symfile, want_excs = args[:4]
    syms = {}
    for line in open(symfile):
        f = line.split()
        if len(f) == 3:
            syms[f[2]] = int(f[0], 16)
    lo, hi = 0, 1 << 64
    if len(args) > 5:
        lo, hi = syms[args[4]], syms[args[5]]
    insns, excs, errors = decoded(dec)
    want, faulted = executed(log, syms, lo, hi)
    print('decoded %d instructions, %d exceptions; QEMU executed %d' %
          (len(insns), len(excs), len(want)))
    for e in errors:
        print('decoder: ' + e)
    ok = not errors and len(insns) > 0
    for i, (got, exp) in enumerate(zip(insns, want)):
        if got != exp:
            print('instruction %d: decoded 0x%x, executed 0x%x' % (i, got, exp))
            ok = False
            break
    if prefix:
        if len(insns) < 1000:
            print('decoded only %d' % len(insns))
            ok = False
    elif len(insns) > len(want) or len(want) - len(insns) > 2:
        print('decoded %d of %d' % (len(insns), len(want)))
        ok = False
    for ret, num in excs:
        print('exception 0x%x, preferred return address 0x%x' % (num, ret))
        if not taken_where_decoded(ret, num, want, faulted):
            print('...which no instruction raised')
            ok = False
    if [num for _, num in excs] != [int(t, 0) for t in want_excs.split(',')
                                    if t]:
        print('exceptions wanted: ' + want_excs)
        ok = False
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
