#!/usr/bin/env bash
# Runs one round of an evalpage batch with OpenAI's Batch API (half the price,
# answers within 24 hours) and imports the answers.
#
#   evalpage batch export --task T.yaml --dataset D.jsonl --models M \
#     --model-registry registry.json --out batch/
#   OPENAI_API_KEY=... examples/batch/openai_batch.sh batch/ 1
#
# Uploads every request file of batch/round-N/, creates one batch per file,
# waits for them (polling every 60 s), downloads output and error files into
# batch/round-N/answers/, then runs `evalpage batch import`. When import
# writes round N+1 (a judge after the answers), run this again with N+1.
# Needs curl and jq. The key is sent to api.openai.com only, in a header.
set -euo pipefail
dir=${1:?usage: openai_batch.sh BATCH_DIR ROUND}
round=${2:?usage: openai_batch.sh BATCH_DIR ROUND}
: "${OPENAI_API_KEY:?set OPENAI_API_KEY}"
api=${OPENAI_BASE_URL:-https://api.openai.com/v1}
auth=(-H "Authorization: Bearer $OPENAI_API_KEY")
answers="$dir/round-$round/answers"
mkdir -p "$answers"
ids=()
for file in "$dir/round-$round"/requests-*.jsonl; do
  upload=$(curl -sS --fail "${auth[@]}" -F purpose=batch -F "file=@$file" "$api/files")
  file_id=$(jq -r .id <<<"$upload")
  batch=$(curl -sS --fail "${auth[@]}" -H 'Content-Type: application/json' \
    -d "{\"input_file_id\": \"$file_id\", \"endpoint\": \"/v1/chat/completions\", \"completion_window\": \"24h\"}" \
    "$api/batches")
  ids+=("$(jq -r .id <<<"$batch")")
  echo "submitted $(basename "$file") as $(jq -r .id <<<"$batch")"
done
for id in "${ids[@]}"; do
  while :; do
    batch=$(curl -sS --fail "${auth[@]}" "$api/batches/$id")
    status=$(jq -r .status <<<"$batch")
    case $status in
      completed|failed|expired|cancelled) break ;;
    esac
    echo "$id: $status ($(jq -r '.request_counts | "\(.completed)/\(.total)"' <<<"$batch"))"
    sleep 60
  done
  echo "$id: $status"
  for kind in output_file_id error_file_id; do
    file_id=$(jq -r ".$kind // empty" <<<"$batch")
    if [ -n "$file_id" ]; then
      curl -sS --fail "${auth[@]}" "$api/files/$file_id/content" -o "$answers/$id-${kind%_file_id}.jsonl"
    fi
  done
done
# requests of an expired or failed batch that have no line are not_run;
# import again later with a retry's answers to fill them in
evalpage batch import "$dir" "$answers"
