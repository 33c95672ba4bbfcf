import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SpeakerTurn, TranscriptionResult } from "../../protocol/transcription.ts";
import { buildExchange, synthesize, type Voice } from "../helpers/dialogue.ts";
import { byLabel } from "../helpers/diarize-sets.ts";
import { LocalPlatform } from "../helpers/local-platform.ts";
import { writeWav } from "../helpers/wav.ts";

/**
 * Enrolled speakers on the whole platform: two espeak-ng voices are enrolled through POST /v1/speakers
 * with reference clips of sentences they never say in the call, a call between them is transcribed as
 * an async job with known_speakers=all, and the real node's diarizer, profiling the enrolled clips when
 * the job runs, must name each voice's turns after it, beside the SPEAKER_nn labels.
 */

let dir: string;
let stack: LocalPlatform;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "voxedge-speakers-e2e-"));
  stack = await LocalPlatform.start();
  await stack.startNode();
}, 240_000);

afterAll(async () => {
  await stack?.stop();
  await rm(dir, { recursive: true, force: true });
});

const auth = () => ({ authorization: `Bearer ${stack.key}` });

/** A reference clip of `voice`: two sentences no turn of the call says, as a WAV file. */
async function referenceFile(voice: Voice, name: string): Promise<Blob> {
  const pcm = Float32Array.from(
    [
      ...(await synthesize("My garden is full of yellow roses this summer.", voice)),
      ...(await synthesize("The library closes early on public holidays.", voice)),
    ],
    (x) => x * voice.gain,
  );
  writeWav(join(dir, name), pcm);
  return new Blob([readFileSync(join(dir, name))], { type: "audio/wav" });
}

async function enrol(name: string, file: Blob): Promise<Response> {
  const form = new FormData();
  form.set("name", name);
  form.set("file", file, `${name}.wav`);
  return fetch(`${stack.url}/v1/speakers`, { method: "POST", headers: auth(), body: form });
}

async function waitForResult(taskId: string): Promise<TranscriptionResult> {
  for (let i = 0; i < 600; i++) {
    const response = await fetch(`${stack.url}/transcribe/${taskId}`, { headers: auth() });
    const view = (await response.json()) as {
      status: string;
      result: TranscriptionResult | null;
      error: string;
    };
    if (view.status === "done" && view.result) return view.result;
    if (view.status === "failed") throw new Error(`task failed: ${view.error}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error("task not done in 300 s");
}

/** Seconds of `reference` (one voice's turns) that `named` (result turns) overlap. */
function overlapSec(reference: readonly SpeakerTurn[], named: readonly SpeakerTurn[]): number {
  let total = 0;
  for (const a of reference)
    for (const b of named) total += Math.max(0, Math.min(a.end, b.end) - Math.max(a.start, b.start));
  return total;
}

describe("enrolled speakers with a real node", () => {
  it("names each enrolled voice's turns after it in an async job with known_speakers=all", async () => {
    const [agent, customer] = [byLabel("us-m3"), byLabel("us-f3")];
    for (const [name, voice] of [
      ["agent", agent],
      ["customer", customer],
    ] as const) {
      const response = await enrol(name, await referenceFile(voice, `${name}.wav`));
      expect(response.status).toBe(201);
    }
    const lines = [
      "Can we move the meeting to ten?",
      "Ten o'clock works fine for me.",
      "The train was late again today.",
      "I will send the numbers after lunch.",
    ];
    const call = await buildExchange(
      [agent, customer, agent, customer, agent].map((voice, i) => ({
        voice,
        text: lines[i % lines.length] ?? "",
        pause: 0.6,
      })),
    );
    writeWav(join(dir, "call.wav"), call.pcm);
    const form = new FormData();
    form.set("file", new Blob([readFileSync(join(dir, "call.wav"))], { type: "audio/wav" }), "call.wav");
    form.set("language", "en");
    form.set("known_speakers", "all");
    const accepted = await fetch(`${stack.url}/transcribe/upload`, {
      method: "POST",
      headers: auth(),
      body: form,
    });
    expect(accepted.status).toBe(200);
    const { task_id } = (await accepted.json()) as { task_id: string };
    const result = await waitForResult(task_id);

    const turns = result.speaker_turns ?? [];
    for (const turn of turns) expect(turn.speaker).toMatch(/^SPEAKER_\d+$/);
    for (const segment of result.segments) expect(segment.speaker ?? "SPEAKER_00").toMatch(/^SPEAKER_\d+$/);
    expect(result.segments.some((segment) => segment.speaker_name !== undefined)).toBe(true);
    const spoken = (label: string) => call.turns.filter((turn) => turn.speaker === label);
    const namedAs = (name: string) => turns.filter((turn) => turn.speaker_name === name);
    for (const [name, label, other] of [
      ["agent", "us-m3", "us-f3"],
      ["customer", "us-f3", "us-m3"],
    ] as const) {
      const own = spoken(label);
      const ownSec = own.reduce((sum, turn) => sum + turn.end - turn.start, 0);
      // most of the voice's speech carries its name, and none of the other voice's does
      expect(overlapSec(own, namedAs(name)) / ownSec).toBeGreaterThan(0.8);
      expect(overlapSec(spoken(other), namedAs(name))).toBeLessThan(0.5);
    }
  });

  it("refuses a job naming a voice nobody enrolled", async () => {
    const form = new FormData();
    form.set("file", new Blob([readFileSync(join(dir, "call.wav"))], { type: "audio/wav" }), "call.wav");
    form.set("language", "en");
    form.set("known_speakers", "agent,somebody");
    const response = await fetch(`${stack.url}/transcribe/upload`, {
      method: "POST",
      headers: auth(),
      body: form,
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { detail: string }).detail).toMatch(/"somebody"/);
  });
});
