/**
 * `tsx scripts/build-previews.ts OUTDIR`: renders the content catalog's previews (background and
 * template thumbnails, voice samples) into OUTDIR with manifest.json. Uses the node's environment
 * (FFMPEG_PATH, VOXEDGE_TTS_URL, ...), so voice samples come from the engine the node would use.
 */
import { renderToolsFromEnv } from "../inference-node/content/ffmpeg.ts";
import { buildPreviews } from "../inference-node/content/previews.ts";
import { synthesizerFromEnv } from "../inference-node/content/tts/index.ts";

const outDir = process.argv[2];
if (!outDir) {
  console.error("usage: tsx scripts/build-previews.ts OUTDIR");
  process.exit(2);
}
const tools = renderToolsFromEnv(process.env);
const manifest = await buildPreviews(outDir, {
  tools,
  synthesizer: synthesizerFromEnv(process.env, tools.ffmpeg),
  signal: AbortSignal.timeout(300_000),
});
const count = manifest.backgrounds.length + manifest.templates.length + manifest.voices.length;
console.log(`wrote ${count} previews and manifest.json to ${outDir}`);
