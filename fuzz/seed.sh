#!/bin/sh
# Fills fuzz/corpus/<target>/ with seeds: the hostile inputs of
# crates/core/tests/data/bad, the demo dataset, and fuzz/seeds/<target>/.
# Run from anywhere; the corpus folders are git-ignored.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bad="$here/../crates/core/tests/data/bad"
demo="$here/../www/demo/demo_dataset.jsonl"
for target in dataset_rag event_log provider_response scoring task_yaml dataset_samples model_registry; do
    mkdir -p "$here/corpus/$target"
done
cp "$bad"/rag_* "$demo" "$here/corpus/dataset_rag/"
cp "$bad"/log_* "$bad"/seq_* "$here/corpus/event_log/"
# provider_response reads the status from the first two bytes (little endian)
for f in "$bad"/provider_* "$bad"/report_for_logs.json; do
    name=$(basename "$f")
    { printf '\310\000'; cat "$f"; } > "$here/corpus/provider_response/200_$name"
    { printf '\366\001'; cat "$f"; } > "$here/corpus/provider_response/502_$name"
done
cp "$here"/seeds/scoring/* "$here/corpus/scoring/"
cp "$here"/seeds/task_yaml/* "$here/corpus/task_yaml/"
cp "$here"/seeds/model_registry/* "$here/corpus/model_registry/"
cp "$bad"/rag_* "$demo" "$here"/../crates/cli/tests/data/score/*.jsonl "$here/corpus/dataset_samples/"
# every dataset line is also a scoring input (answer = the whole line)
i=0
while IFS= read -r line; do
    i=$((i + 1))
    printf '\000%s\000%s\000%s.md\n' "$line" "$line" "$i" > "$here/corpus/scoring/demo_$i.bin"
done < "$demo"
