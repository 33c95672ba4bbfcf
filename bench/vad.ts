/**
 * Group `vad`: Silero VAD v5 (ours) beside the energy detector (the reference) on the sets of
 * bench/vad-sets.ts, the two interleaved case by case (the order alternates: energy first on even
 * cases, Silero first on odd ones) in one run. Figures, `ours` = Silero, `reference` = energy:
 *
 * - `vad.frame_accuracy_<set>`: speech/non-speech agreement on 10 ms frames, pooled over the cases (each
 *   10 ms frame takes the decision of the VAD frame holding its centre: Silero decides per 32 ms,
 *   energy per 10 ms); the note gives the figure without the frames within 0.1 s of a turn edge;
 * - `vad.der_<set>`: DER (no collar, pooled) of the diarizer fed as a transcription feeds it
 *   (pipeline/speech-stream.ts, which is what `VOXEDGE_VAD` switches);
 * - `vad.live_final_p50|p95`: end of speech → live final, on the live engine (inference-node/live,
 *   synthetic base model, 2 threads), per utterance end of dialogues re-laid with 1.5 s pauses, clean
 *   and at 10 dB SNR, streamed in 100 ms chunks at real time (`--vad-live-speedup` feeds faster). The
 *   latency is the audio time from the true speech end to the sample at which the segmenter closes
 *   the utterance ("cut"), plus the wall time from sending the chunk holding that sample to the
 *   final's arrival ("decode"); at real time their sum is what a user waits. An end counts as closed
 *   by the first final (sent before the client's `end`) that spans it, or ends at most 0.3 s before it;
 * - `vad.false_finals_per_min_<noise>` over pure pink noise, a music bed, and silence (digital + -60
 *   dBFS), fed at 4x real time, with the characters of transcript text (interims and finals) in the
 *   note; a final dropped because decoding fell behind counts as a final;
 * - `vad.decode_ms_half_silent`: decode wall time of a file that is half silence with non-speech
 *   skipping (Silero; `VOXEDGE_VAD_SKIP_SEC` = 2) against decoding every sample; the energy run, which
 *   never skips by design, is in the note.
 *
 * Flags (after `npm run bench -- vad`): `--vad-cases=N` dialogues for the frame and DER sets (8),
 * `--vad-live-cases=N` (2), `--vad-noise-min=M` minutes of each noise (1), `--vad-rounds=R` decode
 * rounds (2), `--vad-live-speedup=X` (1).
 */

import { diarizationErrorRate } from "../inference-node/diarize/index.ts";
import { DEFAULT_LIVE_OPTIONS } from "../inference-node/live/options.ts";
import { LiveTranscriber } from "../inference-node/live/transcriber.ts";
import { decodeStream } from "../inference-node/pipeline/decode-stream.ts";
import { speechStream } from "../inference-node/pipeline/speech-stream.ts";
import { SileroVad } from "../inference-node/vad/silero.ts";
import {
  EnergyVoiceActivity,
  speechFrames,
  type VoiceActivity,
} from "../inference-node/vad/voice-activity.ts";
import { loadModel, type WhisperModel } from "../native/index.ts";
import { ensureSyntheticModel } from "../native/model/synthetic.ts";
import type { Dialogue } from "../test/helpers/dialogue.ts";
import { evaluationCases } from "../test/helpers/diarize-sets.ts";
import { musicBed } from "../test/helpers/music-bed.ts";
import { median, percentile } from "./stats.ts";
import { type BenchGroup, type BenchResult, result } from "./types.ts";
import {
  concat,
  type FrameScore,
  pinkAt,
  RATE,
  scaleTo,
  scoreFrames,
  spacedOut,
  VARIANTS,
  type Variant,
  variantOf,
  whiteAt,
} from "./vad-sets.ts";

