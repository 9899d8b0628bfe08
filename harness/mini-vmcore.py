#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""mini-vmcore.py [--line=TEXT] OUT COPY...: a kernel crash dump, as
/proc/vmcore has it, that holds the hardware trace recorder's COPY files
(per_cpu/cpuN/trace), the Nth of CPU N: an x86-64 ELF core with a
VMCOREINFO note whose HWTRACE=<table>,<nr> line says where they are, and
one PT_LOAD of physical memory with the table and the copies.  No kernel
text: perf reads the code from vmlinux as built.  --line replaces the
HWTRACE= line (empty: none).  For make fuzz-perf's seeds and garbled dumps
made from them (harness/fuzz-perf-cases/)."""
import argparse
import struct

PHYS = 0x100000                 # where the segment starts
DIRECT_MAP = 0xffff888000000000  # x86-64's PAGE_OFFSET, without KASLR


def align(n, to):
    return (n + to - 1) // to * to


def memory(copies):
    """The table of the copies' addresses, then the copies, 8-aligned."""
    mem = bytearray(8 * len(copies))
    for cpu, copy in enumerate(copies):
        struct.pack_into("<Q", mem, 8 * cpu, PHYS + len(mem))
        mem += copy + bytes(align(len(copy), 8) - len(copy))
    return bytes(mem)


def note(name, desc):
    name = name.encode() + b"\0"
    return (struct.pack("<III", len(name), len(desc), 0) +
            name + bytes(align(len(name), 4) - len(name)) +
            desc + bytes(align(len(desc), 4) - len(desc)))


def vmcore(line, mem):
    info = note("VMCOREINFO", b"OSRELEASE=6.1.0\n" + line)
    ehdr_size, phdr_size = 64, 56
    notes_at = ehdr_size + 2 * phdr_size
    load_at = align(notes_at + len(info), 4096)
    ehdr = struct.pack("<16sHHIQQQIHHHHHH",
                       b"\x7fELF\x02\x01\x01" + bytes(9),
                       4, 62, 1, 0, ehdr_size, 0, 0,    # ET_CORE, EM_X86_64
                       ehdr_size, phdr_size, 2, 0, 0, 0)
    phdrs = struct.pack("<IIQQQQQQ", 4, 0, notes_at, 0, 0,    # PT_NOTE
                        len(info), len(info), 0)
    phdrs += struct.pack("<IIQQQQQQ", 1, 7, load_at,          # PT_LOAD, RWX
                         DIRECT_MAP + PHYS, PHYS, len(mem), len(mem), 0)
    head = ehdr + phdrs + info
    return head + bytes(load_at - len(head)) + mem


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--line")
    parser.add_argument("out")
    parser.add_argument("copies", nargs="+")
    args = parser.parse_args()
    copies = []
    for path in args.copies:
        with open(path, "rb") as f:
            copies.append(f.read())
    if args.line is None:
        line = b"HWTRACE=%x,%u\n" % (PHYS, len(copies))
    else:
        line = args.line.encode() + (b"\n" if args.line else b"")
    with open(args.out, "wb") as f:
        f.write(vmcore(line, memory(copies)))


main()
