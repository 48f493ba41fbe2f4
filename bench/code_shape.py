#!/usr/bin/env python3
"""The code's shape, as issue 45 counts it: Rust files over 600 lines and
functions over 100 lines, in src/ and crates/ (the crates' tests/ folders left
out; a file's own test module counted with it). A function runs from its `fn`
line to the closing brace at its indentation.

Usage: python3 bench/code_shape.py [ROOT] [-v]   (-v lists them, longest first)
"""
import os, re, sys
args = [a for a in sys.argv[1:] if a != '-v']
root = args[0] if args else os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
dirs = ['src', 'crates']
files = []
for d in dirs:
    for dp, dn, fn in os.walk(os.path.join(root, d)):
        if '/target' in dp or '/tests' in dp: continue
        for f in fn:
            if f.endswith('.rs'): files.append(os.path.join(dp, f))
big = []; longf = []
fnre = re.compile(r'^(\s*)(pub(\([^)]*\))?\s+)?(const\s+)?(async\s+)?(unsafe\s+)?fn\s+(\w+)')
for p in files:
    lines = open(p, encoding='utf-8').read().split('\n')
    n = len(lines) - (1 if lines and lines[-1] == '' else 0)
    if n > 600: big.append((n, p))
    i = 0
    while i < len(lines):
        m = fnre.match(lines[i])
        if m:
            ind = m.group(1)
            # find end: a line equal to ind + '}' 
            j = i
            while j < len(lines) and not lines[j].rstrip().endswith('{') and not lines[j].rstrip().endswith(';'):
                j += 1
            if j < len(lines) and lines[j].rstrip().endswith(';'):
                i += 1; continue
            k = j + 1
            while k < len(lines) and lines[k].rstrip() != ind + '}':
                k += 1
            length = k - i + 1
            if length > 100: longf.append((length, p, m.group(7)))
            i = k + 1 if length > 1 else i + 1
            continue
        i += 1
print(len(big), 'files over 600 lines;', len(longf), 'functions over 100 lines')
if '-v' in sys.argv:
    for x in sorted(big, reverse=True): print(' ', *x)
    for x in sorted(longf, reverse=True): print(' ', *x)
