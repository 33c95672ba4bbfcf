import { describe, expect, it } from "vitest";
import { DecodeGate } from "../../inference-node/live/decode-gate.ts";
import { fitAudioCtx, liveTokenBudget, MIN_AUDIO_CTX } from "../../inference-node/live/decode-policy.ts";
import { DEFAULT_LIVE_OPTIONS, type LiveOptions } from "../../inference-node/live/options.ts";
import { LiveTranscriber, type TranscriberSink } from "../../inference-node/live/transcriber.ts";
import type { ServerMessage } from "../../protocol/live.ts";
import { concat, FakeDecoder, feed, quiet, SR, sleep, tone } from "./live-helpers.ts";

const WORDS = "one two three four five six seven eight nine ten eleven twelve".split(" ");

let decodes = 0;
/** Two words per second of audio heard, plus a last word that differs from one decode to the next. */
function growing(samples: number): string {
  const n = Math.max(1, Math.floor((samples / SR) * 2));
  return [...WORDS.slice(0, n), decodes++ % 2 === 0 ? "uh" : "um"].join(" ");
}

function engine(
  options: Partial<LiveOptions> = {},
  decoders?: { interim: FakeDecoder; final: FakeDecoder },
  gate?: DecodeGate,
) {
  const messages: ServerMessage[] = [];
  const d = decoders ?? { interim: new FakeDecoder(growing), final: new FakeDecoder(growing) };
  const sink: TranscriberSink = { send: (m) => messages.push(m) };
  const t = new LiveTranscriber(d, sink, { ...DEFAULT_LIVE_OPTIONS, ...options }, "auto", undefined, gate);
  const of = <T extends ServerMessage["type"]>(type: T) =>
    messages.filter((m): m is Extract<ServerMessage, { type: T }> => m.type === type);
  return { t, d, messages, of };
}

