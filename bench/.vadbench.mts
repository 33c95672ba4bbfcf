import { SileroVad } from "../inference-node/vad/silero.ts";
const vad = await SileroVad.load();
const pcm = new Float32Array(16000*5).map((_, i) => Math.sin(i/7) * 0.3 * (Math.floor(i/8000)%2));
for (let round = 0; round < 5; round++) {
  const s = vad.stream();
  const t = performance.now();
  let n = 0;
  for (let at = 0; at + 512 <= pcm.length; at += 512) { await s.isSpeech(pcm.subarray(at, at+512)); n++; }
  const ms = performance.now() - t;
  console.log(`frames ${n} total ${ms.toFixed(1)} ms, ${(ms/n*1000).toFixed(0)} us/frame`);
}
