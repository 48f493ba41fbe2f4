#!/usr/bin/env python3
# Reference versions (pip freeze of the venv that wrote fixtures.json):
#   scikit-learn==1.9.1  krippendorff==0.9.0  statsmodels==0.15.0
#   numpy==2.4.6  scipy==1.17.1  (Python 3.11.7)
"""Expected figures of human review (judge-vs-human agreement) for the parity
test of crates/core/src/review/ (`cargo test -p evalpage-core --lib review`).

Writes fixtures.json next to this script: about 1,000 seeded label sets
(`random.Random(2026)`) of 2..60 items, binary, nominal (3-4 classes) and
ordinal (ratings 1..5), 2-4 reviewers with missing values, plus edge cases
(one class only, a rater who always says pass, reviewers with no overlapping
units, a single item, all agree). Every figure comes from the reference:

- `kappa`: scikit-learn `cohen_kappa_score(y1, y2)` on the units both of the
  first two reviewers labelled; `kappa_quadratic` (binary and ordinal sets
  only): `cohen_kappa_score(y1, y2, labels=scale, weights="quadratic")`;
- `alpha_nominal` / `alpha_ordinal` (ordinal only): `krippendorff.alpha(
  reliability_data=..., level_of_measurement=..., value_domain=scale)`;
- `wilson`: statsmodels `proportion_confint(k, n, alpha=0.05, method="wilson")`;
- `judge` sets (judge verdict, human label): agreement, κ, the confusion
  matrix (scikit-learn `confusion_matrix`), TPR and TNR with their Wilson
  intervals (statsmodels), and the Rogan-Gladen corrected pass rate, which no
  library computes: it is worked out here in exact rational arithmetic
  (fractions.Fraction) and rounded once.

A figure is null exactly where the reference returns nan or raises, and
nothing else is null. Units × reviewers in the file (`units[u][r]`, null =
missing); krippendorff takes the transpose (reviewers × units, nan = missing).

Regenerate (see README.md):
    python3 -m venv /tmp/agree-venv
    /tmp/agree-venv/bin/pip install scikit-learn krippendorff statsmodels
    /tmp/agree-venv/bin/python tests/reference/agreement/make_fixtures.py
"""
import json
import math
import os
import random
import warnings
from fractions import Fraction
from importlib.metadata import version

import krippendorff
import numpy as np
from sklearn.metrics import cohen_kappa_score, confusion_matrix
from statsmodels.stats.proportion import proportion_confint

HERE = os.path.dirname(os.path.abspath(__file__))
BINARY = [0, 1]
ORDINAL = [1, 2, 3, 4, 5]
NOMINAL_POOL = [2, 3, 5, 7, 11, 13]

warnings.simplefilter("ignore")


def num(x):
    """A reference figure as JSON: None for nan (the reference's undefined)."""
    x = float(x)
    if math.isnan(x):
        return None
    assert math.isfinite(x), x
    return x


def call(f):
    """f() as a figure; None when the reference raises or gives nan."""
    try:
        return num(f())
    except ValueError:
        return None


def kappa_case(cid, kind, scale, units):
    both = [(u[0], u[1]) for u in units if u[0] is not None and u[1] is not None]
    y1 = [a for a, _ in both]
    y2 = [b for _, b in both]
    case = {
        "id": cid,
        "kind": kind,
        "scale": scale,
        "y1": y1,
        "y2": y2,
        "kappa": call(lambda: cohen_kappa_score(y1, y2)),
    }
    if kind != "nominal":
        case["kappa_quadratic"] = call(
            lambda: cohen_kappa_score(y1, y2, labels=scale, weights="quadratic")
        )
    return case


def alpha_case(cid, kind, scale, units):
    data = np.array(
        [[np.nan if v is None else float(v) for v in u] for u in units], dtype=float
    ).T
    case = {
        "id": cid,
        "kind": kind,
        "scale": scale,
        "units": units,
        "alpha_nominal": call(
            lambda: krippendorff.alpha(
                reliability_data=data,
                level_of_measurement="nominal",
                value_domain=scale,
            )
        ),
    }
    if kind == "ordinal":
        case["alpha_ordinal"] = call(
            lambda: krippendorff.alpha(
                reliability_data=data,
                level_of_measurement="ordinal",
                value_domain=scale,
            )
        )
    return case


def wilson(k, n):
    lo, hi = proportion_confint(k, n, alpha=0.05, method="wilson")
    return num(lo), num(hi)


def rate(k, n):
    """A rate with its Wilson interval; None when n = 0."""
    if n == 0:
        assert wilson(k, n) == (None, None)
        return None
    lo, hi = wilson(k, n)
    return {"k": k, "n": n, "value": k / n, "lo": lo, "hi": hi}


