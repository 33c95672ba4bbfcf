/**
 * An OpenAI-compatible chat model (`POST /v1/chat/completions`) for scripts, quizzes and outlines,
 * used when VOXEDGE_LLM_URL is set. Without it the extractive builders run on the node alone.
 */
import { ContentError } from "./errors.ts";

export interface LlmConfig {
  /** Base URL; /v1/chat/completions is appended. */
  url: string;
  apiKey?: string;
  model: string;
  timeoutMs?: number;
}

export interface ChatMessage {
  role: "system" | "user";
  content: string;
}

/** The LLM settings from the environment, or null when none is configured. */
export function llmConfigFromEnv(env: NodeJS.ProcessEnv): LlmConfig | null {
  const url = env.VOXEDGE_LLM_URL?.trim();
  if (!url) return null;
  return {
    url,
    model: env.VOXEDGE_LLM_MODEL?.trim() || "gpt-4o-mini",
    ...(env.VOXEDGE_LLM_API_KEY ? { apiKey: env.VOXEDGE_LLM_API_KEY } : {}),
  };
}

/**
 * Sends one chat completion and returns the first choice's text. Any failure (unreachable, HTTP
 * error, empty answer) is a ContentError `llm_failed`; an abort rejects with the signal's reason.
 *
 * @example
 * const text = await chatComplete(config, [{ role: "user", content: "Say hi" }], signal);
 */
export async function chatComplete(
  config: LlmConfig,
  messages: ChatMessage[],
  signal: AbortSignal,
): Promise<string> {
  const url = `${config.url.replace(/\/+$/, "")}/v1/chat/completions`;
  const timeout = AbortSignal.timeout(config.timeoutMs ?? 120_000);
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}),
      },
      body: JSON.stringify({ model: config.model, messages, temperature: 0.3 }),
      signal: AbortSignal.any([signal, timeout]),
    });
  } catch (error) {
    signal.throwIfAborted();
    throw new ContentError(
      "llm_failed",
      `LLM ${timeout.aborted ? "timed out" : "cannot be reached"}: ${url}`,
      {
        cause: error,
      },
    );
  }
  const text = await response.text();
  if (!response.ok) {
    throw new ContentError("llm_failed", `LLM answered HTTP ${response.status}: ${text.slice(0, 300)}`);
  }
  let content: unknown;
  try {
    content = (JSON.parse(text) as { choices?: { message?: { content?: unknown } }[] }).choices?.[0]?.message
      ?.content;
  } catch {
    throw new ContentError("llm_failed", "LLM answered something that is not JSON");
  }
  if (typeof content !== "string" || !content.trim())
    throw new ContentError("llm_failed", "LLM answered no text");
  return content.trim();
}

/** The first JSON object in a model's answer (models wrap JSON in prose or code fences). */
export function extractJson(text: string): unknown {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start < 0 || end <= start) throw new ContentError("llm_failed", "LLM answer holds no JSON object");
  try {
    return JSON.parse(text.slice(start, end + 1));
  } catch {
    throw new ContentError("llm_failed", "LLM answer holds malformed JSON");
  }
}
