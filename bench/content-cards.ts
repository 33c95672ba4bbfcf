/**
 * Flashcards and mind maps in the `content` group: the wall time of each kind, as a leased task runs
 * it (runContentTask, no chat model), for a 600-word note, against the 5 s target of #32.
 */
import { type ContentDeps, runContentTask } from "../inference-node/content/run-content-task.ts";
import type { ContentJob, NoteSnapshot } from "../protocol/content.ts";
import { HISTORY_NOTE_EN } from "../test/node/content-helpers.ts";
import { PHOTOSYNTHESIS_NOTE_EN } from "../test/node/fixtures/studio-notes-cards.ts";
import { timeMs } from "./stats.ts";
import { type BenchResult, result } from "./types.ts";

const TARGET_MS = 5000;

/** Two study notes and a section of their own: 600 words or a few more, in five headed sections. */
export const NOTE_600_WORDS: NoteSnapshot = {
  note_id: "bench-600-words",
  title: "Plants, Rivers and People",
  language: "en",
  content: `${PHOTOSYNTHESIS_NOTE_EN.content}

${HISTORY_NOTE_EN.content}

# Rice farming
Rice is the staple food of more than half of the people on Earth. Farmers in the Mekong Delta grow two or three crops a year on flooded fields called paddies.
The water in a paddy keeps weeds down and holds the warmth that young rice plants need. Seedlings are raised in a nursery bed and moved by hand into the field after about three weeks.
A rice plant takes between three and six months to ripen, depending on the variety and the season. When the grains turn golden, the water is drained and the crop is cut, threshed and dried in the sun.
Vietnam is one of the largest rice exporters in the world, shipping millions of tonnes each year to the Philippines, China and West Africa.
Salt water that reaches further inland during dry years now damages many fields near the coast. Some farmers switch to shrimp ponds or to rice varieties that tolerate salt.
Researchers at the Cuu Long Delta Rice Research Institute breed new varieties that ripen faster and need less water. Irrigation canals, sluice gates and better forecasts help farmers plan when to plant.
Straw left after the harvest is often burned, which pollutes the air; it can instead feed mushrooms, cattle or biogas plants.
Young people leave the villages for factory jobs in Ho Chi Minh City, so machines now do much of the planting and harvesting that families once did by hand.
Cooperatives share tractors, drying yards and storage, and sell their rice together to get better prices from traders.
Good seed, clean water and fair prices decide whether a farming family has a good year or a hard one.

# Fish and forests
The Tonle Sap lake in Cambodia swells to five times its size in the wet season, when the Mekong pushes water back up its tributary.
Its flooded forests are a nursery for hundreds of fish species, and the catch feeds millions of families around the lake.
Mangrove forests along the delta's coast break the force of storms and trap the mud that builds new land.
Shrimp farms have replaced much of that mangrove since the 1980s, and the shoreline now retreats by tens of metres a year in places.
Replanting programmes pay villagers to grow mangroves again, and mixed farms raise shrimp beneath living trees.`,
};

export const wordCount = (note: NoteSnapshot) => note.content.split(/\s+/).filter(Boolean).length;

/**
 * Times two renders of `job` in a row (the files are written, then removed): the first pays for what a
 * node loads once (sql.js's WebAssembly, the label font's metrics), the second is a warm node's.
 */
async function renderMs(
  job: ContentJob,
  deps: ContentDeps,
): Promise<{ coldMs: number; warmMs: number; data: Record<string, unknown> }> {
  let data: Record<string, unknown> = {};
  const once = () =>
    timeMs(async () => {
      const out = await runContentTask(job, deps, { signal: new AbortController().signal, report: () => {} });
      data = out.data;
      await out.cleanup();
    });
  const coldMs = await once();
  const warmMs = await once();
  return { coldMs, warmMs, data };
}

/**
 * Flashcards (20 asked, medium) and a mind map of NOTE_600_WORDS, each against 5 s: the first render
 * is the figure (a node's first task of the kind), the warm one is in the note.
 *
 * @example results.push(...(await studyCardsBench(deps)));
 */
export async function studyCardsBench(deps: ContentDeps): Promise<BenchResult[]> {
  const words = wordCount(NOTE_600_WORDS);
  const cards = await renderMs(
    {
      kind: "flashcards",
      params: { note: NOTE_600_WORDS, count: 20, difficulty: "medium", language: null, community: false },
    },
    deps,
  );
  const map = await renderMs(
    { kind: "mindmap", params: { note: NOTE_600_WORDS, language: null, community: false } },
    deps,
  );
  return [
    result(
      "content.flashcards_600w_ms",
      cards.coldMs,
      TARGET_MS,
      "ms",
      `${words}-word note, ${String(cards.data.card_count)} cards (20 asked), JSON + CSV + .apkg, extractive; first render (a warm one: ${cards.warmMs.toFixed(0)} ms); ratio against the 5 s target`,
    ),
    result(
      "content.mindmap_600w_ms",
      map.coldMs,
      TARGET_MS,
      "ms",
      `${words}-word note, ${String(map.data.node_count)} nodes, JSON + OPML + Markdown + SVG + PNG, extractive; first render (a warm one: ${map.warmMs.toFixed(0)} ms); ratio against the 5 s target`,
    ),
  ];
}
