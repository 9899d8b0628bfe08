#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""flowcmp.py DECODED EXECLOG CPU LO HI: does the instruction flow that
libipt decoded from one CPU's trace (ptdecode -e) match what QEMU logged
executing on that CPU (-d exec,nochain: a "Trace CPU: ... [cs_base/pc/
flags/cflags]" line each time a translation block starts to run, and
"Stopped execution of TB chain before ..." after one that ran no
instruction), in user mode between LO and HI?

They match if the blocks can be laid on the flow in order so that:
- every place where the flow does not go on to the next instruction (a
  branch, or the trace going on elsewhere) is where a block starts;
- a block starts at an instruction that follows the one before it only
  where QEMU ends a block there: after a branch not taken, where the
  trace was enabled again (an interrupt or exception came first), after
  POPF or PAUSE, at and after a REP string instruction, at an
  instruction that ends on another page than the block began, or 512
  instructions into the block;
- a block starts again where the last one started, with no instruction
  between, only once where the trace was enabled again (its first
  instruction faulted) or at a REP string instruction (QEMU runs each
  iteration as a block);
- a block that starts where an interrupt or exception disabled the trace
  before its first instruction (an exception on that instruction, and
  another task ran before the retry) ran nothing, and is dropped: once
  there.
So the flow takes each branch the CPU took and no other.  Prints the
counts, or where the two part, and exits 1."""
import re
import sys

REP_STRING = {0x6c, 0x6d, 0x6e, 0x6f, 0xa4, 0xa5, 0xa6, 0xa7, 0xaa, 0xab,
              0xac, 0xad, 0xae, 0xaf}
PREFIXES = {0x26, 0x2e, 0x36, 0x3e, 0x64, 0x65, 0x66, 0x67, 0xf0, 0xf2, 0xf3}


MAX_INSNS = 512             # TCG_MAX_INSNS
PAGE_SHIFT = 12             # target/i386: a block stays on its first page


def opcode(raw):
    """The opcode byte of @raw after its prefixes, and whether one of
    them was REP."""
    i, rep = 0, False
    while i < len(raw) - 1 and (raw[i] in PREFIXES or 0x40 <= raw[i] <= 0x4f):
        rep |= raw[i] in (0xf2, 0xf3)
        i += 1
    return raw[i], rep


class Insn:
    def __init__(self, word, resumed):
        raw = bytes.fromhex(word[1])
        self.ip, self.size, self.resumed = int(word[0], 16), len(raw), resumed
        self.stopped_at = None
        op, rep = opcode(raw)
        self.rep = rep and op in REP_STRING
        # branches, POPF, PAUSE (REP NOP) and REP string ops end a block
        self.ends_block = (word[2:] == ['branch'] or op == 0x9d or
                           (rep and op == 0x90) or self.rep)


def decoded(path):
    """The flow; an instruction is resumed if the trace was enabled again
    at it, and has stopped_at if an interrupt or exception disabled the
    trace after it, at that IP."""
    flow, resumed = [], False
    for line in open(path):
        word = line.split()
        if word[:2] == ['disabled', 'at'] and flow:
            flow[-1].stopped_at = int(word[2], 16)
        elif word[0] == 'enabled':
            resumed = True
        elif word[0] == 'overflow':
            sys.exit('the trace overflowed')
        elif word[0] != 'disabled':
            flow.append(Insn(word, resumed))
            resumed = False
    return flow


def executed(path, cpu, lo, hi):
    """The pcs of the user-mode blocks run on @cpu between @lo and @hi,
    less those stopped before their first instruction."""
    trace = re.compile(r'^Trace (\d+): (\S+) \[[0-9a-f]+/([0-9a-f]+)/([0-9a-f]+)/')
    stopped = re.compile(r'^Stopped execution of TB chain before (\S+) ')
    pcs, last = [], None
    for line in open(path, errors='replace'):
        m = trace.match(line)
        if m and int(m[1]) == cpu and int(m[4], 16) & 3 == 3:
            pc = int(m[3], 16)
            if lo <= pc < hi:
                pcs.append(pc)
                last = m[2]
            continue
        m = stopped.match(line)
        if m and m[1] == last:
            pcs.pop()
        last = None
    return pcs


def jumps_to(flow, k):
    return k == 0 or flow[k - 1].ip + flow[k - 1].size != flow[k].ip


def may_split(flow, j, k):
    """May QEMU start a block at @k, which follows the instruction before
    it, after one that started at @j?"""
    end = flow[k].ip + flow[k].size - 1
    return (flow[k].resumed or flow[k].rep or flow[k - 1].ends_block or
            k - j >= MAX_INSNS or end >> PAGE_SHIFT != flow[j].ip >> PAGE_SHIFT)


def starts(flow, j, again, dropped, pc):
    """Where in the flow the block after one laid at @j (@again: which
    may start again; @dropped: a block that ran nothing was dropped
    there) can start at @pc: (position, whether a block may start there
    again, whether one was dropped there), likeliest first."""
    found = []
    k = j + 1
    while k < len(flow):
        jump = jumps_to(flow, k)
        if flow[k].ip == pc and (jump or may_split(flow, j, k)):
            found.append((k, flow[k].resumed, False))
        if jump and k > max(j, 0):
            break
        k += 1
    if k > 0 and flow[k - 1].stopped_at == pc and not dropped:
        found.append((k - 1, False, True))
    found.reverse()         # a loop's next round before a split block
    if j >= 0 and flow[j].ip == pc and (again or flow[j].rep):
        found.append((j, False, False))
    return found


def compare(flow, pcs):
    """None if @pcs lay on @flow, else where they part."""
    stack, seen, best = [(0, -1, False, False)], set(), (0, -1)
    while stack:
        n, j, again, dropped = stack.pop()
        if (n, j, again, dropped) in seen:
            continue
        seen.add((n, j, again, dropped))
        best = max(best, (n, j))
        if n == len(pcs):
            if all(not jumps_to(flow, k) for k in range(j + 1, len(flow))):
                return None
            continue
        for k, may, drop in reversed(starts(flow, j, again, dropped, pcs[n])):
            stack.append((n + 1, k, may, drop))
    n, j = best
    return ('block %d of %d at %x cannot follow instruction %d of %d (%x)' %
            (n, len(pcs), pcs[n] if n < len(pcs) else 0, j, len(flow),
             flow[j].ip if j >= 0 else 0))


def main():
    flow = decoded(sys.argv[1])
    pcs = executed(sys.argv[2], int(sys.argv[3]), int(sys.argv[4], 16),
                   int(sys.argv[5], 16))
    error = compare(flow, pcs) if pcs else 'no block ran'
    print('cpu %s: %d instructions decoded, %d blocks run' %
          (sys.argv[3], len(flow), len(pcs)))
    if error:
        print(error)
        sys.exit(1)


main()
