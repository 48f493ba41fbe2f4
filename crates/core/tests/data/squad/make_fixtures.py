"""Expected token F1 and exact match from SQuAD v1.1's evaluation functions,
for tests/squad_agreement.rs.

Run once (values are committed in fixtures.jsonl; Python 3, standard library only):
    python3 crates/core/tests/data/squad/make_fixtures.py

normalize_answer, f1_score, exact_match_score and metric_max_over_ground_truths
below are those of the official evaluate-v1.1.py script, unchanged in behaviour.
Every pair is English (no CJK characters): `token_f1` must give the script's
values on them exactly (its CJK extension is tested in the unit tests).
"""

import json
import pathlib
import re
import string
import sys
from collections import Counter


def normalize_answer(s):
    """Lower text and remove punctuation, articles and extra whitespace."""

    def remove_articles(text):
        return re.sub(r"\b(a|an|the)\b", " ", text)

    def white_space_fix(text):
        return " ".join(text.split())

    def remove_punc(text):
        exclude = set(string.punctuation)
        return "".join(ch for ch in text if ch not in exclude)

    def lower(text):
        return text.lower()

    return white_space_fix(remove_articles(remove_punc(lower(s))))


def f1_score(prediction, ground_truth):
    prediction_tokens = normalize_answer(prediction).split()
    ground_truth_tokens = normalize_answer(ground_truth).split()
    common = Counter(prediction_tokens) & Counter(ground_truth_tokens)
    num_same = sum(common.values())
    if num_same == 0:
        return 0
    precision = 1.0 * num_same / len(prediction_tokens)
    recall = 1.0 * num_same / len(ground_truth_tokens)
    f1 = (2 * precision * recall) / (precision + recall)
    return f1


def exact_match_score(prediction, ground_truth):
    return normalize_answer(prediction) == normalize_answer(ground_truth)


def metric_max_over_ground_truths(metric_fn, prediction, ground_truths):
    scores_for_ground_truths = []
    for ground_truth in ground_truths:
        score = metric_fn(prediction, ground_truth)
        scores_for_ground_truths.append(score)
    return max(scores_for_ground_truths)


