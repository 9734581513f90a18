#!/bin/bash
# imgfetch over a whole Parse class as a Slurm job array: task k of the array runs `--shard k/N`.
# In the default range mode each task asks Parse Server only for its own objectId slice, so the N
# tasks together read every row once.
#
#   export PARSE_SERVER_URL=https://parse.example.com/parse PARSE_APPLICATION_ID=myapp PARSE_REST_API_KEY=...
#   sbatch --export=ALL deploy/slurm/imgfetch-array.sh Photo image /shared/imgfetch-cache
#
# The array must be a contiguous range starting anywhere (1-8, 0-15, and throttles like 1-8%4 are
# fine; steps like 1-15:2 are not): the shard is the task's position in it, the count its size.
#SBATCH --job-name=imgfetch
#SBATCH --array=1-8
#SBATCH --cpus-per-task=4
#SBATCH --mem=2G
#SBATCH --time=04:00:00
#SBATCH --output=imgfetch-%A_%a.jsonl
#SBATCH --error=imgfetch-%A_%a.err

set -euo pipefail

class=${1:?usage: imgfetch-array.sh CLASS COLUMN CACHE_DIR}
column=${2:?usage: imgfetch-array.sh CLASS COLUMN CACHE_DIR}
cache=${3:?usage: imgfetch-array.sh CLASS COLUMN CACHE_DIR}
: "${PARSE_SERVER_URL:?export PARSE_SERVER_URL (and PARSE_APPLICATION_ID, PARSE_REST_API_KEY) before sbatch}"
: "${SLURM_ARRAY_TASK_ID:?run this with sbatch (it is a job array script)}"

shards=$((SLURM_ARRAY_TASK_MAX - SLURM_ARRAY_TASK_MIN + 1))
if [ "${SLURM_ARRAY_TASK_COUNT:-$shards}" -ne "$shards" ]; then
  echo "imgfetch-array.sh: the array must be a contiguous range (got ${SLURM_ARRAY_TASK_COUNT} tasks between ${SLURM_ARRAY_TASK_MIN} and ${SLURM_ARRAY_TASK_MAX})" >&2
  exit 1
fi
shard=$((SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN + 1))

# One JSON line per object on stdout (the .jsonl file); errors and the final count on stderr.
# Exit 2 means some objects failed (their lines carry "error"); rerun the array to retry: what was
# done is a cache hit.
exec imgfetch --class "$class" --column "$column" --shard "$shard/$shards" \
  --cache-dir "$cache" --thumbnail 256 --jobs "${SLURM_CPUS_PER_TASK:-4}" --json --progress never