describe("LiveTranscriber", () => {
  it("sends settled interims that only grow, then a post-processed final at the pause", async () => {
    const final = new FakeDecoder((n) => `${growing(n)} [Music]`);
    const { t, of } = engine({}, { interim: new FakeDecoder(growing), final });
    await feed((c) => t.push(c), concat(quiet(500), tone(3000), quiet(1000)));
    await t.flush();

    const interims = of("interim");
    expect(interims.length).toBeGreaterThanOrEqual(3);
    for (const [i, m] of interims.entries()) {
      expect(m.text).not.toMatch(/\b(uh|um)\b/); // the flickering tail word is never settled
      if (i > 0) expect(m.text.startsWith(interims[i - 1]?.text ?? "")).toBe(true);
      expect(m.start).toBeCloseTo(0.5, 1);
      expect(m.end).toBeGreaterThan(m.start);
    }
    const finals = of("final");
    expect(finals).toHaveLength(1);
    expect(finals[0]?.text).not.toMatch(/music/i); // markers removed as in file jobs
    expect(finals[0]).toMatchObject({
      language: "en",
      start: expect.closeTo(0.5, 1),
      end: expect.closeTo(3.5, 1),
    });
  });

  it("decodes nothing at all while nobody speaks", async () => {
    const { t, d, messages } = engine();
    await feed((c) => t.push(c), quiet(3000));
    await t.flush();
    expect(d.interim.calls.length + d.final.calls.length).toBe(0);
    expect(messages).toEqual([]);
  });

  it("drops a silence hallucination from the finals", async () => {
    const doubtful = new FakeDecoder(() => "Thanks for watching!", 1, 0.9);
    const { t, of } = engine({}, { interim: new FakeDecoder(growing), final: doubtful });
    await feed((c) => t.push(c), concat(quiet(300), tone(1000), quiet(1000)));
    await t.flush();
    expect(of("final")).toEqual([]);
  });

  it("sizes the encoder context to the audio (auto), with a floor, and uses the full window past ~28 s", () => {
    expect(fitAudioCtx(SR)).toBe(MIN_AUDIO_CTX);
    expect(fitAudioCtx(6 * SR)).toBe(384);
    expect(fitAudioCtx(10 * SR)).toBe(576);
    expect(fitAudioCtx(29 * SR)).toBe(0);
  });

  it("detects the language once per utterance and reuses it; config switches the next decodes", async () => {
    const { t, d } = engine();
    await feed((c) => t.push(c), concat(quiet(300), tone(1500), quiet(900)));
    await t.flush();
    const languages = [...d.interim.calls, ...d.final.calls]
      .sort((a, b) => a.startedAt - b.startedAt)
      .map((c) => c.options.language);
    expect(languages[0]).toBe("auto");
    expect(languages.slice(1).every((l) => l === "en")).toBe(true);

    t.setLanguage("de");
    await feed((c) => t.push(c), concat(tone(1000), quiet(900)));
    await t.flush();
    expect(d.final.calls.at(-1)?.options.language).toBe("de");
  });

  it("keeps a running utterance's language when config changes mid-utterance; the next one uses it", async () => {
    const { t, d, of } = engine();
    t.setLanguage("en");
    await feed((c) => t.push(c), concat(quiet(300), tone(1200)));
    t.setLanguage("de"); // mid-utterance
    await feed((c) => t.push(c), concat(tone(600), quiet(900), tone(1000), quiet(900)));
    await t.flush();
    const finals = of("final");
    expect(finals.map((f) => f.language)).toEqual(["en", "de"]);
    expect(d.final.calls.map((c) => c.options.language)).toEqual(["en", "de"]);
  });

  it("gives every utterance an id that its interims and its final share", async () => {
    const { t, messages } = engine();
    await feed((c) => t.push(c), concat(quiet(300), tone(2500), quiet(900), tone(2500), quiet(900)));
    await t.flush();
    const ids = messages.map((m) =>
      m.type === "error" ? null : (m as unknown as { utterance_id: string }).utterance_id,
    );
    const finals = messages.flatMap((m, i) => (m.type === "final" ? [i] : []));
    expect(finals).toHaveLength(2);
    const [first, second] = finals as [number, number];
    expect(new Set(ids.slice(0, first + 1)).size).toBe(1);
    expect(new Set(ids.slice(first + 1, second + 1)).size).toBe(1);
    expect(ids[first]).not.toBe(ids[second]);
    expect(ids[first]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("flush makes the final of unfinished speech and resolves once it is sent", async () => {
    const { t, of } = engine();
    await feed((c) => t.push(c), concat(quiet(300), tone(1200)));
    expect(of("final")).toHaveLength(0);
    await t.flush();
    expect(of("final")).toHaveLength(1);
  });

  it("cuts utterances at the maximum length, so the audio a session holds is bounded", async () => {
    const { t, d, of } = engine({ maxUtteranceMs: 2000 });
    await feed((c) => t.push(c), concat(quiet(200), tone(7000), quiet(1000)));
    await t.flush();
    expect(of("final").length).toBeGreaterThanOrEqual(4);
    for (const call of [...d.interim.calls, ...d.final.calls])
      expect(call.samples).toBeLessThanOrEqual(2.5 * SR);
  });

  it("sends nothing after close", async () => {
    const { t, messages } = engine();
    await feed((c) => t.push(c), concat(quiet(300), tone(1500)));
    const before = messages.length;
    t.close();
    t.push(tone(500));
    await t.flush();
    await sleep(20);
    expect(messages.length).toBe(before);
  });
});

describe("LiveTranscriber encodes only what was heard", () => {
  it("sizes every decode's encoder context to its buffer with auto, and asks for the full window with off", async () => {
    const auto = engine();
    await feed((c) => auto.t.push(c), concat(quiet(300), tone(2500), quiet(900)));
    await auto.t.flush();
    const calls = [...auto.d.interim.calls, ...auto.d.final.calls];
    expect(calls.length).toBeGreaterThan(1);
    for (const call of calls) expect(call.options.audioCtx).toBe(fitAudioCtx(call.samples));

    const off = engine({ audioCtx: "off" });
    await feed((c) => off.t.push(c), concat(quiet(300), tone(2500), quiet(900)));
    await off.t.flush();
    const offCalls = [...off.d.interim.calls, ...off.d.final.calls];
    expect(offCalls.length).toBeGreaterThan(1);
    expect(offCalls.every((call) => call.options.audioCtx === 0)).toBe(true);
  });

  it("bounds every decode's tokens to the audio heard, and to the node's own cap", async () => {
    expect(liveTokenBudget(SR, 0)).toBe(16);
    expect(liveTokenBudget(15 * SR, 0)).toBe(128); // whisper's own 224 per 30 s, and some
    expect(liveTokenBudget(15 * SR, 64)).toBe(64);
    const { t, d } = engine();
    await feed((c) => t.push(c), concat(quiet(300), tone(2500), quiet(900)));
    await t.flush();
    const calls = [...d.interim.calls, ...d.final.calls];
    expect(calls.length).toBeGreaterThan(1);
    for (const call of calls) expect(call.options.maxTokens).toBe(liveTokenBudget(call.samples, 0));
  });

  it("carries the previous final's text as the next utterance's prompt, only in the same language", async () => {
    const { t, d, of } = engine();
    t.setLanguage("en");
    await feed((c) => t.push(c), concat(quiet(300), tone(1500), quiet(900)));
    await t.flush();
    expect(d.final.calls[0]?.options.initialPrompt).toBeUndefined();
    const first = of("final")[0]?.text ?? "";
    expect(first).not.toBe("");
    await feed((c) => t.push(c), concat(tone(1500), quiet(900)));
    await t.flush();
    const second = [...d.interim.calls, ...d.final.calls].filter(
      (c) => c.startedAt > (d.final.calls[0]?.startedAt ?? 0),
    );
    expect(second.length).toBeGreaterThan(0);
    for (const call of second) expect(call.options.initialPrompt).toBe(first);

    t.setLanguage("de");
    await feed((c) => t.push(c), concat(tone(1500), quiet(900)));
    await t.flush();
    expect(d.final.calls.at(-1)?.options.initialPrompt).toBeUndefined();
  });

  it("ends the utterance when frames stop (the speaker muted) and sends its final without `end`", async () => {
    const { t, of } = engine();
    await feed((c) => t.push(c), concat(quiet(300), tone(1500)));
    const lastFrameAt = performance.now();
    for (let waited = 0; waited < 10_000 && of("final").length === 0; waited += 20) await sleep(20);
    const finals = of("final");
    console.log(
      `muted speaker: final ${Math.round(performance.now() - lastFrameAt)} ms after the last frame`,
    );
    expect(finals).toHaveLength(1);
    expect(finals[0]).toMatchObject({ start: expect.closeTo(0.3, 1), end: expect.closeTo(1.8, 1) });
    t.close();
  }, 20_000);
});

describe("LiveTranscriber back-pressure", () => {
  it("thins out interims when decoding is slower than real time, and never delays finals behind them", async () => {
    // stream at 4x real time (100 ms of audio every 25 ms); an interim decode takes 300 ms, i.e.
    // 1.2 s of audio time: far over the 500 ms cadence
    const interim = new FakeDecoder(growing, 300);
    const final = new FakeDecoder(growing, 5);
    const { t, of } = engine({}, { interim, final });
    const speech = concat(quiet(300), tone(6000));
    await feed((c) => t.push(c), speech, 100, 25);
    const endOfSpeech = performance.now();
    await feed((c) => t.push(c), quiet(700), 100, 25);
    await t.flush();

    // nominal cadence would start 12 interims over 6 s of speech; slow decodes leave far fewer
    expect(interim.calls.length).toBeGreaterThan(0);
    expect(interim.calls.length).toBeLessThanOrEqual(5);
    // the final started as soon as the pause was heard (7 chunks after the speech), not after an interim
    const finalCall = final.calls[0];
    expect(finalCall).toBeDefined();
    expect((finalCall?.startedAt ?? 0) - endOfSpeech).toBeLessThan(7 * 25 + 60);
    expect(of("final")).toHaveLength(1);
  });

  it("aborts the running interim when a final arrives", async () => {
    const interim = new FakeDecoder(growing, 400);
    const { t } = engine({}, { interim, final: new FakeDecoder(growing) });
    await feed((c) => t.push(c), concat(quiet(200), tone(1200)), 100, 1);
    await sleep(5); // an interim decode is now running
    expect(interim.busy).toBe(true);
    await feed((c) => t.push(c), quiet(700), 100, 1);
    await t.flush();
    expect(interim.calls.at(-1)?.aborted).toBe(true);
  });

  it("caps waiting finals: the oldest is dropped with an error, no interim runs meanwhile", async () => {
    const final = new FakeDecoder(growing, 400);
    const { t, of, d } = engine({ maxPendingFinals: 2 }, { interim: new FakeDecoder(growing), final });
    const burst = concat(tone(400), quiet(700));
    await feed((c) => t.push(c), concat(quiet(200), burst, burst, burst, burst, burst, burst), 100, 1);
    await t.flush();
    // one decoding + two waiting; the other three were dropped, each with an error message
    expect(final.calls.length).toBe(3);
    expect(of("final")).toHaveLength(3);
    expect(of("error")).toHaveLength(3);
    expect(of("error")[0]?.message).toMatch(/fell behind real time: dropped/);
    const firstFinal = final.calls[0]?.startedAt ?? 0;
    expect(d.interim.calls.every((call) => call.startedAt < firstFinal)).toBe(true);
  });
});

describe("LiveTranscriber tentative finals", () => {
  it("decodes the final's audio once the pause's tail is heard, and sends that as the final without decoding again", async () => {
    const final = new FakeDecoder((samples) => `heard ${samples}`, 100);
    const { t, of } = engine({}, { interim: new FakeDecoder(growing), final });
    await feed((c) => t.push(c), concat(quiet(300), tone(1500)), 100, 25);
    const pushed: number[] = [];
    await feed(
      (c) => {
        pushed.push(performance.now());
        t.push(c);
      },
      quiet(900),
      100,
      25,
    );
    await t.flush();
    expect(final.calls).toHaveLength(1);
    // started before the 600 ms pause that ends the utterance had been heard
    expect(final.calls[0]?.startedAt).toBeLessThan(pushed[5] ?? 0);
    const finals = of("final");
    expect(finals).toHaveLength(1);
    expect(finals[0]).toMatchObject({ start: expect.closeTo(0.3, 1), end: expect.closeTo(1.8, 1) });
    expect(finals[0]?.text).toBe(`heard ${final.calls[0]?.samples}`);
  });

  it("when frames stop right after speech, decodes the final once they have stopped for the tail time", async () => {
    const final = new FakeDecoder((samples) => `heard ${samples}`, 200);
    const { t, of } = engine({}, { interim: new FakeDecoder(growing), final });
    await feed((c) => t.push(c), concat(quiet(300), tone(1500)), 100, 5);
    const lastFrameAt = performance.now();
    for (let waited = 0; waited < 10_000 && of("final").length === 0; waited += 10) await sleep(10);
    expect(final.calls).toHaveLength(1);
    // the audio-time pause never comes; the decode starts before the wall clock ends the utterance
    const startedAfter = (final.calls[0]?.startedAt ?? 0) - lastFrameAt;
    expect(startedAfter).toBeGreaterThanOrEqual(150);
    expect(startedAfter).toBeLessThan(DEFAULT_LIVE_OPTIONS.silenceMs - 150);
    expect(of("final")).toEqual([
      expect.objectContaining({ text: `heard ${final.calls[0]?.samples}`, end: expect.closeTo(1.8, 1) }),
    ]);
    t.close();
  });

  it("when frames stall for longer than the tail and then go on, decodes the whole utterance for its final", async () => {
    const final = new FakeDecoder((samples) => `heard ${samples}`, 5);
    const { t, of } = engine({}, { interim: new FakeDecoder(growing), final });
    await feed((c) => t.push(c), concat(quiet(300), tone(1000)), 100, 5);
    await sleep(350); // a network stall: no frames for longer than the tail, shorter than the silence
    await feed((c) => t.push(c), concat(tone(1000), quiet(900)), 100, 5);
    await t.flush();
    const [stalled, last] = final.calls.map((c) => c.samples);
    expect(stalled).toBeLessThan(last ?? 0);
    expect(of("final")).toEqual([
      expect.objectContaining({ text: `heard ${last}`, end: expect.closeTo(2.3, 1) }),
    ]);
  });

  it("when speech goes on after a short pause, decodes the whole utterance for its final", async () => {
    const final = new FakeDecoder((n) => WORDS.slice(0, Math.floor((n / SR) * 2)).join(" "), 5);
    const { t, of } = engine({}, { interim: new FakeDecoder(growing, 400), final });
    await feed((c) => t.push(c), concat(quiet(300), tone(1000), quiet(350), tone(1000), quiet(900)), 100, 10);
    await t.flush();
    expect(final.calls).toHaveLength(2); // at the short pause, then at the end
    const [early, last] = final.calls.map((c) => c.samples);
    expect(early).toBeLessThan(last ?? 0);
    const finals = of("final");
    expect(finals).toHaveLength(1);
    expect(finals[0]?.end).toBeCloseTo(2.65, 1);
    expect(finals[0]?.text).toBe(WORDS.slice(0, Math.floor(((last ?? 0) / SR) * 2)).join(" "));
  });

  it("streams sharing the node's one-slot gate never decode at once, an aborted interim's work included", async () => {
    const gate = new DecodeGate(1, 1);
    const all: FakeDecoder[] = [];
    let peak = 0;
    let aborted = 0;
    const counted = (d: FakeDecoder) => {
      all.push(d);
      const decode = d.decode.bind(d);
      d.decode = (pcm, options) => {
        // a decoder stays busy after an abort until its work would have finished
        peak = Math.max(peak, all.filter((x) => x.busy).length + 1);
        options?.signal?.addEventListener("abort", () => aborted++);
        return decode(pcm, options);
      };
      return d;
    };
    const streams = [0, 1, 2].map(() =>
      engine(
        {},
        { interim: counted(new FakeDecoder(growing, 60)), final: counted(new FakeDecoder(growing, 40)) },
        gate,
      ),
    );
    const speech = concat(quiet(300), tone(1500), quiet(800), tone(1000), quiet(900));
    await Promise.all(streams.map(({ t }) => feed((c) => t.push(c), speech, 100, 20)));
    await Promise.all(streams.map(({ t }) => t.flush()));
    expect(peak).toBe(1);
    expect(aborted).toBeGreaterThan(0); // finals took running interims' slots
    for (const { of } of streams) {
      expect(of("final")).toHaveLength(2);
      expect(of("error")).toEqual([]);
    }
  });
});