def judge_case(cid, pairs, verdicts):
    judge = [j for j, _ in pairs]
    human = [h for _, h in pairs]
    case = {"id": cid, "pairs": pairs, "verdicts": verdicts}
    if pairs:
        tn, fp, fn, tp = (
            int(x) for x in confusion_matrix(human, judge, labels=[False, True]).ravel()
        )
    else:
        tn = fp = fn = tp = 0
    case["confusion"] = {"tp": tp, "fp": fp, "fn": fn, "tn": tn}
    case["raw_agreement"] = (tp + tn) / len(pairs) if pairs else None
    case["kappa"] = call(lambda: cohen_kappa_score(judge, human))
    case["tpr"] = rate(tp, tp + fn)
    case["tnr"] = rate(tn, tn + fp)
    case["pass_rate"] = sum(verdicts) / len(verdicts) if verdicts else None
    corrected = None
    if tp + fn and tn + fp and verdicts:
        tpr = Fraction(tp, tp + fn)
        tnr = Fraction(tn, tn + fp)
        p = Fraction(sum(verdicts), len(verdicts))
        if tpr + tnr - 1 > 0:
            corrected = float(min(max((p + tnr - 1) / (tpr + tnr - 1), 0), 1))
    case["corrected"] = corrected
    return case


def draw_units(rng, kind, scale, n, raters, missing, q):
    weights = [rng.random() + 0.05 for _ in scale]
    units = []
    for _ in range(n):
        truth = rng.choices(scale, weights)[0]
        row = []
        for _ in range(raters):
            if rng.random() < missing:
                row.append(None)
            elif rng.random() < q:
                row.append(truth)
            elif kind == "ordinal" and rng.random() < 0.5:
                row.append(min(max(truth + rng.choice([-1, 1]), 1), 5))
            else:
                row.append(rng.choice(scale))
        units.append(row)
    return units


def random_sets(rng, count):
    sets = []
    for i in range(count):
        kind = rng.choice(["binary", "nominal", "ordinal"])
        if kind == "binary":
            scale = BINARY
        elif kind == "ordinal":
            scale = ORDINAL
        else:
            scale = sorted(rng.sample(NOMINAL_POOL, rng.choice([3, 4])))
        n = rng.choice([rng.randint(2, 8), rng.randint(2, 20), rng.randint(2, 60)])
        raters = rng.randint(2, 4)
        missing = rng.choice([0.0, 0.0, 0.1, 0.25, 0.5])
        q = rng.random()
        sets.append((f"r{i:04d}", kind, scale, draw_units(rng, kind, scale, n, raters, missing, q)))
    return sets


def edge_sets():
    o = ORDINAL
    return [
        ("one-class-binary", "binary", BINARY, [[1, 1]] * 6),
        ("one-class-ordinal", "ordinal", o, [[3, 3, 3]] * 5),
        ("one-class-with-missing", "nominal", [2, 5, 7], [[5, None], [None, 5], [5, 5], [5, 5]]),
        ("always-pass", "binary", BINARY, [[1, 1], [1, 0], [1, 1], [1, 0], [1, 0], [1, 1]]),
        ("always-pass-ordinal", "ordinal", o, [[5, 5], [5, 3], [5, 4], [5, 1]]),
        ("always-pass-vs-always-fail", "binary", BINARY, [[1, 0]] * 4),
        ("no-overlap", "binary", BINARY, [[1, None], [0, None], [None, 1], [None, 0]]),
        ("no-overlap-three", "ordinal", o, [[1, None, None], [None, 4, None], [None, None, 2]]),
        ("single-item-agree", "binary", BINARY, [[1, 1]]),
        ("single-item-disagree", "binary", BINARY, [[1, 0]]),
        ("single-item-ordinal", "ordinal", o, [[2, 4]]),
        ("single-item-three", "nominal", [2, 3, 5], [[2, 3, 5]]),
        ("all-agree-binary", "binary", BINARY, [[1, 1], [0, 0], [1, 1], [0, 0]]),
        ("all-agree-ordinal", "ordinal", o, [[1, 1, 1], [3, 3, 3], [5, 5, None], [2, 2, 2]]),
        ("all-agree-nominal", "nominal", [2, 5, 7, 11], [[2, 2], [5, 5], [7, 7], [11, 11]]),
        ("all-missing", "ordinal", o, [[None, None], [None, None]]),
        ("empty", "binary", BINARY, []),
        ("lone-pair-among-singles", "ordinal", o, [[1, None], [None, 5], [2, 3], [4, None]]),
        ("opposite-ends", "ordinal", o, [[1, 5], [5, 1], [1, 5]]),
        ("unused-scale-ends", "ordinal", o, [[2, 3], [3, 3], [3, 4], [2, 2], [4, 3]]),
    ]


