/**
 * Translation on a live stream, between the engine and the link: each final is translated once into
 * every target language (the distinct languages of whoever listens), interims into the one interim
 * target while the backend is fast enough (its moving call time ≤ 150 ms; otherwise they go out
 * untranslated). Messages leave in the order the engine made them.
 */
import type { NodeToSession, TranslateBatch, TranslatedBatch } from "../../protocol/live.ts";
import type { Logger } from "../logger.ts";
import { INTERIM_TRANSLATION_BUDGET_MS, type LatencyMeter, translateInto } from "../translate/fan-out.ts";
import type { Translator } from "../translate/translator.ts";
import type { EngineMessage } from "./transcriber.ts";

/** The node's translator and its call-time meter, shared by all streams. */
export interface LiveMt {
  translator: Translator | null;
  meter: LatencyMeter;
}

/** A final waits at most this long for its translations; late ones are reported as errors. */
export const FINAL_TRANSLATION_TIMEOUT_MS = 5_000;
/** An interim's translation may take twice the budget before the interim goes out without it. */
const INTERIM_TRANSLATION_TIMEOUT_MS = 2 * INTERIM_TRANSLATION_BUDGET_MS;

/**
 * @example
 * const out = new StreamTranslation((m) => ws.send(JSON.stringify(m)), mt, logger);
 * out.configure(["es", "fr"], "es");
 * const transcriber = new LiveTranscriber(decoders, { send: (m) => out.push(m) }, options);
 * await transcriber.flush();
 * await out.drain(); // every translated final is sent
 */
export class StreamTranslation {
  #targets: string[] = [];
  #interimTarget: string | null = null;
  #chain: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(
    private readonly send: (message: NodeToSession) => void,
    private readonly mt: LiveMt,
    private readonly logger: Logger,
  ) {}

  /** Languages finals are translated into, and the one for interims (null: none). */
  configure(targets: readonly string[], interimTarget: string | null): void {
    this.#targets = [...new Set(targets)];
    this.#interimTarget = interimTarget;
  }

  /** Takes the engine's next message; its translation starts now, it is sent after those before it. */
  push(message: EngineMessage): void {
    if (this.#closed) return;
    const ready = this.#translate(message);
    this.#chain = this.#chain.then(async () => {
      const out = await ready;
      if (!this.#closed) this.send(out);
    });
  }

  /** Resolves once everything pushed so far is sent. */
  drain(): Promise<void> {
    return this.#chain;
  }

  /** Sends nothing more. */
  close(): void {
    this.#closed = true;
  }

  async #translate(message: EngineMessage): Promise<NodeToSession> {
    if (message.type === "error") return message;
    const { translator, meter } = this.mt;
    const onError = (target: string, error: unknown) =>
      this.logger.warn({ target, err: String(error) }, "live: translation failed; sending the original");
    if (message.type === "final") {
      const targets = this.#targets;
      const signal = AbortSignal.timeout(FINAL_TRANSLATION_TIMEOUT_MS);
      const fanOut = await translateInto(
        translator,
        meter,
        message.text,
        message.language,
        targets,
        signal,
        onError,
      );
      return { ...message, translations: fanOut.translations, translation_errors: fanOut.errors };
    }
    const target = this.#interimTarget;
    if (!target || !translator || !meter.fastEnough()) {
      return { ...message, translations: {}, translation_errors: [] };
    }
    const signal = AbortSignal.timeout(INTERIM_TRANSLATION_TIMEOUT_MS);
    const fanOut = await translateInto(translator, meter, message.text, message.language, [target], signal);
    return { ...message, translations: fanOut.translations, translation_errors: [] };
  }
}

/**
 * Answers a `translate` request (a room's history for a late joiner): every item into `batch.to`.
 *
 * @example
 * ws.send(JSON.stringify(await translateBatch(mt, { type: "translate", request_id: "r1", to: "es", items })));
 */
export async function translateBatch(mt: LiveMt, batch: TranslateBatch): Promise<TranslatedBatch> {
  const signal = AbortSignal.timeout(FINAL_TRANSLATION_TIMEOUT_MS);
  const items = await Promise.all(
    batch.items.map(async (item) => {
      const fanOut = await translateInto(mt.translator, mt.meter, item.text, item.from, [batch.to], signal);
      return { id: item.id, text: fanOut.translations[batch.to] ?? null };
    }),
  );
  return { type: "translated", request_id: batch.request_id, items };
}