# (prediction, ground truths). Groups: exact and near answers, case,
# punctuation, articles, repeated tokens, empty texts, several golds, numbers,
# hyphens and apostrophes, Unicode punctuation and letters, whitespace.
PAIRS = [
    # exact and partial answers
    ("Denver Broncos", ["Denver Broncos", "Denver Broncos", "Denver Broncos"]),
    ("Carolina Panthers", ["Denver Broncos"]),
    ("the Denver Broncos won", ["Denver Broncos"]),
    ("Broncos", ["Denver Broncos"]),
    ("Levi's Stadium in the San Francisco Bay Area", ["Levi's Stadium"]),
    ("Santa Clara, California", ["Santa Clara, California", "Levi's Stadium", "Santa Clara"]),
    ("gold", ["golden anniversary", "gold-themed", "gold"]),
    ("in the 19th century", ["19th century", "the 19th century"]),
    ("completely unrelated words", ["nothing in common here"]),
    ("Beyoncé Giselle Knowles-Carter", ["Beyoncé Giselle Knowles-Carter"]),
    # case
    ("NEW YORK CITY", ["New York City"]),
    ("iPhone", ["IPHONE"]),
    ("McDonald's", ["mcdonalds"]),
    # ASCII punctuation
    ("U.S.A.", ["USA"]),
    ("(a) the answer!", ["answer"]),
    ("hello, world...", ["hello world"]),
    ("C++ and C#", ["C and C"]),
    ("e-mail@example.com", ["emailexamplecom"]),
    ("$5,000", ["5000 dollars"]),
    ("50%", ["50 percent"]),
    ("semi;colon:separated", ["semicolonseparated"]),
    ("quote \"inside\" text", ["quote inside text"]),
    ("snake_case_name", ["snakecasename"]),
    ("back\\slash and /slash/", ["backslash and slash"]),
    ("[bracketed] {braced} <angled>", ["bracketed braced angled"]),
    ("~tilde^caret`tick|pipe", ["tildecarettickpipe"]),
    # articles
    ("the cat", ["cat"]),
    ("a cat and an owl", ["cat and owl"]),
    ("The", ["the"]),
    ("another theory", ["other theory"]),
    ("Anthem of the Seas", ["anthem seas"]),
    ("a.b.c", ["abc"]),
    ("a-b", ["ab"]),
    ("theatre an'", ["theatre an"]),
    ("A An THE", [""]),
    ("the the the end", ["end"]),
    # repeated tokens
    ("the the cat cat cat", ["cat"]),
    ("cat cat", ["cat cat cat"]),
    ("x y y", ["y y z"]),
    ("one two two three three three", ["three two one two"]),
    ("buffalo buffalo buffalo buffalo", ["buffalo"]),
    # empty predictions and golds
    ("", ["Denver Broncos"]),
    ("", [""]),
    ("the", ["an"]),
    ("...", ["!!!"]),
    ("Denver", [""]),
    ("   ", ["a"]),
    # several ground truths
    ("Denver", ["Denver Broncos", "Denver", "the Broncos"]),
    ("Broncos won", ["Denver Broncos", "Broncos", "won it"]),
    ("February 7, 2016", ["February 7, 2016", "February 7", "2016"]),
    ("Feb 7", ["February 7, 2016", "7 February"]),
    ("Golden Gate", ["Bay Bridge", "Golden Gate Bridge", "golden gate"]),
    ("wrong", ["right", "correct", "true"]),
    # numbers
    ("1,000", ["1000"]),
    ("3.14", ["314"]),
    ("3.14 159", ["3 14 159"]),
    ("24–10", ["24 10", "24-10"]),
    ("1990s", ["1990 s", "the 1990s"]),
    ("10 000", ["10,000"]),
    ("2nd", ["second"]),
    # hyphens and apostrophes
    ("state-of-the-art", ["state of the art"]),
    ("well-known author", ["well known author", "wellknown author"]),
    ("it's", ["its"]),
    ("rock 'n' roll", ["rock n roll"]),
    # Unicode punctuation and letters (kept by the script)
    ("“Quoted” text", ["Quoted text"]),
    ("“Quoted” text", ["“quoted” text"]),
    ("Super Bowl — 50", ["Super Bowl 50"]),
    ("24–10", ["24–10"]),
    ("naïve café", ["naive cafe"]),
    ("naïve café", ["NAÏVE CAFÉ"]),
    ("über ÜBER Straße", ["uber strasse", "über straße"]),
    ("ΟΔΥΣΣΕΥΣ", ["οδυσσευς"]),
    ("l’homme", ["lhomme", "l’homme"]),
    ("¿Qué? ¡Sí!", ["qué sí", "¿qué ¡sí"]),
    ("½ cup", ["half cup", "½ cup"]),
    ("a\u0301 b", ["b"]),
    ("the·end", ["end", "the·end"]),
    # whitespace
    ("New\tYork\nCity", ["new york city"]),
    ("New\u00a0York", ["new york"]),
    ("the\u2003end", ["end"]),
    ("a\u001fb", ["b"]),
    ("  leading and trailing  ", ["leading and trailing"]),
]


def main():
    out = pathlib.Path(__file__).with_name("fixtures.jsonl")
    lines = []
    for prediction, golds in PAIRS:
        lines.append(
            json.dumps(
                {
                    "prediction": prediction,
                    "ground_truths": golds,
                    "f1": float(metric_max_over_ground_truths(f1_score, prediction, golds)),
                    "em": float(metric_max_over_ground_truths(exact_match_score, prediction, golds)),
                },
                ensure_ascii=False,
            )
        )
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(lines)} pairs -> {out} (Python {sys.version.split()[0]})")


if __name__ == "__main__":
    main()
