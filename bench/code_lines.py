#!/usr/bin/env python3
"""Lines of non-test Rust code per crate: non-blank lines that are not only a
comment, in src/ of each crate, stopping at a file's `#[cfg(test)]` module
(tests live at the bottom of each file) and leaving out tests/, benches and fuzz.

Usage: python3 bench/code_lines.py [ROOT]   (ROOT defaults to the repository)
"""
import os
import sys

CRATES = {"evalpage-core": "crates/core/src", "evalpage-cli": "crates/cli/src", "evalpage-web": "src"}


def count(path):
    n = 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            s = line.strip()
            if s.startswith("#[cfg(test)]"):
                break
            if s and not s.startswith("//"):
                n += 1
    return n


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    total = 0
    for name, rel in CRATES.items():
        lines = 0
        for d, _, files in os.walk(os.path.join(root, rel)):
            if os.sep + "bin" in d[len(root):]:
                continue
            lines += sum(count(os.path.join(d, f)) for f in files if f.endswith(".rs"))
        total += lines
        print(f"{name}: {lines}")
    print(f"total: {total}")


if __name__ == "__main__":
    main()
