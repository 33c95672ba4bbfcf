import { z } from "@hono/zod-openapi";
import {
  HostControl,
  HostControlResult,
  SessionCreateRequest,
  SessionCreateResponse,
  SessionDetails,
} from "../../protocol/rooms.ts";
import { ErrorCode } from "../errors.ts";

/** OpenAPI shapes of the real-time translation API (the wire schemas live in protocol/rooms.ts). */

const Named = z.tuple([z.string(), z.string()]).openapi({ example: ["en", "English"] });

export const LanguagesResponse = z
  .object({
    supported_languages: z.array(Named),
    default_source: z.string().openapi({ example: "en" }),
    default_target: z.string().openapi({ example: "es" }),
    translation_pairs: z.array(z.tuple([z.string(), z.string()])).openapi({ example: [["en", "es"]] }),
    asr_languages: z.array(Named),
  })
  .meta({ id: "LanguagesResponse" });

export const SessionCreateBody = SessionCreateRequest.meta({ id: "SessionCreateRequest" });
export const SessionCreated = SessionCreateResponse.meta({ id: "SessionCreateResponse" });
export const SessionDetailsResponse = SessionDetails.meta({ id: "SessionDetails" });
export const HostControlBody = HostControl.meta({ id: "HostControl" });
export const HostControlResponse = HostControlResult.meta({ id: "HostControlResult" });

/** The translation API's error body: the spec's `{error}` plus a stable `code`. */
export const TranslationErrorBody = z
  .object({ error: z.string(), code: ErrorCode })
  .meta({ id: "TranslationError" });
export const translationErrorContent = { "application/json": { schema: TranslationErrorBody } };
