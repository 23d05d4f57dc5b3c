#!/usr/bin/env python3
"""Counts the instructions that matter in each kernel of a CUDA binary's SASS.

Usage: sasscount.py BINARY   (runs cuobjdump --dump-sass; cuobjdump and nvdisasm on PATH)
One line per kernel: loads (LDG), shuffles (SHFL), ldmatrix (LDSM), shared stores (STS),
mma (HMMA), selects (SEL), local memory (LDL/STL), barriers (BAR), cp.async (LDGSTS),
bit operations (LOP3, PRMT) and f16x2 arithmetic (HADD2, HMUL2, HFMA2), and the total.
"""
import re
import subprocess
import sys

OPS = ["LDG", "SHFL", "LDSM", "LDS", "STS", "LD", "ST", "HMMA", "SEL", "LDL", "STL", "BAR", "LDGSTS",
       "LOP3", "PRMT", "HADD2", "HMUL2", "HFMA2", "UCGABAR_ARV"]


def main():
    out = subprocess.run(["cuobjdump", "--dump-sass", sys.argv[1]], capture_output=True, text=True,
                         check=True).stdout
    kernels, name, cnt = [], None, {}
    for line in out.splitlines():
        m = re.search(r"Function : (\S+)", line)
        if m:
            if name:
                kernels.append((name, cnt))
            name = subprocess.run(["c++filt", m.group(1)], capture_output=True,
                                  text=True).stdout.strip().split("(")[0]
            cnt = {}
            continue
        m = re.match(r"\s+/\*[0-9a-f]{4}\*/\s+(@!?U?P\w+\s+)?([A-Z0-9_]+)", line)
        if m and name:
            cnt[m.group(2)] = cnt.get(m.group(2), 0) + 1
            cnt["total"] = cnt.get("total", 0) + 1
    if name:
        kernels.append((name, cnt))
    print("%-44s %s  total" % ("kernel", " ".join("%6s" % o for o in OPS)))
    for name, cnt in sorted(kernels):
        print("%-44s %s  %5d" % (name[:44], " ".join("%6d" % cnt.get(o, 0) for o in OPS),
                                  cnt.get("total", 0)))


if __name__ == "__main__":
    main()