const log = (msg: string) => process.stderr.write(`vad: ${msg}\n`);
const CHUNK = RATE / 10; // 100 ms, as a live client sends
const LIVE_PAUSE_SEC = 1.5;
/** Pure noise is fed this many times faster than real time: only the count of finals matters there. */
const NOISE_SPEEDUP = 4;
/** A final ending this much before a reference turn end still closes that turn (a soft last phoneme). */
const END_TOLERANCE_SEC = 0.3;

function flag(name: string, fallback: number): number {
  const arg = process.argv.find((a) => a.startsWith(`--vad-${name}=`));
  const value = arg ? Number(arg.split("=")[1]) : fallback;
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`bench vad: --vad-${name} must be a positive number`);
  return value;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function* chunks(pcm: Float32Array, size = 4000): AsyncGenerator<Float32Array> {
  for (let at = 0; at < pcm.length; at += size) yield pcm.slice(at, at + size);
}

/** The diarization corpus' dialogues, taken from its sets in turn (its noisy and long sets excluded). */
async function dialogues(count: number): Promise<{ name: string; dialogue: Dialogue }[]> {
  const bySet = ["short", "three", "mixed", "single"].map((set) =>
    evaluationCases().filter((c) => c.set === set),
  );
  const picked = [];
  for (let i = 0; picked.length < count && i < 20; i++)
    for (const cases of bySet) if (cases[i] && picked.length < count) picked.push(cases[i]!);
  return Promise.all(picked.map(async (c) => ({ name: c.name, dialogue: await c.build() })));
}

/** Energy and Silero in the order of case `index`: A B, then B A. */
const ordered = (vads: [VoiceActivity, VoiceActivity], index: number) =>
  index % 2 === 0 ? vads : ([vads[1], vads[0]] as const);

const pct = (n: number, d: number) => (d > 0 ? (100 * n) / d : Number.NaN);

function addScore(into: FrameScore | undefined, s: FrameScore): FrameScore {
  if (!into) return { ...s };
  for (const key of Object.keys(s) as (keyof FrameScore)[]) into[key] += s[key];
  return into;
}

async function diarizationTurns(vad: VoiceActivity, pcm: Float32Array) {
  const speech = speechStream(chunks(pcm), { vad, diarize: true, skip: null });
  for await (const _ of speech.pcm);
  return speech.finishDiarization() ?? [];
}

interface LiveRun {
  latencies: number[];
  /** Per closed end: audio time from the true end to the segmenter's cut, and wall time from there to the final. */
  endpointing: number[];
  processing: number[];
  ends: number;
  /** Finals sent, and those dropped because decoding fell behind (each an utterance the VAD cut). */
  finals: number;
  textChars: number;
}

/**
 * Streams `dialogue` through a live engine with `vad` at `speedup` times real time and scores every
 * reference turn end against the finals sent before the client's `end`.
 */
