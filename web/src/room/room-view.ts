import type { RoomServerMessage } from "../api/types.ts";
import {
  addNotice,
  fromRoom,
  placeUtterance,
  type TimelineItem,
  type Utterance,
} from "../translate/timeline.ts";
import type { RoomMessage } from "./room-connection.ts";

/** One participant as the room lists it (RoomParticipant of protocol/rooms.ts). */
export type Participant = Extract<RoomServerMessage, { type: "participants" }>["participants"][number];

/** What a participant sees of a room: the conversation, who is in it, and into what its words go. */
export interface RoomView {
  items: TimelineItem[];
  /** People in the room, this participant included; null before the welcome. */
  count: number | null;
  /** The language this participant's words are translated into for the others. */
  partner: string | null;
  /** Every other participant's language. */
  others: string[];
  /** This participant's client_id (its welcome's); null before it. */
  me: string | null;
  /** This participant's role, as the room last said (the host may change it). */
  role: Participant["role"] | null;
  /** Everyone in the room, in join order (the welcome's list, kept by joins, leaves and host changes). */
  participants: Participant[];
  /** The host has locked the room to new participants. */
  locked: boolean;
}

export const EMPTY_ROOM: RoomView = {
  items: [],
  count: null,
  partner: null,
  others: [],
  me: null,
  role: null,
  participants: [],
  locked: false,
};

const nameOf = (view: RoomView, clientId: string | null) =>
  view.participants.find((p) => p.client_id === clientId)?.name ?? null;

/**
 * Folds one server message into the view. `me` is this participant's client_id: its own join is
 * worded "you joined", a host action on it "… you".
 *
 * @example view = applyRoomMessage(view, { type: "user_joined", client_count: 2, client_id: "b…", language: "es", name: "Ana", role: "listener" }, me)
 */
export function applyRoomMessage(view: RoomView, message: RoomMessage, me: string): RoomView {
  switch (message.type) {
    case "welcome":
      return {
        ...view,
        count: message.client_count,
        me: message.client_id,
        role: message.role,
        participants: message.participants,
        locked: message.locked,
      };
    case "user_joined": {
      const { client_id, name, role, language } = message;
      return {
        ...view,
        count: message.client_count,
        participants: [
          ...view.participants.filter((p) => p.client_id !== client_id),
          { client_id, name, role, language },
        ],
        items: addNotice(view.items, {
          event: client_id === me ? "you_joined" : "joined",
          language,
          count: message.client_count,
          name,
        }),
      };
    }
    case "user_left":
      return {
        ...view,
        count: message.client_count,
        participants: view.participants.filter((p) => p.client_id !== message.client_id),
        items: addNotice(view.items, {
          event: "left",
          count: message.client_count,
          name: nameOf(view, message.client_id),
        }),
      };
    case "participants":
      return {
        ...view,
        participants: message.participants,
        role: message.participants.find((p) => p.client_id === me)?.role ?? view.role,
      };
    case "system":
      return {
        ...view,
        locked: message.event === "locked" ? true : message.event === "unlocked" ? false : view.locked,
        items: addNotice(view.items, {
          event: "system",
          action: message.event,
          name: nameOf(view, message.participant),
          self: message.participant !== null && message.participant === me,
        }),
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
    // spoken translations go to the read-aloud queue; their text came with the final before them
    case "translation_audio":
      return view;
  }
}

/** The newest final someone else said: the listener's large text. */
export function latestHeard(items: readonly TimelineItem[]): Utterance | null {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i];
    if (item?.kind === "utterance" && item.final && !item.mine) return item;
  }
  return null;
}

/** A room's languages, for its transcript: the session's two (its other one first), then every participant's. */
export function roomLanguages(
  session: { user_a_lang: string; user_a_translate: string },
  participants: readonly Participant[],
): string[] {
  return [
    ...new Set([session.user_a_translate, session.user_a_lang, ...participants.map((p) => p.language)]),
  ];
}
