/** Catalog previews are real, decodable files, one per catalog entry. */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { buildPreviews } from "../../inference-node/content/previews.ts";
import { EspeakSynthesizer } from "../../inference-node/content/tts/espeak.ts";
import { BACKGROUNDS, TEMPLATES, VOICES } from "../../protocol/content.ts";
import { probe } from "./content-helpers.ts";

let out: string;
beforeAll(async () => {
  out = await mkdtemp(join(tmpdir(), "content-previews-"));
});
afterAll(async () => {
  await rm(out, { recursive: true, force: true });
});

it("renders a thumbnail per background and template and a voice sample per voice", async () => {
  const manifest = await buildPreviews(out, {
    synthesizer: new EspeakSynthesizer(),
    tools: { ffmpeg: "ffmpeg" },
    signal: AbortSignal.timeout(120_000),
  });
  expect(manifest.backgrounds.map((b) => b.bg_id)).toEqual(BACKGROUNDS.map((b) => b.bg_id));
  expect(manifest.templates.map((t) => t.template_id)).toEqual(TEMPLATES.map((t) => t.template_id));
  expect(manifest.voices.map((v) => v.voice_id)).toEqual(VOICES.map((v) => v.voice_id));
  expect(JSON.parse(await readFile(join(out, "manifest.json"), "utf8"))).toEqual(manifest);

  for (const { file } of [...manifest.backgrounds, ...manifest.templates]) {
    const image = probe(join(out, file)).streams[0];
    expect(image?.codec_name).toBe("png");
    expect(Math.max(image?.width ?? 0, image?.height ?? 0)).toBe(480);
  }
  for (const { file } of manifest.voices) {
    const sample = probe(join(out, file));
    expect(sample.streams.map((s) => s.codec_name)).toEqual(["mp3"]);
    expect(sample.duration).toBeGreaterThan(1.5);
  }
});
