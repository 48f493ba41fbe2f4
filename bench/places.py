"""The counting `kind_places.py` and `provider_places.py` share: the places
in a tree that name something, a place being a run of lines naming it in one
file, lines at most 3 apart joined into one; a Rust file's lines from its
first `#[cfg(test)]` on are tests and not read."""
import os


def test_start(lines):
    """Line index of the first `#[cfg(test)]` (the rest of a Rust file is tests)."""
    for i, l in enumerate(lines):
        if l.strip() == "#[cfg(test)]":
            return i
    return len(lines)


def count(root, scan, ext, skip, names):
    """{file: [[first, last] line index of each place]} over the files under
    `scan` (folders or files of `root`) ending in one of `ext`, but those
    `skip(rel)` leaves out; a line counts when `names(line)`."""
    places = {}
    for top in scan:
        path = os.path.join(root, top)
        files = [path] if os.path.isfile(path) else [
            os.path.join(d, f) for d, _, fs in os.walk(path) for f in fs
        ]
        for f in files:
            rel = os.path.relpath(f, root)
            if not rel.endswith(ext) or "/vendor/" in rel or "/target/" in rel or "node_modules" in rel:
                continue
            if skip(rel):
                continue
            with open(f, encoding="utf-8", errors="replace") as fh:
                lines = fh.read().split("\n")
            end = test_start(lines) if rel.endswith(".rs") else len(lines)
            runs = []
            for i in (i for i in range(end) if names(lines[i])):
                if runs and i - runs[-1][1] <= 3:
                    runs[-1][1] = i
                else:
                    runs.append([i, i])
            if runs:
                places[rel] = runs
    return places


def show(places, name, outside):
    """Prints each file's places, most first, then the total `outside`
    (where the places were not counted)."""
    total = sum(len(r) for r in places.values())
    for rel in sorted(places, key=lambda r: (-len(places[r]), r)):
        print(f"{len(places[rel]):3}  {rel}  (lines {', '.join(str(a + 1) for a, _ in places[rel])})")
    print(f"{name}: {total} places in {len(places)} files outside {outside}")
