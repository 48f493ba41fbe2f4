#!/usr/bin/env python3
"""Writes big files of other tools' shapes for the import benchmark, made from
the fixtures the real tools wrote (crates/core/tests/data/import): a promptfoo
output with N results and an Inspect AI log (.json, and .eval with deflate
entries) with N samples, each sample copied from the fixture's first with a
new id and alternating verdicts. The fixture's HTTP headers and transcripts
(`metadata`, `events`, `attachments`) are dropped from each copy, so a file
is about what a real one of N samples holds without its transcripts.

    python3 bench/import_big.py OUT_DIR [N]
"""
import copy
import json
import os
import sys
import zipfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
FIX = os.path.join(ROOT, "crates/core/tests/data/import")


def promptfoo(out, n):
    with open(os.path.join(FIX, "promptfoo/out.json")) as f:
        doc = json.load(f)
    first = doc["results"]["results"][0]
    first.pop("metadata", None)
    first["response"].pop("metadata", None)
    doc["results"]["results"] = []
    text = json.dumps(doc)
    head, tail = text.split('"results": []', 1)
    with open(out, "w") as f:
        f.write(head + '"results": [')
        for i in range(n):
            r = copy.deepcopy(first)
            r["testIdx"] = i
            r["testCase"]["description"] = f"case {i}"
            r["prompt"]["raw"] = f"Answer briefly: question {i}?"
            ok = i % 3 != 0
            r["success"], r["score"] = ok, 1 if ok else 0
            f.write(("," if i else "") + json.dumps(r))
        f.write("]" + tail)


def inspect_samples(n):
    with open(os.path.join(FIX, "inspect/log.json")) as f:
        doc = json.load(f)
    first = doc["samples"][0]
    for k in ("events", "attachments", "events_data", "messages"):
        first.pop(k, None)
    for i in range(n):
        s = copy.deepcopy(first)
        s["id"], s["epoch"] = f"s{i}", 1
        s["input"] = f"question {i}?"
        for sc in s["scores"].values():
            sc["value"] = "C" if i % 3 else "I"
        yield s
    doc["samples"] = []
    doc.pop("reductions", None)
    doc["eval"]["config"]["epochs"] = 1
    yield doc


def inspect_json(out, n):
    # As Inspect writes it: the header's keys, then the samples.
    samples = [None] * n
    it = inspect_samples(n)
    for i in range(n):
        samples[i] = next(it)
    rest = next(it)
    rest.pop("samples")
    with open(out, "w") as f:
        f.write("{" + ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in rest.items()))
        f.write(', "samples": [')
        for i, s in enumerate(samples):
            f.write(("," if i else "") + json.dumps(s))
        f.write("]}")


def inspect_eval(out, n):
    it = inspect_samples(n)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for i in range(n):
            s = next(it)
            z.writestr(f"samples/{s['id']}_epoch_1.json", json.dumps(s))
        rest = next(it)
        rest.pop("samples")
        z.writestr("header.json", json.dumps(rest))


if __name__ == "__main__":
    out = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 200_000
    os.makedirs(out, exist_ok=True)
    promptfoo(os.path.join(out, f"promptfoo_{n}.json"), n)
    inspect_json(os.path.join(out, f"inspect_{n}.json"), n)
    inspect_eval(os.path.join(out, f"inspect_{n}.eval"), n)
    for f in sorted(os.listdir(out)):
        print(f"{f}: {os.path.getsize(os.path.join(out, f)) / 1e6:.1f} MB")
