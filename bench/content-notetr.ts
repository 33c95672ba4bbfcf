/**
 * Part of group `content`: a 30 s short in the other two aspects (16:9, 1:1; render time against the
 * video's length, target <= 1.0, as the vertical one) with its SRT/VTT sidecars, and a 600-word note's
 * translation through the node's LibreTranslate client against a local server that answers at once:
 * what the engine itself costs per sentence (a real backend adds its own time per request), against
 * the 5 s the text artifacts are held to.
 */
import { StageSpeeds } from "../inference-node/content/progress.ts";
import { type ContentDeps, runContentTask } from "../inference-node/content/run-content-task.ts";
import { createTranslator } from "../inference-node/translate/config.ts";
import type { NoteSnapshot, ShortAspect } from "../protocol/content.ts";
import { libreTranslateHandler, startServer } from "../test/node/translate-fake-servers.ts";
import { timeMs } from "./stats.ts";
import { type BenchResult, result } from "./types.ts";

/** Words in the translated note. */
const TRANSLATION_WORDS = 600;

/** `note` repeated (sections renumbered) until it has at least `words` words. */
function noteOfWords(note: NoteSnapshot, words: number): NoteSnapshot {
  const sections: string[] = [];
  let count = 0;
  for (let part = 1; count < words; part += 1) {
    const section = note.content.replace(/^# (.+)$/gm, `# $1 (${part})`);
    sections.push(section);
    count += section.split(/\s+/).filter(Boolean).length;
  }
  return { ...note, content: sections.join("\n\n") };
}

/**
 * The figures, from `note` (long enough for 30 s of narration), with the group's deps.
 *
 * @example results.push(...(await notetrContentBench(deps, BENCH_NOTE)));
 */
export async function notetrContentBench(deps: ContentDeps, note: NoteSnapshot): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  const signal = new AbortController().signal;
  for (const aspect of ["16:9", "1:1"] as const satisfies readonly ShortAspect[]) {
    let duration = 0;
    const ms = await timeMs(async () => {
      const out = await runContentTask(
        {
          kind: "shorts",
          params: { note, voice_id: "en-female", clip_duration: 30, bg_id: "sunset", aspect },
        },
        deps,
        { signal, report: () => {} },
      );
      duration = out.data.duration ?? 0;
      await out.cleanup();
    });
    results.push(
      result(
        `content.short_30s_${aspect.replace(":", "x")}_ms`,
        ms,
        duration * 1000,
        "ms",
        `${duration.toFixed(1)} s ${aspect} video + SRT/VTT; ratio = render/real time (target <= 1.0)`,
      ),
    );
  }

  const server = await startServer(libreTranslateHandler());
  try {
    const translator = createTranslator({ backend: "libretranslate", url: server.url });
    if (!translator) throw new Error("no translator");
    const long = noteOfWords(note, TRANSLATION_WORDS);
    let sentences = 0;
    const ms = await timeMs(async () => {
      const out = await runContentTask(
        { kind: "note_translation", params: { note: long, language: "vi" } },
        { ...deps, speeds: new StageSpeeds(), translate: (...args) => translator.translate(...args) },
        { signal, report: () => {} },
      );
      sentences = Number(out.data.sentence_count);
      await out.cleanup();
    });
    results.push(
      result(
        "content.note_translation_600w_ms",
        ms,
        5000,
        "ms",
        `${sentences} requests (one per sentence) to a local LibreTranslate double that answers at once; ratio against 5 s`,
      ),
    );
  } finally {
    await server.close();
  }
  return results;
}
