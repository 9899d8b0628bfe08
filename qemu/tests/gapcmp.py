#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""gapcmp.py [--whole] [--cs-etm] FULL SAMPLED: is the flow that perf
script --itrace=be -F event,ip,addr printed from -A samples (SAMPLED) the
one it printed from a full trace of the same run (FULL), but for gaps,
each where it reports lost trace?

The full trace must have no error.  The samples' flow, cut into pieces at
each "Lost trace data" error event (any other error fails), must lay on
the full trace's in order, each piece as a run of it, so that:
- a piece with no loss before it goes on where the one before it ended
  (the first: where the full trace starts);
- a piece after a loss leaves out at least one branch, but for the
  first, whose loss may be of packets before the program's first branch.
Branches to or from address 0 (the trace's disables and enables around
interrupts, which fall where they may) are left out of both.  With
--cs-etm, perf's ETE decoding: it shows the last branch before an
exception as a branch into it and one out of it, X => 0 then 0 => Y;
such a pair counts as the branch X => Y, or as none when Y is the
instruction after X (arm64: 4 bytes on), so that the flow is the same
wherever the interrupts fell.  A pair that opens a piece after a loss is
where the decoder took up the trace again, and counts for nothing.  The
program must not repeat a piece's flow elsewhere (lfsr.S): each piece is
laid where it first fits.

--whole: the samples must also reach the full trace's last branch (the
trace up to the program's exit is in them), or a loss be reported after
their last branch; else the end counts as a gap that no loss reports.
Prints the counts, or where the two part, and exits 1."""
import sys


def pieces(path, allow_loss, cs_etm):
    """[(loss_before, branches)] of perf script output at PATH, and a last
    (True, []) if a loss is reported after the last branch."""
    out = [[False, []]]
    into = None     # X of the last X => 0, with --cs-etm
    lost = False    # a loss since the last branch
    for line in open(path):
        if 'error' in line:
            if not allow_loss or 'Lost trace data' not in line:
                sys.exit(f'{path}: {line.strip()}')
            if out[-1][1]:
                out.append([True, []])
            else:
                out[-1][0] = True
            into, lost = None, True
            continue
        f = line.split()
        if len(f) < 4 or not f[0].startswith('branches'):
            continue
        src, dst = int(f[1], 16), int(f[3], 16)
        if src and dst:
            out[-1][1].append((f[1], f[3]))
        elif not src and into and dst != int(into, 16) + 4:
            out[-1][1].append((into, f[3]))
        into = f[1] if cs_etm and src and not dst and not lost else None
        lost = False
    return [p for p in out[:-1] if p[1]] + [out[-1]]


def main():
    opts = [a for a in sys.argv[1:] if a.startswith('--')]
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    if len(args) != 2 or set(opts) - {'--whole', '--cs-etm'}:
        sys.exit(__doc__)
    cs_etm = '--cs-etm' in opts
    (_, full), = pieces(args[0], False, cs_etm)
    sampled = pieces(args[1], True, cs_etm)
    tail_lost = sampled[-1][0] and not sampled[-1][1]
    sampled = [p for p in sampled if p[1]]
    # One character per distinct branch: str.find lays the pieces.
    code = {}
    def text(branches):
        return ''.join(chr(code.setdefault(b, len(code))) for b in branches)
    flow = text(full)
    at = gaps = laid = 0
    for n, (lost, branches) in enumerate(sampled):
        i = flow.find(text(branches), at)
        where = f'piece {n} ({len(branches)} branches, from {branches[0]})'
        if i < 0:
            sys.exit(f'{where} is not in the full trace after its branch {at}')
        if not lost and i != at:
            sys.exit(f'{where} leaves out branches {at} to {i - 1}, and no loss is reported')
        if lost and i == at and n:
            sys.exit(f'{where}: a loss is reported, and the piece goes on at branch {at}')
        gaps += i != at
        laid += len(branches)
        at = i + len(branches)
    if '--whole' in opts and at != len(full) and not tail_lost:
        sys.exit(f'the samples end at branch {at} of {len(full)}, and no loss'
                 ' is reported after it')
    print(f'{n + 1} pieces, {laid} of the full trace\'s first {at} branches'
          f' ({len(full)} in all), {gaps} gaps, each at a reported loss'
          + (', the rest reported lost' if at != len(full) and tail_lost else ''))


main()
