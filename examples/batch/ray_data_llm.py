"""Runs one round of an evalpage batch over a Ray cluster with Ray Data LLM,
sending each request to an OpenAI-compatible server (vLLM, SGLang, a hosted
API) and keeping each request's custom_id, then imports the answers.

    evalpage batch export --task T.yaml --dataset D.jsonl --models M \
        --model-registry registry.json --out batch/
    python examples/batch/ray_data_llm.py batch/ 1 http://gpu-box:8000/v1/chat/completions

The answers are written with Ray Data's write_json (a directory of JSON
shards: rows with `custom_id` and `http_response`), which `evalpage batch
import` reads as they are. A key for the server goes in OPENAI_API_KEY (sent
to that server only, in a header). Needs `pip install "ray[data]"` with Ray
2.44 or later (ray.data.llm's HTTP request processor).
"""

import glob
import os
import subprocess
import sys

import ray
from ray.data.llm import HttpRequestProcessorConfig

try:  # Ray 2.50+; build_llm_processor before
    from ray.data.llm import build_processor
except ImportError:
    from ray.data.llm import build_llm_processor as build_processor


def main() -> None:
    batch_dir, round_no, url = sys.argv[1], sys.argv[2], sys.argv[3]
    files = sorted(glob.glob(os.path.join(batch_dir, f"round-{round_no}", "requests-*.jsonl")))
    if not files:
        sys.exit(f"no request files in {batch_dir}/round-{round_no}")
    headers = {"Content-Type": "application/json"}
    key = os.environ.get("OPENAI_API_KEY")
    if key:
        headers["Authorization"] = f"Bearer {key}"
    config = HttpRequestProcessorConfig(
        url=url,
        headers=headers,
        qps=int(os.environ.get("QPS", "20")),
        concurrency=int(os.environ.get("CONCURRENCY", "4")),
    )
    processor = build_processor(
        config,
        # each row is one request line of evalpage: its body is the payload
        preprocess=lambda row: {"payload": row["body"], "custom_id": row["custom_id"]},
        # keep the custom_id: evalpage joins the answers on it
        postprocess=lambda row: {"custom_id": row["custom_id"], "http_response": row["http_response"]},
    )
    out = os.path.join(batch_dir, f"round-{round_no}", "answers")
    processor(ray.data.read_json(files)).write_json(out)
    subprocess.run(["evalpage", "batch", "import", batch_dir, out], check=True)


if __name__ == "__main__":
    main()
