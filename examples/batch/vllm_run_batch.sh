#!/usr/bin/env bash
# Runs one round of an evalpage batch on a GPU box with vLLM's offline batch
# runner, then imports the answers.
#
#   evalpage batch export --task T.yaml --dataset D.jsonl --models qwen \
#     --model-registry registry.json --out batch/
#   examples/batch/vllm_run_batch.sh batch/ 1 Qwen/Qwen2.5-7B-Instruct
#
# The registry entry's `model` must be the model vLLM serves (the request
# bodies name it). One `vllm run-batch` per request file; its output keeps
# each request's custom_id, so the order of the lines does not matter.
# Extra vLLM flags go in VLLM_ARGS (e.g. VLLM_ARGS="--tensor-parallel-size 2").
set -euo pipefail
dir=${1:?usage: vllm_run_batch.sh BATCH_DIR ROUND MODEL}
round=${2:?usage: vllm_run_batch.sh BATCH_DIR ROUND MODEL}
model=${3:?usage: vllm_run_batch.sh BATCH_DIR ROUND MODEL}
answers="$dir/round-$round/answers"
mkdir -p "$answers"
for file in "$dir/round-$round"/requests-*.jsonl; do
  # shellcheck disable=SC2086
  vllm run-batch -i "$file" -o "$answers/$(basename "$file" .jsonl).out.jsonl" \
    --model "$model" ${VLLM_ARGS:-}
done
evalpage batch import "$dir" "$answers"
