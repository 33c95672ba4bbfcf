import type { RoomServerMessage } from "../api/types.ts";
import { addNotice, fromRoom, placeUtterance, type TimelineItem } from "../translate/timeline.ts";

/** What a participant sees of a room: the conversation, how many are in it, and into what its words go. */
export interface RoomView {
  items: TimelineItem[];
  /** People in the room, this participant included; null before the welcome. */
  count: number | null;
  /** The language this participant's words are translated into for the others. */
  partner: string | null;
  /** Every other participant's language. */
  others: string[];
}

export const EMPTY_ROOM: RoomView = { items: [], count: null, partner: null, others: [] };

/**
 * Folds one server message into the view. `me` is this participant's client_id: its own join is
 * worded "you joined".
 *
 * @example view = applyRoomMessage(view, { type: "user_joined", client_count: 2, client_id: "b…", language: "es" }, me)
 */
export function applyRoomMessage(view: RoomView, message: RoomServerMessage, me: string): RoomView {
  switch (message.type) {
    case "welcome":
      return { ...view, count: message.client_count };
    case "user_joined":
      return {
        ...view,
        count: message.client_count,
        items: addNotice(view.items, {
          event: message.client_id === me ? "you_joined" : "joined",
          language: message.language,
          count: message.client_count,
        }),
      };
    case "user_left":
      return {
        ...view,
        count: message.client_count,
        items: addNotice(view.items, { event: "left", count: message.client_count }),
      };
    case "partner_language":
      return { ...view, partner: message.lang, others: message.languages };
    case "transcript":
      return { ...view, items: placeUtterance(view.items, fromRoom(message)) };
    case "error":
      return {
        ...view,
        items: addNotice(view.items, { event: "problem", code: message.code, text: message.message }),
      };
    // host actions and the participant list (#31.2) are not shown by the console yet; a removal or an
    // end still reaches the page as its close code and reason
    case "participants":
    case "system":
    // spoken translations (#31.3) are played by the console's own work, not folded into the view
    case "translation_audio":
      return view;
  }
}
