import * as ort from "onnxruntime-node";
import { SILERO_MODEL_PATH } from "../inference-node/vad/silero.ts";
const variants: Record<string, ort.InferenceSession.SessionOptions> = {
  base: { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: "sequential" },
  all: { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: "sequential", graphOptimizationLevel: "all" },
  basic: { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: "sequential", graphOptimizationLevel: "basic" },
  nospin: { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: "sequential", extra: { session: { intra_op: { allow_spinning: "0" } } } },
};
const input = new Float32Array(576).map((_, i) => Math.sin(i / 7) * 0.3);
for (const [name, opts] of Object.entries(variants)) {
  const s = await ort.InferenceSession.create(SILERO_MODEL_PATH, opts);
  const sr = new ort.Tensor("int64", BigInt64Array.from([16000n]), []);
  let state = new ort.Tensor("float32", new Float32Array(256), [2, 1, 128]);
  const handler = (s as any).handler;
  for (let r = 0; r < 3; r++) {
    let t = performance.now();
    for (let i = 0; i < 300; i++) {
      const out = await s.run({ input: new ort.Tensor("float32", input.slice(), [1, 576]), state, sr });
      state = out.stateN as ort.Tensor;
    }
    const a = (performance.now() - t) / 300;
    t = performance.now();
    for (let i = 0; i < 300; i++) {
      const out = handler && (await handler.run({ input: new ort.Tensor("float32", input.slice(), [1, 576]), state, sr }, { output: null, stateN: null }, {}));
    }
    const b = (performance.now() - t) / 300;
    console.log(name, `session.run ${(a * 1000).toFixed(0)} us, handler.run ${(b * 1000).toFixed(0)} us`);
  }
}
