#!/usr/bin/env python3
"""Counts the places outside a kind's rooms that name the kind (issue 45:
"adding a kind touches about 30 files and 65 places outside the kind's own
rooms, counted on retrieval").

A place is a run of lines naming the kind (case-insensitive word stem) in one
file, lines at most 3 apart joined into one. Comment lines, tests and the
kind's rooms are not counted. Usage:

    python3 bench/kind_places.py [KIND]      # default: retrieval

The rooms of KIND are the folders named KIND (`crates/core/src/KIND/`,
`src/KIND/`) and the files whose name holds KIND (`src/bin/evalpage-KIND.rs`,
`crates/core/src/view/KIND.rs`, `crates/cli/src/score_KIND.rs`,
`www/demo/demo_KIND.jsonl` ...): what is there is the kind's alone.
A place that names the kind only in a comment is not seen, and a kind named
like a word of the code (`echo`, a shell command) also counts that word.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
kind = sys.argv[1] if len(sys.argv) > 1 else "retrieval"
word = re.compile(re.escape(kind), re.IGNORECASE)



def room(rel):
    """A folder named for the kind, or a file whose name holds it."""
    parts = rel.split("/")
    return kind in parts[:-1] or kind in os.path.basename(rel).lower()

SCAN = ["crates", "src", "www", "scripts", "Cargo.toml", "index.html", "Trunk.toml"]
EXT = (".rs", ".js", ".mjs", ".sh", ".toml", ".html")


def in_tests(rel, lines, i):
    if "/tests/" in rel or rel.endswith("_tests.rs") or rel.endswith("tests.rs"):
        return True
    return False


def test_start(lines):
    """Line index of the first `#[cfg(test)]` (the rest of a Rust file is tests)."""
    for i, l in enumerate(lines):
        if l.strip() == "#[cfg(test)]":
            return i
    return len(lines)


def comment(line):
    s = line.strip()
    return s.startswith("//") or s.startswith("#") and not s.startswith("#[") or s.startswith("*") or s.startswith("/*")


places = {}
for top in SCAN:
    path = os.path.join(ROOT, top)
    files = [path] if os.path.isfile(path) else [
        os.path.join(d, f) for d, _, fs in os.walk(path) for f in fs
    ]
    for f in files:
        rel = os.path.relpath(f, ROOT)
        if not rel.endswith(EXT) or "/vendor/" in rel or "/target/" in rel or "node_modules" in rel:
            continue
        if room(rel) or in_tests(rel, None, 0):
            continue
        with open(f, encoding="utf-8", errors="replace") as fh:
            lines = fh.read().split("\n")
        end = test_start(lines) if rel.endswith(".rs") else len(lines)
        hits = [i for i in range(end) if word.search(lines[i]) and not comment(lines[i])]
        runs = []
        for i in hits:
            if runs and i - runs[-1][1] <= 3:
                runs[-1][1] = i
            else:
                runs.append([i, i])
        if runs:
            places[rel] = runs

total = sum(len(r) for r in places.values())
for rel in sorted(places, key=lambda r: (-len(places[r]), r)):
    print(f"{len(places[rel]):3}  {rel}  (lines {', '.join(str(a + 1) for a, _ in places[rel])})")
print(f"{kind}: {total} places in {len(places)} files outside its rooms")