def judge_sets(rng, count):
    out = []
    for i in range(count):
        n = rng.choice([rng.randint(1, 10), rng.randint(5, 60), rng.randint(20, 200)])
        prevalence = rng.random()
        # Mostly judges better than chance; some no better (TPR + TNR <= 1).
        tpr = rng.choice([rng.random(), 0.5 + 0.5 * rng.random(), 0.8 + 0.2 * rng.random()])
        tnr = rng.choice([rng.random(), 0.5 + 0.5 * rng.random(), 0.8 + 0.2 * rng.random()])
        pairs = []
        for _ in range(n):
            human = rng.random() < prevalence
            judge = (rng.random() < tpr) if human else not (rng.random() < tnr)
            pairs.append([judge, human])
        extra = [rng.random() < 0.5 * (prevalence + tpr) for _ in range(rng.randint(0, 3 * n))]
        out.append((f"j{i:04d}", pairs, [j for j, _ in pairs] + extra))
    t, f = True, False
    out += [
        ("j-empty", [], []),
        ("j-unlabelled-only", [], [t, f, t]),
        ("j-perfect", [[t, t], [f, f], [t, t], [f, f]], [t, f, t, f, t, t, f]),
        ("j-always-pass", [[t, t], [t, f], [t, t], [t, f]], [t, t, t, t, t]),
        ("j-always-fail", [[f, t], [f, f]], [f, f, f]),
        ("j-humans-all-pass", [[t, t], [f, t], [t, t]], [t, f, t, t]),
        ("j-humans-all-fail", [[t, f], [f, f]], [t, f]),
        ("j-inverted", [[f, t], [t, f], [f, t], [t, f]], [t, f, f]),
        ("j-coin", [[t, t], [f, t], [t, f], [f, f]], [t, f]),
        ("j-clipped-high", [[t, t], [t, t], [f, t], [f, f], [f, f], [t, f]], [t] * 9),
        ("j-clipped-low", [[t, t], [t, t], [t, t], [f, f], [t, f], [f, f]], [f] * 7),
        ("j-single", [[t, t]], [t]),
    ]
    return out


def wilson_cases(rng):
    cases = [(0, 0)]
    cases += [(k, n) for n in range(1, 31) for k in range(n + 1)]
    for _ in range(150):
        n = rng.choice([rng.randint(31, 500), rng.randint(500, 100_000)])
        k = rng.choice([0, n, rng.randint(0, n), rng.randint(0, min(n, 5)), n - rng.randint(0, min(n, 5))])
        cases.append((k, n))
    out = []
    for k, n in cases:
        lo, hi = wilson(k, n)
        out.append({"k": k, "n": n, "lo": lo, "hi": hi})
    return out


def main():
    rng = random.Random(2026)
    sets = random_sets(rng, 1000) + edge_sets()
    fixtures = {
        "versions": {
            name: version(name)
            for name in ["scikit-learn", "krippendorff", "statsmodels", "numpy", "scipy"]
        },
        "kappa": [kappa_case(*s) for s in sets],
        "alpha": [alpha_case(*s) for s in sets],
        "judge": [judge_case(*j) for j in judge_sets(rng, 250)],
        "wilson": wilson_cases(rng),
    }
    path = os.path.join(HERE, "fixtures.json")
    with open(path, "w") as f:
        # One case a line: diffs of a regeneration stay readable.
        f.write("{\n")
        keys = list(fixtures)
        for i, key in enumerate(keys):
            value = fixtures[key]
            if isinstance(value, list):
                f.write(f' "{key}": [\n')
                f.write(",\n".join("  " + json.dumps(c, separators=(",", ":")) for c in value))
                f.write("\n ]")
            else:
                f.write(f' "{key}": {json.dumps(value)}')
            f.write(",\n" if i + 1 < len(keys) else "\n")
        f.write("}\n")
    counts = {k: len(v) for k, v in fixtures.items() if isinstance(v, list)}
    nulls = {
        "kappa": sum(c["kappa"] is None for c in fixtures["kappa"]),
        "kappa_quadratic": sum(c.get("kappa_quadratic", 0) is None for c in fixtures["kappa"]),
        "alpha_nominal": sum(c["alpha_nominal"] is None for c in fixtures["alpha"]),
        "alpha_ordinal": sum(c.get("alpha_ordinal", 0) is None for c in fixtures["alpha"]),
        "corrected": sum(c["corrected"] is None for c in fixtures["judge"]),
    }
    print(f"wrote {path} ({os.path.getsize(path)} bytes): {counts}, nulls {nulls}")


if __name__ == "__main__":
    main()
