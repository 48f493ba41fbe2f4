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

from places import count, show

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
kind = sys.argv[1] if len(sys.argv) > 1 else "retrieval"
word = re.compile(re.escape(kind), re.IGNORECASE)



def room(rel):
    """A folder named for the kind, or a file whose name holds it."""
    parts = rel.split("/")
    return kind in parts[:-1] or kind in os.path.basename(rel).lower()

SCAN = ["crates", "src", "www", "scripts", "Cargo.toml", "index.html", "Trunk.toml"]
EXT = (".rs", ".js", ".mjs", ".sh", ".toml", ".html")


def in_tests(rel):
    return "/tests/" in rel or rel.endswith("_tests.rs") or rel.endswith("tests.rs")


def comment(line):
    s = line.strip()
    return s.startswith("//") or s.startswith("#") and not s.startswith("#[") or s.startswith("*") or s.startswith("/*")


places = count(
    ROOT,
    SCAN,
    EXT,
    lambda rel: room(rel) or in_tests(rel),
    lambda line: bool(word.search(line)) and not comment(line),
)
show(places, kind, "its rooms")
