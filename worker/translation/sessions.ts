import { publicBaseUrl } from "../../platform/config.ts";
import { translationRoom } from "../../platform/stubs.ts";
import { quoted } from "../../protocol/quoted.ts";
import { type SessionDetails, translationLanguage } from "../../protocol/rooms.ts";
import { ApiError } from "../errors.ts";

/** A conversation id as the API mints it: a UUID v4 (122 random bits, the capability a QR code carries). */
const CONVERSATION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export const isConversationId = (id: string): boolean => CONVERSATION_ID.test(id);

const storeUnavailable = (cause: unknown) => {
  console.error(JSON.stringify({ session_store: "unavailable", error: String(cause) }));
  return new ApiError("service_unavailable", "the session store is unavailable; try again");
};

function language(field: string, value: string): string {
  const code = translationLanguage(value);
  if (!code) throw new ApiError("bad_request", `unsupported ${field} ${quoted(value)}`);
  return code;
}

/**
 * Creates a multi-device session: a fresh room, the link (and QR code content) to join it, and the
 * room's host token (for its creator only). The room's speakers count against `creatorKeyId`'s live
 * stream limit.
 *
 * @example
 * await createSession(env, request.url, { language: "en", translate_language: "es" }, "key_1");
 * // { conversation_id: "3f0c…", join_url: "https://api.example.com/join/3f0c…", host_token: "…" }
 */
export async function createSession(
  env: Env,
  requestUrl: string,
  body: { language: string; translate_language: string },
  creatorKeyId: string,
): Promise<{ conversation_id: string; join_url: string; host_token: string }> {
  const userALang = language("language", body.language);
  const userATranslate = language("translate_language", body.translate_language);
  const conversationId = crypto.randomUUID();
  let hostToken: string;
  try {
    ({ host_token: hostToken } = await translationRoom(env, conversationId).create({
      conversation_id: conversationId,
      user_a_lang: userALang,
      user_a_translate: userATranslate,
      creator_key_id: creatorKeyId,
    }));
  } catch (cause) {
    throw storeUnavailable(cause);
  }
  return {
    conversation_id: conversationId,
    join_url: `${publicBaseUrl(env, requestUrl)}/join/${conversationId}`,
    host_token: hostToken,
  };
}

/** The initiator's languages; 404 for an unknown or expired conversation. */
export async function sessionDetails(env: Env, conversationId: string): Promise<SessionDetails> {
  const notFound = new ApiError("not_found", "conversation not found or expired");
  if (!isConversationId(conversationId)) throw notFound;
  let details: SessionDetails | null;
  try {
    details = await translationRoom(env, conversationId).details();
  } catch (cause) {
    throw storeUnavailable(cause);
  }
  if (!details) throw notFound;
  return details;
}
