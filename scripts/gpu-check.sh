#!/usr/bin/env bash
# The CUDA figures of docs/native.md, on a machine with an NVIDIA GPU: builds the addon and
# whisper.cpp's reference tools (bench/whisper-tools.ts) with the CUDA backend, side by side, lists the
# cards as the addon sees them beside nvidia-smi, measures the GPU memory the node would report idle and
# with the base model loaded, then runs the `decode` bench group on the GPU build.
#
# Needs node_modules (npm ci), cmake, the CUDA toolkit (nvcc, cuBLAS) and the driver. The bench audio is
# spoken by espeak-ng unless bench/.cache/audio already holds it (copy it from a machine that has it).
# Usage: bash scripts/gpu-check.sh [output folder, default bench/.cache/gpu]
# Environment: VOXEDGE_CUDA_ARCHS (default "native": the cards in this machine), DECODE_BENCH_ROUNDS,
# DECODE_BENCH_CLIPS (bench/decode.ts).
set -uo pipefail
out=${1:-bench/.cache/gpu}
mkdir -p "$out"
export VOXEDGE_CUDA=1 VOXEDGE_CUDA_ARCHS=${VOXEDGE_CUDA_ARCHS:-native}

nvidia-smi --query-gpu=name,memory.used,memory.free,memory.total,driver_version --format=csv | tee "$out/nvidia-smi.csv"

started=$SECONDS
node scripts/build-native.mjs --force >"$out/build-addon.log" 2>&1 &
addon=$!
node --import tsx -e 'import("./bench/whisper-tools.ts").then((m) => m.whisperTools(console.error))' \
  >"$out/build-tools.log" 2>&1 &
tools=$!
node --import tsx native/model/synthetic.ts base >"$out/model.log" 2>&1 &
model=$!
failed=0
for job in "addon:$addon:build-addon" "tools:$tools:build-tools" "model:$model:model"; do
  IFS=: read -r name pid log <<<"$job"
  if ! wait "$pid"; then
    echo "gpu-check: $name failed; the end of $out/$log.log:" >&2
    tail -40 "$out/$log.log" >&2
    failed=1
  fi
done
echo "gpu-check: builds and model took $((SECONDS - started)) s"
[ "$failed" = 0 ] || exit 1

# gpuDevices() idle, with the synthetic base model loaded, and the cost of one call (docs/native.md "GPU memory")
node --import tsx -e '
import("./native/index.ts").then(async (n) => {
  const gib = (b) => (b / 2 ** 30).toFixed(2);
  const show = (label, devices) =>
    console.log(`${label}: ${JSON.stringify(devices)} gpu_free_gb=${n.freeGpuGb(devices)} (free ${devices.map((d) => gib(d.freeBytes)).join("+")} GiB)`);
  show("idle", n.gpuDevices());
  const model = await n.loadModel("models/synthetic-base.bin", { threads: 2 });
  show("base loaded", n.gpuDevices());
  await model.transcribe(new Float32Array(16000 * 5), { language: "en" });
  show("after one decode (its state kept for reuse)", n.gpuDevices());
  const calls = 1000;
  const t0 = performance.now();
  for (let i = 0; i < calls; i++) n.gpuDevices();
  console.log(`one gpuDevices() call: ${(((performance.now() - t0) / calls) * 1000).toFixed(1)} us (mean of ${calls})`);
  await model.dispose();
});' 2>&1 | tee "$out/gpu-memory.txt"
nvidia-smi --query-gpu=memory.used,memory.free --format=csv | tee -a "$out/nvidia-smi.csv"

node --import tsx bench/run.ts decode 2>&1 | tee "$out/decode.txt"
cp bench/results.json "$out/decode.json"
