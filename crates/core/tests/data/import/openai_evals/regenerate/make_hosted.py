"""Writes ../run.json and ../output_items.json: a hand-made hosted Evals API run
(GET /v1/evals/{eval_id}/runs/{run_id}) and its output items page
(GET /v1/evals/{eval_id}/runs/{run_id}/output_items), with the field names of
openai-python's RunRetrieveResponse / OutputItemListResponse (see ../README.md).
Every count in run.json is derived from the items below. Stdlib only."""
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
EVAL_ID = "eval_6948a1c07e5c8190a3f2b5d9c41e7a02"
RUN_ID = "evalrun_6948a1c1d2e48190b7c93e1f5a2d8b64"
CREATED = 1795860000  # 2026-11-28T10:00:00Z
MODEL = "gpt-4o-mini"
SNAPSHOT = "gpt-4o-mini-2024-07-18"
SYSTEM = "Answer the question with the answer only, no explanation."
CRIT_A = "Exact answer-3f1c2a9e-8b4d-4e6f-9a1b-2c3d4e5f6a7b"      # string_check, eq
CRIT_B = "Fuzzy similarity-7d9e0f1a-2b3c-4d5e-8f6a-7b8c9d0e1f2a"  # text_similarity, fuzzy_match, pass_threshold 0.8
SAMPLING = {"seed": 42, "temperature": 1.0, "top_p": 1.0, "max_completion_tokens": 2048}

# (item, output text or None when errored, usage (prompt, completion), fuzzy score)
# fuzzy score = rapidfuzz.fuzz.ratio(output, ideal) / 100
ROWS = [
    ({"input": "What is the capital of France?", "ideal": "Paris"}, "Paris", (27, 1), 1.0),
    ({"input": "What is 12 * 12?", "ideal": "144"}, "144.", (28, 2), 0.8571428571428572),
    ({"input": "Which planet is known as the Red Planet?", "ideal": "Mars"}, "Mars", (30, 1), 1.0),
    ({"input": "Name the largest ocean on Earth.", "ideal": "Pacific Ocean"}, None, (0, 0), None),
    ({"input": "Who wrote 'Pride and Prejudice'?", "ideal": "Jane Austen"}, "Charlotte Brontë", (29, 5), 0.2962962962962963),
]
ERROR = {
    "code": "rate_limit_exceeded",
    "message": "Rate limit reached for gpt-4o-mini on requests per min (RPM): Limit 500, Used 500, Requested 1. Please try again in 120ms.",
}


def hexid(prefix, n):
    # 32 hex digits after the prefix, like the API's ids
    return f"{prefix}_6948a1d{n:d}f3c08190{0x9b4e2c71d05a + n * 0x1111:012x}a7b3"


def msg(role, content):
    return {"role": role, "content": content, "tool_call_id": None, "tool_calls": None, "function_call": None}


items = []
for i, (item, out, (p, c), fuzzy) in enumerate(ROWS):
    errored = out is None
    if errored:
        results = []
        status = "fail"
    else:
        exact = out == item["ideal"]
        results = [
            {"name": CRIT_A, "type": "string-check-grader", "score": 1.0 if exact else 0.0, "passed": exact, "sample": None},
            {"name": CRIT_B, "type": "text-similarity-grader", "score": fuzzy, "passed": fuzzy >= 0.8, "sample": None},
        ]
        status = "pass" if all(r["passed"] for r in results) else "fail"
    items.append({
        "object": "eval.run.output_item",
        "id": hexid("outputitem", i),
        "created_at": CREATED + 31 + i,
        "run_id": RUN_ID,
        "eval_id": EVAL_ID,
        "status": status,
        "datasource_item_id": i,
        "datasource_item": item,
        "results": results,
        "sample": {
            "input": [msg("developer", SYSTEM), msg("user", item["input"])],
            "output": [] if errored else [msg("assistant", out)],
            "finish_reason": "" if errored else "stop",
            "model": SNAPSHOT,
            "usage": {"total_tokens": p + c, "completion_tokens": c, "prompt_tokens": p, "cached_tokens": 0},
            "error": ERROR if errored else None,
            "temperature": SAMPLING["temperature"],
            "max_completion_tokens": SAMPLING["max_completion_tokens"],
            "top_p": SAMPLING["top_p"],
            "seed": SAMPLING["seed"],
        },
    })

errored = [it for it in items if it["sample"]["error"] is not None]
graded = [it for it in items if it["sample"]["error"] is None]
result_counts = {
    "total": len(items),
    "errored": len(errored),
    "failed": sum(1 for it in graded if it["status"] == "fail"),
    "passed": sum(1 for it in graded if it["status"] == "pass"),
}
per_crit = []
for crit in (CRIT_A, CRIT_B):
    rs = [r for it in graded for r in it["results"] if r["name"] == crit]
    per_crit.append({"testing_criteria": crit, "passed": sum(r["passed"] for r in rs), "failed": sum(not r["passed"] for r in rs)})
usage = {k: sum(it["sample"]["usage"][k] for it in graded) for k in ("prompt_tokens", "completion_tokens", "total_tokens", "cached_tokens")}

run = {
    "object": "eval.run",
    "id": RUN_ID,
    "eval_id": EVAL_ID,
    "report_url": f"https://platform.openai.com/evaluations/{EVAL_ID}?run_id={RUN_ID}",
    "status": "completed",
    "model": MODEL,
    "name": "trivia-gpt-4o-mini",
    "created_at": CREATED,
    "result_counts": result_counts,
    "per_model_usage": [{"model_name": MODEL, "invocation_count": len(graded), **usage}],
    "per_testing_criteria_results": per_crit,
    "data_source": {
        "type": "completions",
        "source": {"type": "file_content", "content": [{"item": it} for it, *_ in ROWS]},
        "input_messages": {
            "type": "template",
            "template": [
                {"type": "message", "role": "developer", "content": {"type": "input_text", "text": SYSTEM}},
                {"type": "message", "role": "user", "content": {"type": "input_text", "text": "{{item.input}}"}},
            ],
        },
        "model": MODEL,
        "sampling_params": SAMPLING,
    },
    "error": None,
    "metadata": {"suite": "trivia", "purpose": "evalpage import fixture"},
}
page = {"object": "list", "data": items, "first_id": items[0]["id"], "last_id": items[-1]["id"], "has_more": False}

(HERE / "run.json").write_text(json.dumps(run, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
(HERE / "output_items.json").write_text(json.dumps(page, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
print(json.dumps({"result_counts": result_counts, "per_testing_criteria_results": per_crit, "per_model_usage": run["per_model_usage"]}, indent=1))
