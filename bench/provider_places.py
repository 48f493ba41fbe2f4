#!/usr/bin/env python3
"""Counts the places outside a provider's own files that name the provider
(issue 45, point 2: "a new provider: at most 6 places outside its file,
counted the same way" as `bench/kind_places.py` counts a kind's).

A provider is who answers a model call: the built-in mock, an
OpenAI-compatible endpoint, the model file run in the page. It is named in
the code by a few words (its enum variants and helpers); its own files are
those whose name holds its stem. A place is a run of lines naming one of its
words in one file, lines at most 3 apart joined into one; comment lines and
tests are not counted. Usage:

    python3 bench/provider_places.py [PROVIDER]   # default: in_page

Providers known here, with their words and the stem of their own files:

- `in_page`: the model file run in the page (`InPage`, `in_page`,
  `IN_PAGE_URL`, `LocalModel`, `local_model`, `Provider::Local`); its files
  hold `local` in their name (`src/effects/local_model.rs`,
  `src/state/local.rs`, `src/components/local_model_field.rs`,
  `www/local_model.js`).
- `mock`: the built-in mock model (`Mock`, `mock_answer`, `MOCK_MODELS`,
  `Provider::Demo`); its files hold `mock` in their name.
"""
import os
import re
import sys

from places import count, show

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PROVIDERS = {
    "in_page": (
        ["InPage", "in_page", "IN_PAGE", "LocalModel", "local_model", "Provider::Local"],
        "local",
    ),
    "mock": (
        [r"\bMock\b", "mock_answer", "MOCK_MODELS", "Provider::Demo", r"ModelCall::Mock"],
        "mock",
    ),
}

name = sys.argv[1] if len(sys.argv) > 1 else "in_page"
if name not in PROVIDERS:
    sys.exit(f"unknown provider {name}; known: {', '.join(PROVIDERS)}")
words, stem = PROVIDERS[name]
word = re.compile("|".join(w if w.startswith(r"\b") else re.escape(w) for w in words))

SCAN = ["crates", "src", "www"]
EXT = (".rs", ".js", ".mjs")


def own(rel):
    return stem in os.path.basename(rel).lower()


def comment(line):
    s = line.strip()
    return s.startswith("//") or s.startswith("*") or s.startswith("/*")


places = count(
    ROOT,
    SCAN,
    EXT,
    lambda rel: own(rel) or "/tests/" in rel or rel.endswith("tests.rs"),
    lambda line: bool(word.search(line))
    and not comment(line)
    and not line.strip().startswith("use "),
)
show(places, name, "its own files")
