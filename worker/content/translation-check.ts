import { describePairs, fleetLanguages } from "../translation/languages.ts";
import { ContentApiError } from "./errors.ts";

/**
 * A create whose artifact is asked in another language than its note's needs a translation on the
 * node. When the connected nodes report their translation pairs and none of them offers this one
 * (`npm start`'s Apertium has no Vietnamese), the task could only fail on every attempt, so it is
 * refused now. With no node connected it is queued like any task: the fleet that takes it decides.
 * A node table that cannot be read refuses nothing either; the node reports `translation_unavailable`
 * itself.
 *
 * @example await checkTranslationPair(env, "en", "vi"); // throws 400 translation_unavailable without en → vi
 */
export async function checkTranslationPair(env: Env, from: string, to: string): Promise<void> {
  if (from === to) return;
  let fleet: Awaited<ReturnType<typeof fleetLanguages>>;
  try {
    fleet = await fleetLanguages(env);
  } catch (cause) {
    console.error(
      JSON.stringify({ content_translation_check: "node table unavailable", error: String(cause) }),
    );
    return;
  }
  if (fleet.connected === 0) return;
  const pairs = fleet.view?.translation_pairs ?? [];
  if (pairs.some(([a, b]) => a === from && b === to)) return;
  throw new ContentApiError(
    "bad_request",
    "translation_unavailable",
    `the note is in "${from}" and "${to}" was asked, but no connected translation backend translates ` +
      `${from}->${to} (offered: ${describePairs(pairs)}); ask in the note's own language or configure a backend with that pair`,
  );
}
