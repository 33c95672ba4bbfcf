/**
 * Progress and remaining time of a content task from measured speeds. Each stage's cost is
 * predicted from what this process measured on earlier stages and runs (seconds per narrated
 * character, per rendered second, per slide), starting from defaults measured on a 2-core machine;
 * progress is the predicted share done and never goes backwards.
 */
import type { ContentStep } from "../../protocol/content.ts";

/** What a stage's work is counted in. */
export type StageKey =
  | "script_extractive"
  | "script_llm"
  | "tts"
  | "render_video"
  | "render_audio"
  | "translate"
  | "slides"
  | "documents"
  | "mindmap_picture"
  | "podcast_audio"
  | "overview_slides"
  | "overview_video";

/** Seconds per unit before anything is measured (bench/content.ts on 2 shared cores). */
const DEFAULT_SECONDS_PER_UNIT: Readonly<Record<StageKey, number>> = {
  script_extractive: 0.05,
  script_llm: 8,
  tts: 0.002,
  render_video: 0.45,
  render_audio: 0.01,
  translate: 0.0005,
  slides: 0.05,
  documents: 0.1,
  /** One mind map's files, mostly its PNG (ffmpeg + librsvg): 0.9 s at 30 nodes, 1.5 s at 100. */
  mindmap_picture: 1.2,
  /** Per second of an audio overview: its M4A and its MP3. */
  podcast_audio: 0.05,
  /** Per slide of a video overview: its outline, PDF page and the page drawn at 1920x1080. */
  overview_slides: 1,
  /** Per second of a video overview (1920x1080, 15 fps, captions burned in). */
  overview_video: 2,
};

/** Weight of the newest measurement in the running average. */
const SMOOTHING = 0.5;

/**
 * Measured speeds of this process, shared by its tasks.
 *
 * @example
 * speeds.observe("tts", 1200, 2.4); // 1200 characters took 2.4 s
 * speeds.predict("tts", 600); // ~1.2
 */
export class StageSpeeds {
  private readonly secondsPerUnit = new Map<StageKey, number>();
  private readonly wordsPerSec = new Map<string, number>();

  predict(key: StageKey, units: number): number {
    return (this.secondsPerUnit.get(key) ?? DEFAULT_SECONDS_PER_UNIT[key]) * Math.max(units, 0);
  }

  observe(key: StageKey, units: number, seconds: number): void {
    if (!(units > 0) || !(seconds >= 0)) return;
    const rate = seconds / units;
    const old = this.secondsPerUnit.get(key);
    this.secondsPerUnit.set(key, old === undefined ? rate : old + SMOOTHING * (rate - old));
  }

  /** Spoken words per second measured for a voice (falls back to `fallback`). */
  speechRate(voiceId: string, fallback: number): number {
    return this.wordsPerSec.get(voiceId) ?? fallback;
  }

  observeSpeechRate(voiceId: string, words: number, seconds: number): void {
    if (words < 5 || !(seconds > 0)) return;
    const rate = words / seconds;
    const old = this.wordsPerSec.get(voiceId);
    this.wordsPerSec.set(voiceId, old === undefined ? rate : old + SMOOTHING * (rate - old));
  }
}

/** The one instance an inference node process shares across tasks. */
export const processSpeeds = new StageSpeeds();

export interface ContentProgress {
  step: ContentStep;
  /** 0..100, never decreasing. */
  progress: number;
  /** Predicted seconds left, whole. */
  estimated_time_sec: number;
}

interface PlannedStage {
  step: ContentStep;
  key: StageKey;
  units: number;
}

/** The share of the task this engine reports; the caller's upload takes it from here to 100. */
export const RENDER_SHARE = 95;

/**
 * Turns stage progress into ContentProgress reports.
 *
 * @example
 * const tracker = new ProgressTracker(speeds, [{ step: "writing_script", key: "script_extractive", units: 1 }, ...], report);
 * tracker.start("writing_script"); tracker.advance(0.5); tracker.finish(measuredSeconds);
 */
export class ProgressTracker {
  private current = 0;
  private fraction = 0;
  private last = 0;
  private stageStarted = performance.now();

  constructor(
    private readonly speeds: StageSpeeds,
    private readonly plan: PlannedStage[],
    private readonly report: (update: ContentProgress) => void,
  ) {}

  /** Re-sizes a later stage once its size is known (e.g. the narration's length). */
  resize(key: StageKey, units: number): void {
    for (const stage of this.plan) if (stage.key === key) stage.units = units;
  }

  /** Enters the stage with this key and reports. */
  start(key: StageKey): void {
    const index = this.plan.findIndex((s) => s.key === key);
    if (index >= 0) this.current = index;
    this.fraction = 0;
    this.stageStarted = performance.now();
    this.emit();
  }

  /** Reports `fraction` (0..1) of the current stage done. */
  advance(fraction: number): void {
    this.fraction = Math.max(this.fraction, Math.min(1, fraction));
    this.emit();
  }

  /** Ends the current stage, feeding its measured time (or `units` override) to the speeds. */
  finish(units?: number): void {
    const stage = this.plan[this.current];
    if (stage)
      this.speeds.observe(stage.key, units ?? stage.units, (performance.now() - this.stageStarted) / 1000);
    this.fraction = 1;
    this.emit();
  }

  private emit(): void {
    const costs = this.plan.map((s) => this.speeds.predict(s.key, s.units));
    const total = costs.reduce((a, b) => a + b, 0) || 1;
    const done =
      costs.slice(0, this.current).reduce((a, b) => a + b, 0) + (costs[this.current] ?? 0) * this.fraction;
    const progress = Math.max(this.last, Math.min(RENDER_SHARE, Math.floor((done / total) * RENDER_SHARE)));
    this.last = progress;
    this.report({
      step: this.plan[this.current]?.step ?? "writing_script",
      progress,
      estimated_time_sec: Math.max(0, Math.ceil(total - done)),
    });
  }
}
