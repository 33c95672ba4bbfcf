import { M2M100_LANGUAGES, translationTarget } from "../../protocol/translate.ts";
import { translateWithWorkersAi, workersAi } from "../translation/workers-ai.ts";

/**
 * The result's `translation` on the remote tier: the spec's VI↔EN, through the deployment's Workers AI
 * translation model (the backend /api/v1/translate uses). Null where the language has no target, the
 * deployment has no AI binding, or the backend fails: a translation never fails the task (as on a node).
 */
export async function translateTranscript(env: Env, text: string, language: string): Promise<string | null> {
  const target = translationTarget(language);
  const ai = workersAi(env);
  const source = M2M100_LANGUAGES.find((code) => code === language.toLowerCase());
  if (!target || !source || !ai || !text) return null;
  try {
    const answer = await translateWithWorkersAi(ai, { text, source_lang: source, target_lang: target });
    return answer.translated_text;
  } catch (error) {
    console.error(JSON.stringify({ remote_tier_translation: String(error).slice(0, 300) }));
    return null;
  }
}
