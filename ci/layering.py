#!/usr/bin/env python3
"""The house's layering, checked from the code's own #include lines: each folder's non-test
sources include only what its README's "May include" line allows (MAY_INCLUDE below, the same
lists), and inside reference/ and audit/ a subfolder only the subfolders its README allows
(reference/attention and reference/decode: common/ only, never each other; audit/: the
subfolders listed above it in audit/README.md's table). Every allowed folder lies below the
including one, so no include circle between folders can form. Tests (*_test.*, tests/,
directed/, fuzz/, testdata/) may include more: they drive the code under test with what sits
above it.

Usage: layering.py ROOT        prints each violation (file -> include) and exits 1 if any
       layering.py --self-test planted violations must be named, a clean tree must pass
"""
import os
import re
import sys
import tempfile

LOW = ["numerics", "reference", "device", "simulator", "adapters", "golden", "audit"]
MAY_INCLUDE = {  # each folder's README.md, "May include"
    "numerics": set(),
    "reference": {"numerics"},
    "device": {"reference", "numerics"},
    "simulator": {"device", "numerics"},
    "adapters": {"simulator", "device", "reference", "numerics"},
    "golden": {"reference", "numerics"},
    "audit": {"golden", "adapters", "simulator", "device", "reference", "numerics"},
    "properties": set(LOW),
    "tools": set(LOW),
}
SUB_MAY_INCLUDE = {
    "reference": {"common": set(), "attention": {"common"}, "decode": {"common"}},
    # audit/README.md's table, top down: each subfolder may include those above it.
    "audit": {s: set(order[:i]) for order in [["output", "run", "cases", "lint", "golden", "compare", "mutants",
                                               "decode", "report", ""]] for i, s in enumerate(order)},
}
# Programs, not libraries, that include more than their folder may (each says why in its README).
EXEMPT = {"simulator/bench.cpp"}  # the simulator's benchmark times the peer kernels through adapters/
TEST = re.compile(r"(_test\.|/tests/|/directed/|/fuzz/|/testdata/)")
SOURCE = (".cpp", ".hpp", ".h", ".hip")


def subfolder(path):
    parts = path.split("/")
    return parts[1] if len(parts) > 2 else ""


def allowed(path, inc):
    me, them = path.split("/")[0], inc.split("/")[0]
    if them not in MAY_INCLUDE:
        return True  # not a layered folder (a system header spelled with quotes, say)
    if me != them:
        return them in MAY_INCLUDE[me]
    subs = SUB_MAY_INCLUDE.get(me)
    if subs is None:
        return True
    a, b = subfolder(path), subfolder(inc)
    return a == b or b in subs.get(a, set())


def violations(root):
    found = []
    for top in MAY_INCLUDE:
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                path = os.path.relpath(os.path.join(d, f), root)
                if not f.endswith(SOURCE) or TEST.search("/" + path) or path in EXEMPT:
                    continue
                with open(os.path.join(root, path), encoding="utf-8", errors="replace") as src:
                    includes = re.findall(r'^\s*#\s*include\s+"([^"]+)"', src.read(), re.M)
                found += [f"{path} -> {inc}" for inc in includes if not allowed(path, inc)]
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
        write("golden/g.cpp", '#include "reference/decode/c.hpp"\n')
        write("audit/report/d.cpp", '#include "audit/cases/e.hpp"\n#include "golden/g.hpp"\n')
        write("audit/cases/e.hpp", "#pragma once\n")
        write("audit/cases/e_test.cpp", '#include "audit/report/d.hpp"\n')  # a test may
        if violations(t):
            print("self-test: a clean tree reported", violations(t))
            return 1
        write("reference/decode/bad.cpp", '#include "reference/attention/x.hpp"\n')  # subjects apart
        write("golden/bad.cpp", '#include "simulator/x.hpp"\n')                      # below, not allowed
        write("numerics/bad.cpp", '#include "audit/cases/e.hpp"\n')                  # above
        write("audit/cases/bad.cpp", '#include "audit/report/d.hpp"\n')              # a later subfolder
        got = violations(t)
        want = ["audit/cases/bad.cpp -> audit/report/d.hpp", "golden/bad.cpp -> simulator/x.hpp",
                "numerics/bad.cpp -> audit/cases/e.hpp", "reference/decode/bad.cpp -> reference/attention/x.hpp"]
        if got != want:
            print("self-test: expected", want, "got", got)
            return 1
    print("self-test: ok (a clean tree passes, four planted includes are named)")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) != 2:
        print(__doc__.strip().split("\n\n")[-1])
        return 2
    bad = violations(argv[1])
    for b in bad:
        print("not allowed:", b)
    print(f"layering: {len(bad)} include(s) outside a folder's \"May include\" in the non-test sources")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