async function liveRun(
  model: WhisperModel,
  vad: VoiceActivity,
  dialogue: Dialogue,
  speedup: number,
): Promise<LiveRun> {
  const decoders = { interim: await model.createStream(), final: await model.createStream() };
  let dropped = 0;
  const arrivals: { type: string; start: number; end: number; text: string; at: number }[] = [];
  const options = { ...DEFAULT_LIVE_OPTIONS, maxTokens: 16 };
  const t = new LiveTranscriber(
    decoders,
    {
      send: (m) => {
        // a final dropped because decoding fell behind still was a cut utterance: counted as a final
        if (m.type === "error" && m.message.startsWith("decoding fell behind")) dropped++;
        if (m.type === "error") log(`live engine error: ${m.message}`);
        else arrivals.push({ type: m.type, start: m.start, end: m.end, text: m.text, at: performance.now() });
      },
    },
    options,
    "en",
    vad,
  );
  const sentAt: number[] = [];
  const wallPerChunk = 100 / speedup;
  const began = performance.now();
  for (let at = 0, k = 0; at < dialogue.pcm.length; at += CHUNK, k++) {
    const due = began + k * wallPerChunk;
    if (due > performance.now()) await sleep(due - performance.now());
    sentAt.push(performance.now());
    t.push(dialogue.pcm.subarray(at, at + CHUNK));
  }
  // finals the engine sends by itself: wait until none has come for 3 s (or 60 s in all)
  for (let waited = 0, count = -1; waited < 60_000; waited += 3_000) {
    if (count === arrivals.length) break;
    count = arrivals.length;
    await sleep(3_000);
  }
  const endpointed = arrivals.filter((a) => a.type === "final");
  await t.flush();
  t.close();
  await Promise.all([decoders.interim.dispose(), decoders.final.dispose()]);

  const frame = vad.stream().frameSamples;
  const silenceMs = vad.kind === "silero" ? options.vadSilenceMs : options.silenceMs;
  const hangover = Math.ceil(silenceMs / ((frame * 1000) / RATE)) * frame;
  const latencies: number[] = [];
  const endpointing: number[] = [];
  const processing: number[] = [];
  for (const turn of dialogue.turns) {
    const final = endpointed.find((f) => f.start <= turn.end && f.end >= turn.end - END_TOLERANCE_SEC);
    if (!final) continue;
    const endpoint = Math.round(final.end * RATE) + hangover; // the sample at which the segmenter closed it
    const sent = sentAt[Math.min(sentAt.length - 1, Math.floor((endpoint - 1) / CHUNK))] ?? Number.NaN;
    endpointing.push(endpoint / RATE - turn.end);
    processing.push((final.at - sent) / 1000);
    latencies.push(endpoint / RATE - turn.end + (final.at - sent) / 1000);
  }
  return {
    latencies,
    endpointing,
    processing,
    ends: dialogue.turns.length,
    finals: arrivals.filter((a) => a.type === "final").length + dropped,
    textChars: arrivals.reduce((n, a) => n + a.text.trim().length, 0),
  };
}

