#!/usr/bin/env python3
"""Makes the viewer's review demo (issue 43): a judged support run with a second
reviewer's labels, so the review panel shows agreement figures on first open.

    cargo build --release -p evalpage-cli
    python3 examples/review/make_demo.py

(`EVALPAGE_PROFILE=debug` runs target/debug/evalpage instead.)

writes examples/review/support_judged.jsonl (48 questions with reference answers),
runs examples/review/support_judged.yaml on it with the offline mock model and
judge into www/demo/review/ (report.json, results.jsonl), and writes
www/demo/review/labels.demo-reviewer.jsonl: a reviewer ("demo reviewer") who agrees
with the judge on most cases and not on a seeded few. Deterministic: running it
again gives the same files but for the run's id and times.
"""
import json
import os
import pathlib
import random
import shutil
import subprocess
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
HERE = ROOT / "examples/review"
OUT = ROOT / "www/demo/review"

FEATURES = [
    ("reset my password", "Open Settings, then Security, then Reset password, and follow the emailed link."),
    ("see my invoices", "Open Settings, then Billing, then Invoices."),
    ("change my plan", "Open Billing, choose Change plan; the change applies at once and is prorated."),
    ("delete my account", "Go to Settings, Privacy, Delete account, and confirm by email."),
    ("turn on two-factor sign-in", "Open Security settings and scan the QR code with an authenticator app."),
    ("export my data", "Use Settings, Data, Export to download a ZIP archive."),
    ("invite a teammate", "Open Team, choose Invite, and enter their email address."),
    ("change the language", "Open Settings, Preferences, Language, and pick one."),
    ("cancel my subscription", "Open Billing, choose Cancel subscription; it ends with the paid period."),
    ("update my card", "Open Billing, Payment method, and replace the card."),
    ("recover a deleted file", "Open Trash within 30 days and choose Restore."),
    ("contact support", "Use Help, Contact us, or write to support@example.com."),
]
ASKS = ["How do I {}?", "Where can I {}?", "What are the steps to {}?", "Can you tell me how to {}?"]


def main():
    rng = random.Random(43)
    lines = []
    for i in range(48):
        feature, answer = FEATURES[i % len(FEATURES)]
        ask = ASKS[i // len(FEATURES)]
        lines.append({"sample_id": f"s{i + 1:02d}", "question": ask.format(feature), "expected": answer})
    (HERE / "support_judged.jsonl").write_text("".join(json.dumps(l) + "\n" for l in lines))
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "run"
        subprocess.run([str(ROOT / "target" / os.environ.get("EVALPAGE_PROFILE", "release") / "evalpage"), "run",
                        "--task", str(HERE / "support_judged.yaml"),
                        "--dataset", str(HERE / "support_judged.jsonl"),
                        "--mock", "--out", str(out)], check=True, stdout=subprocess.DEVNULL)
        OUT.mkdir(parents=True, exist_ok=True)
        for name in ["report.json", "results.jsonl"]:
            shutil.copy(out / name, OUT / name)
        scores = [json.loads(l) for l in (out / "scores.jsonl").read_text().splitlines() if l.strip()]
    labels = []
    for s in scores:
        if s["metric"] != "correct":
            continue
        outcome = s["detail"].get("outcome")
        if outcome not in ("pass", "fail"):
            continue
        # the demo reviewer disagrees with the judge on about one case in six
        agree = rng.random() >= 1 / 6
        label = outcome if agree else ("fail" if outcome == "pass" else "pass")
        labels.append({"case_id": s["sample_id"], "model": s["detail"].get("model"), "metric": "correct",
                       "reviewer": "demo reviewer", "label": label, "blind": True,
                       "t": 1764979200000 + len(labels) * 9000, "seconds": round(4 + rng.random() * 8, 1)})
    (OUT / "labels.demo-reviewer.jsonl").write_text("".join(json.dumps(l) + "\n" for l in labels))
    print(f"{len(lines)} questions, {len(labels)} labels in {OUT}")


if __name__ == "__main__":
    main()
