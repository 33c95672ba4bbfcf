import { closeSocket } from "../../durable-objects/live/sockets.ts";
import { roomRequest } from "../../durable-objects/rooms/room-join.ts";
import { translationRoom } from "../../platform/stubs.ts";
import { RoomClose } from "../../protocol/rooms.ts";
import { requireUpgrade } from "../live/open-socket.ts";
import { isConversationId } from "./sessions.ts";

/**
 * A participant's socket: handed to the conversation's room, which checks the conversation, the
 * language and the participant cap and closes with a documented code when one fails (a browser cannot
 * read an HTTP refusal of an upgrade, only a close code). An id that cannot be a conversation is
 * turned away here (4404) without waking any room.
 */
export async function openRoomSocket(
  env: Env,
  request: Request,
  conversationId: string,
  query: {
    language: string | null;
    client_id: string | null;
    resume: string | null;
    as: string | null;
    name: string | null;
    speak: string | null;
  },
): Promise<Response> {
  requireUpgrade(request);
  if (!isConversationId(conversationId)) {
    const pair = new WebSocketPair();
    pair[1].accept();
    closeSocket(pair[1], RoomClose.notFound, "conversation not found or expired");
    return new Response(null, { status: 101, webSocket: pair[0] });
  }
  return translationRoom(env, conversationId).fetch(roomRequest(request, { role: "client", ...query }));
}
