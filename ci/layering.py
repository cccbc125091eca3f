#!/usr/bin/env python3
"""The house's layering (README.md "folders", each folder's README "May include"), checked from
the code's own #include lines: a folder's non-test sources include only folders at or below it,
and inside reference/ and audit/ a subfolder only the subfolders listed before it. Include circles
between folders are impossible under such an order. Tests (*_test.*, tests/, directed/, fuzz/,
testdata/) may include upward: they drive the code under test with what sits above it.

Usage: layering.py ROOT        prints each violation (file -> include) and exits 1 if any
       layering.py --self-test a tree with one upward include must fail, a clean one pass
"""
import os
import re
import sys
import tempfile

# Bottom first. tools/ and properties/ are both top: nothing includes either.
FOLDERS = ["numerics", "reference", "device", "simulator", "adapters", "golden", "audit", "properties", "tools"]
SUBFOLDERS = {
    "reference": ["common", "attention", "decode"],
    "audit": ["output", "run", "cases", "lint", "golden", "compare", "mutants", "decode", "report", ""],
}
# Programs, not libraries, that may include above their folder (each says why in its README).
ALLOWED = {("simulator/bench.cpp", "adapters/kernel_adapter.hpp")}  # the benchmark times the peers
TEST = re.compile(r"(_test\.|/tests/|/directed/|/fuzz/|/testdata/)")
SOURCE = (".cpp", ".hpp", ".h", ".hip")


def rank(path):
    """(folder index, subfolder index) of a repository path, or None outside the layered folders."""
    parts = path.split("/")
    if parts[0] not in FOLDERS:
        return None
    sub = SUBFOLDERS.get(parts[0])
    if sub is None:
        return (FOLDERS.index(parts[0]), 0)
    name = parts[1] if len(parts) > 2 else ""
    return (FOLDERS.index(parts[0]), sub.index(name) if name in sub else len(sub))


def violations(root):
    found = []
    for top in FOLDERS:
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                path = os.path.relpath(os.path.join(d, f), root)
                if not f.endswith(SOURCE) or TEST.search("/" + path):
                    continue
                me = rank(path)
                with open(os.path.join(root, path), encoding="utf-8", errors="replace") as src:
                    includes = re.findall(r'^\s*#\s*include\s+"([^"]+)"', src.read(), re.M)
                for inc in includes:
                    them = rank(inc)
                    if them is None or (path, inc) in ALLOWED:
                        continue
                    # Within one folder without subfolders any include goes; else the order decides.
                    if them > me and not (them[0] == me[0] and FOLDERS[me[0]] not in SUBFOLDERS):
                        found.append(f"{path} -> {inc}")
    return sorted(found)


def self_test():
    with tempfile.TemporaryDirectory() as t:
        def write(p, text):
            os.makedirs(os.path.dirname(os.path.join(t, p)), exist_ok=True)
            with open(os.path.join(t, p), "w") as f:
                f.write(text)
        write("numerics/a.hpp", "#pragma once\n")
        write("reference/common/b.hpp", '#include "numerics/a.hpp"\n')
        write("reference/decode/c.cpp", '#include "reference/common/b.hpp"\n')
        write("audit/report/d.cpp", '#include "audit/cases/e.hpp"\n')
        write("audit/cases/e.hpp", "#pragma once\n")
        write("audit/cases/e_test.cpp", '#include "audit/report/d.hpp"\n')  # a test may
        if violations(t):
            print("self-test: a clean tree reported", violations(t))
            return 1
        write("reference/common/bad.cpp", '#include "reference/decode/c.hpp"\n')
        write("numerics/bad.cpp", '#include "audit/cases/e.hpp"\n')
        got = violations(t)
        want = ["numerics/bad.cpp -> audit/cases/e.hpp", "reference/common/bad.cpp -> reference/decode/c.hpp"]
        if got != want:
            print("self-test: expected", want, "got", got)
            return 1
    print("self-test: ok (a clean tree passes, two upward includes are named)")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) != 2:
        print(__doc__.strip().split("\n\n")[-1])
        return 2
    bad = violations(argv[1])
    for b in bad:
        print("upward include:", b)
    layers = " < ".join(FOLDERS)
    print(f"layering: {len(bad)} upward include(s) in the non-test sources ({layers})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