export const vad: BenchGroup = async () => {
  const cases = flag("cases", 8);
  const liveCases = flag("live-cases", 2);
  const noiseMin = flag("noise-min", 1);
  const rounds = flag("rounds", 2);
  const speedup = flag("live-speedup", 1);
  const energy = new EnergyVoiceActivity();
  const silero = await SileroVad.load();
  const pair: [VoiceActivity, VoiceActivity] = [energy, silero];
  const beds = { music: await musicBed() };
  const corpus = await dialogues(Math.max(cases, liveCases));
  const results: BenchResult[] = [];
  const minutes = corpus.slice(0, cases).reduce((n, c) => n + c.dialogue.seconds / 60, 0);
  log(`${cases} dialogues, ${minutes.toFixed(1)} min; sets ${VARIANTS.join(", ")}`);

  // Frame accuracy and DER, per set.
  for (const variant of VARIANTS) {
    const scores = new Map<string, FrameScore>();
    const der = new Map<string, { errors: number; total: number; missed: number; turns: number }>();
    const snrs: number[] = [];
    for (const [index, { dialogue }] of corpus.slice(0, cases).entries()) {
      const { dialogue: audio, snrDb } = variantOf(dialogue, variant, beds, 700 + index);
      if (snrDb !== null) snrs.push(snrDb);
      for (const v of ordered(pair, index)) {
        const flags = await speechFrames(v, audio.pcm);
        const frame = v.stream().frameSamples;
        scores.set(
          v.kind,
          addScore(scores.get(v.kind), scoreFrames(flags, frame, audio.turns, audio.pcm.length)),
        );
        if (variant === "silences") continue; // the diarizer's figures on it are those of `clean`
        const hypothesis = await diarizationTurns(v, audio.pcm);
        const d = diarizationErrorRate(audio.turns, hypothesis);
        const sum = der.get(v.kind) ?? { errors: 0, total: 0, missed: 0, turns: 0 };
        der.set(v.kind, {
          errors: sum.errors + d.missed + d.falseAlarm + d.confusion,
          total: sum.total + d.total,
          missed: sum.missed + d.missed,
          turns: sum.turns + hypothesis.length,
        });
      }
    }
    const s = scores.get("silero")!;
    const e = scores.get("energy")!;
    const snr =
      snrs.length > 0
        ? `measured SNR ${Math.min(...snrs).toFixed(1)}..${Math.max(...snrs).toFixed(1)} dB; `
        : "";
    results.push(
      result(
        `vad.frame_accuracy_${variant}`,
        pct(s.correct, s.frames),
        pct(e.correct, e.frames),
        "%",
        `${snr}${(s.frames / 6000).toFixed(1)} min in 10 ms frames; miss/FA silero ${pct(s.missed, s.frames).toFixed(1)}/` +
          `${pct(s.falseAlarm, s.frames).toFixed(1)}%, energy ${pct(e.missed, e.frames).toFixed(1)}/` +
          `${pct(e.falseAlarm, e.frames).toFixed(1)}%; beyond 0.1 s of an edge: silero ` +
          `${pct(s.collaredCorrect, s.collaredFrames).toFixed(1)}%, energy ${pct(e.collaredCorrect, e.collaredFrames).toFixed(1)}%`,
      ),
    );
    if (variant !== "silences") {
      const ds = der.get("silero")!;
      const de = der.get("energy")!;
      results.push(
        result(
          `vad.der_${variant}`,
          pct(ds.errors, ds.total),
          pct(de.errors, de.total),
          "%",
          `no collar, pooled over ${cases} dialogues; missed speech silero ${pct(ds.missed, ds.total).toFixed(1)}%, ` +
            `energy ${pct(de.missed, de.total).toFixed(1)}%; turns found silero ${ds.turns}, energy ${de.turns}`,
        ),
      );
    }
    log(`frames and DER: ${variant} done`);
  }

  // Live: end of speech -> final, clean and at 10 dB SNR.
  const model = await loadModel(await ensureSyntheticModel("base"), { threads: 2 });
  try {
    const live = new Map<string, LiveRun>();
    for (const [index, { dialogue }] of corpus.slice(0, liveCases).entries()) {
      const spaced = spacedOut(dialogue, LIVE_PAUSE_SEC, 900 + index);
      for (const variant of ["clean", "snr10"] as Variant[]) {
        const audio = variantOf(spaced, variant, beds, 950 + index).dialogue;
        for (const v of ordered(pair, index)) {
          const run = await liveRun(model, v, audio, speedup);
          const sum = live.get(v.kind) ?? {
            latencies: [],
            endpointing: [],
            processing: [],
            ends: 0,
            finals: 0,
            textChars: 0,
          };
          live.set(v.kind, {
            latencies: [...sum.latencies, ...run.latencies],
            endpointing: [...sum.endpointing, ...run.endpointing],
            processing: [...sum.processing, ...run.processing],
            ends: sum.ends + run.ends,
            finals: sum.finals + run.finals,
            textChars: 0,
          });
        }
      }
      log(`live: dialogue ${index + 1}/${liveCases} done`);
    }
    const ls = live.get("silero")!;
    const le = live.get("energy")!;
    const split = (r: LiveRun, p: number) =>
      `cut ${percentile(r.endpointing, p).toFixed(2)} + decode ${percentile(r.processing, p).toFixed(2)} s`;
    const note = (p: number) =>
      `${liveCases} dialogues clean + 10 dB SNR, 1.5 s pauses, fed at ${speedup}x real time; closed ends silero ` +
      `${ls.latencies.length}/${ls.ends}, energy ${le.latencies.length}/${le.ends}; p${p} of parts: silero ` +
      `${split(ls, p)}, energy ${split(le, p)} (hangover silero ${DEFAULT_LIVE_OPTIONS.vadSilenceMs} ms, energy ` +
      `${DEFAULT_LIVE_OPTIONS.silenceMs} ms); target p50 <= 0.8 s`;
    for (const p of [50, 95])
      results.push(
        result(
          `vad.live_final_p${p}`,
          percentile(ls.latencies, p),
          percentile(le.latencies, p),
          "s",
          note(p),
        ),
      );

    // Pure noise and silence: no final, no text.
    const noiseSec = noiseMin * 60;
    const noises: Record<string, Float32Array> = {
      pink: pinkAt(noiseSec, -25, 11),
      music: scaleTo(
        concat(Array.from({ length: Math.ceil(noiseSec / 8) }, () => beds.music)).subarray(
          0,
          noiseSec * RATE,
        ),
        -25,
      ),
      silence: concat([new Float32Array((noiseSec / 2) * RATE), whiteAt(noiseSec / 2, -60, 12)]),
    };
    for (const [index, [name, pcm]] of Object.entries(noises).entries()) {
      const runs = new Map<string, LiveRun>();
      for (const v of ordered(pair, index))
        runs.set(
          v.kind,
          await liveRun(model, v, { pcm, turns: [], seconds: pcm.length / RATE }, NOISE_SPEEDUP),
        );
      const s = runs.get("silero")!;
      const e = runs.get("energy")!;
      results.push(
        result(
          `vad.false_finals_per_min_${name}`,
          s.finals / noiseMin,
          e.finals / noiseMin,
          "finals/min",
          `${noiseMin} min ${name === "silence" ? "digital silence then -60 dBFS white noise" : `${name} at -25 dBFS`}; ` +
            `transcript text: silero ${s.textChars} chars, energy ${e.textChars} chars; target 0 and 0`,
        ),
      );
      log(`noise: ${name} done`);
    }

    // Decode time saved on a half-silent file.
    const speech = corpus.slice(0, 2).map((c) => c.dialogue.pcm);
    const halfSilent = concat(speech.flatMap((pcm, i) => [pcm, whiteAt(pcm.length / RATE, -60, 20 + i)]));
    const request = { language: "en", translate: false, context: "", maxTokens: 16, temperatureInc: 0 };
    const configs = [
      { name: "all", vad: silero as VoiceActivity, skip: 0 },
      { name: "energy", vad: energy as VoiceActivity, skip: 2 },
      { name: "silero", vad: silero as VoiceActivity, skip: 2 },
    ];
    const times = new Map<string, number[]>();
    let skippedSec = 0;
    /** whisper windows per configuration: each costs a full 30 s encoder pass however short it is */
    const windows = new Map<string, number>();
    for (let round = 0; round < rounds; round++) {
      for (let i = 0; i < configs.length; i++) {
        const c = configs[(i + round) % configs.length]!;
        const stream = speechStream(chunks(halfSilent), {
          vad: c.vad,
          diarize: false,
          skip: c.skip > 0 ? { minGapSec: c.skip } : null,
        });
        const run = await decodeStream(model, stream.pcm, {
          ...request,
          ...(stream.timeMap && { timeMap: stream.timeMap }),
          signal: new AbortController().signal,
        });
        if (stream.timeMap) skippedSec = (stream.timeMap.originalSamples - stream.timeMap.keptSamples) / RATE;
        times.set(c.name, [...(times.get(c.name) ?? []), run.asrMs]);
        windows.set(c.name, run.stages.windows);
      }
    }
    const sec = halfSilent.length / RATE;
    results.push(
      result(
        "vad.decode_ms_half_silent",
        median(times.get("silero")!),
        median(times.get("all")!),
        "ms",
        `${sec.toFixed(0)} s file, half -60 dBFS silence; silero skipped ${skippedSec.toFixed(1)} s; reference = every ` +
          `sample decoded; energy (never skips) ${median(times.get("energy")!).toFixed(0)} ms; whisper windows ` +
          `silero ${windows.get("silero")}, all ${windows.get("all")}; median of ${rounds}, synthetic base, 2 threads`,
      ),
    );
  } finally {
    model.dispose();
  }
  return results;
};
