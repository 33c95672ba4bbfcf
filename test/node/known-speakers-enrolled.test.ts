import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadKnownVoices } from "../../inference-node/pipeline/known-speakers.ts";
import { WorkerClient } from "../../inference-node/worker-client.ts";
import type { LeaseOf } from "../../protocol/node.ts";
import type { KnownSpeaker } from "../../protocol/transcribe-params.ts";
import { writeWav } from "../helpers/wav.ts";
import { repeatTo, SENTENCE, speechPcm } from "../native/audio.ts";

/**
 * An enrolled speaker's clip on the node: read through the lease from a real HTTP server on loopback,
 * decoded by the real media path and profiled. An enrolled clip may be 2-30 s (a compatible call's
 * reference 2-10 s), and one deleted after its job was queued fails the job by name.
 */

let dir: string;
let server: Server;
let client: WorkerClient;
/** The clip each speaker index answers with; a missing index is a 404, as the Worker answers it. */
const clips = new Map<string, Buffer>();

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "voxedge-enrolled-"));
  const speech = await speechPcm(SENTENCE);
  writeWav(join(dir, "25s.wav"), repeatTo(speech, 25));
  clips.set("0", readFileSync(join(dir, "25s.wav")));
  server = createServer((req, res) => {
    const clip = clips.get(req.url?.split("/").pop() ?? "");
    res.writeHead(clip ? 200 : 404, { "content-type": clip ? "audio/wav" : "application/json" });
    res.end(clip ?? JSON.stringify({ detail: "media not found", code: "not_found" }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  client = new WorkerClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, "token");
}, 60_000);

afterAll(async () => {
  server?.close();
  await rm(dir, { recursive: true, force: true });
});

function load(known: KnownSpeaker[], onData?: () => void) {
  const lease = {
    lease_id: "lease-1",
    params: { known_speakers: known },
  } as unknown as LeaseOf<"transcribe">;
  return loadKnownVoices(lease, {
    client,
    maxBytes: 64 * 1024 * 1024,
    downloadMaxMs: 60_000,
    allowlist: new Set(),
    tempDir: dir,
    signal: new AbortController().signal,
    onData,
  });
}

describe("enrolled speakers on the node", () => {
  it("profiles a 25 s enrolled clip, which a compatible call's reference may not be", async () => {
    let chunks = 0;
    const [voice] = await load(
      [{ name: "agent", object_key: "speakers/k/spk_1", enrolled: true }],
      () => chunks++,
    );
    expect(voice).toMatchObject({ name: "agent", enrolled: true });
    // each chunk of the clip's download is a sign of life for the node's stall limit
    expect(chunks).toBeGreaterThan(0);
    await expect(load([{ name: "agent", object_key: "known-speakers/u/0" }])).rejects.toMatchObject({
      code: "speaker_reference_invalid",
      message: expect.stringMatching(
        /^known_speaker_references\[0\] could not be decoded: .* longer than the 10\.25 s limit/,
      ),
    });
  });

  it("fails the job by the voice's name when its clip was deleted after the job was queued", async () => {
    await expect(
      load([
        { name: "agent", object_key: "speakers/k/spk_1", enrolled: true },
        { name: "customer", object_key: "speakers/k/spk_2", enrolled: true },
      ]),
    ).rejects.toMatchObject({
      code: "speaker_reference_invalid",
      message: 'enrolled speaker "customer" was deleted after this job was queued',
    });
  });
});
