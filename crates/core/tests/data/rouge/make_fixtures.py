"""Expected ROUGE-1/2/L F1 from Google's rouge-score, for tests/rouge_agreement.rs.

Run once (values are committed in fixtures.json):
    python -m venv /tmp/rouge && /tmp/rouge/bin/pip install rouge-score
    /tmp/rouge/bin/python crates/core/tests/data/rouge/make_fixtures.py

The scorer is rouge-score's default: RougeScorer(["rouge1", "rouge2", "rougeL"],
use_stemmer=False), tokenizer = lowercase, non [a-z0-9] -> space, split.
"""

import json
import pathlib
from importlib.metadata import version

from rouge_score import rouge_scorer

# (reference, prediction): plain sentences, punctuation, digits, case, repeated
# words, hyphens and apostrophes, non-ASCII letters (dropped by rouge-score),
# no overlap, empty and punctuation-only texts.
PAIRS = [
    ("the cat sat on the mat", "the cat on the mat"),
    ("The quick brown fox jumps over the lazy dog.", "A quick brown dog jumps over the lazy fox!"),
    ("Apple reported record quarterly revenue of $123.9 billion.", "Apple posted revenue of 123.9 billion dollars, a record."),
    ("police killed the gunman", "the gunman killed police"),
    ("the the the the", "the the"),
    ("It's a state-of-the-art, well-known model.", "its a state of the art well known model"),
    ("Revenue grew 12% year-over-year in Q3 2024.", "In Q3 2024 revenue grew by 12 percent."),
    ("A café in Zürich serves naïve crêpes.", "cafe in zurich serves naive crepes"),
    ("İstanbul is big", "istanbul is big"),
    ("completely different words here", "nothing overlaps at all"),
    ("", "some prediction"),
    ("some reference", ""),
    ("!!! ??? ...", "hello"),
    ("one", "one"),
    ("one two", "two one"),
    ("The committee approved the budget after a long debate on Tuesday evening.",
     "After a long Tuesday evening debate, the committee approved the budget."),
    ("Users must reset their password via the link sent to the registered email address.",
     "To reset the password, click the link in the email sent to your registered address."),
    ("GPU prices fell as supply improved, while demand for AI chips stayed strong.",
     "Strong demand for AI chips continued even as GPU prices fell on better supply."),
    ("a b c d e f g h i j", "a c e g i b d f h j"),
    ("Error 404: page not found (see docs/README.md)", "error 404 page not found see docs readme md"),
    ("tab\tseparated\nnew line  text", "tab separated new line text"),
    ("x y x y x y", "x y y x"),
]

TYPES = ["rouge1", "rouge2", "rougeL"]


def main() -> None:
    scorer = rouge_scorer.RougeScorer(TYPES, use_stemmer=False)
    cases = []
    for reference, prediction in PAIRS:
        scores = scorer.score(reference, prediction)
        cases.append({
            "reference": reference,
            "prediction": prediction,
            **{t: {"precision": scores[t].precision, "recall": scores[t].recall,
                   "fmeasure": scores[t].fmeasure} for t in TYPES},
        })
    out = {"generator": f"rouge-score {version('rouge-score')}, use_stemmer=False", "cases": cases}
    path = pathlib.Path(__file__).with_name("fixtures.json")
    path.write_text(json.dumps(out, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {len(cases)} cases to {path}")


if __name__ == "__main__":
    main()
