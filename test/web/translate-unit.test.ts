import { describe, expect, it } from "vitest";
import type { RoomTranscript, SingleTranscript } from "../../protocol/rooms.ts";
import { afterClose, RECONNECT_WINDOW_MS, reconnectDelayMs } from "../../web/src/room/room-connection.ts";
import { defaultRoomLanguage } from "../../web/src/room/room-storage.ts";
import { applyRoomMessage, EMPTY_ROOM } from "../../web/src/room/room-view.ts";
import {
  initialPair,
  swapped,
  translatesPair,
  withSource,
  withTarget,
} from "../../web/src/translate/pair.ts";
import {
  finalsOnly,
  fromRoom,
  fromSingle,
  placeUtterance,
  TIMELINE_MAX,
  type TimelineItem,
} from "../../web/src/translate/timeline.ts";

/** The pure parts of Translate and the rooms (run in Node): what each page computes from the wire. */

const single = (over: Partial<SingleTranscript>): SingleTranscript => ({
  type: "transcript",
  is_final: false,
  original: "hola",
  translation: "",
  translation_language: "en",
  language: "es",
  utterance_id: "u1",
  start: 0,
  end: 1,
  ...over,
});

const room = (over: Partial<RoomTranscript>): RoomTranscript => ({
  ...single({}),
  is_mine: false,
  is_interim: false,
  speaker: "speaker-aaaa",
  ...over,
});

const utterances = (items: TimelineItem[]) => items.filter((item) => item.kind === "utterance");

describe("translation timeline", () => {
  it("replaces an utterance's interims in place, then its final, and keeps the order of utterances", () => {
    let items = placeUtterance([], fromSingle(single({ original: "ho" })));
    items = placeUtterance(items, fromSingle(single({ utterance_id: "u2", original: "otra" })));
    items = placeUtterance(items, fromSingle(single({ original: "hola a" })));
    expect(items.map((i) => (i.kind === "utterance" ? i.original : ""))).toEqual(["hola a", "otra"]);
    items = placeUtterance(
      items,
      fromSingle(single({ is_final: true, original: "Hola a todos.", translation: "Hello everyone." })),
    );
    expect(items[0]).toMatchObject({
      id: "u1",
      final: true,
      translation: "Hello everyone.",
      translationLanguage: "en",
    });
    expect(items).toHaveLength(2);
  });

  it("never lets a late interim replace its final; a final with no words removes the line", () => {
    let items = placeUtterance([], fromSingle(single({ is_final: true, original: "Hola." })));
    items = placeUtterance(items, fromSingle(single({ original: "Ho" })));
    expect(items[0]).toMatchObject({ final: true, original: "Hola." });
    items = placeUtterance(items, fromSingle(single({ utterance_id: "u2", original: "eh" })));
    items = placeUtterance(items, fromSingle(single({ utterance_id: "u2", is_final: true, original: "  " })));
    expect(items.map((i) => i.id)).toEqual(["u1"]);
    expect(placeUtterance([], fromSingle(single({ original: "" })))).toEqual([]);
  });

  it("keeps at most TIMELINE_MAX entries, the newest, and drops interims when kept for a reload", () => {
    let items: TimelineItem[] = [];
    for (let i = 0; i < TIMELINE_MAX + 5; i++) {
      items = placeUtterance(items, fromSingle(single({ utterance_id: `u${i}`, is_final: true })));
    }
    expect(items).toHaveLength(TIMELINE_MAX);
    expect(items[0]?.id).toBe("u5");
    items = placeUtterance(items, fromSingle(single({ utterance_id: "open" })));
    expect(finalsOnly(items).some((i) => i.id === "open")).toBe(false);
  });

  it("flags a failed translation and marks a room's bubbles as mine or theirs", () => {
    expect(fromSingle(single({ is_final: true, translation_error: true })).translationError).toBe(true);
    expect(fromRoom(room({ is_mine: true, is_interim: true }))).toMatchObject({ mine: true, final: false });
    expect(fromRoom(room({}))).toMatchObject({ mine: false, final: true, speaker: "speaker-aaaa" });
  });
});

describe("room view", () => {
  const me = "me-000000";

  it("words joins (yours and others'), leaves, presence and the partner's language", () => {
    let view = applyRoomMessage(
      EMPTY_ROOM,
      {
        type: "welcome",
        conversation_id: "c",
        client_id: me,
        resume_token: "r".repeat(43),
        language: "en",
        client_count: 1,
        max_participants: 8,
        role: "speaker",
        name: null,
        participants: [],
        locked: false,
        speak: false,
        sample_rate: 16_000,
        format: "pcm_s16le",
      },
      me,
    );
    expect(view.count).toBe(1);
    view = applyRoomMessage(
      view,
      { type: "user_joined", client_count: 1, client_id: me, language: "en", name: null, role: "speaker" },
      me,
    );
    view = applyRoomMessage(
      view,
      {
        type: "user_joined",
        client_count: 2,
        client_id: "other-00",
        language: "es",
        name: null,
        role: "listener",
      },
      me,
    );
    view = applyRoomMessage(view, { type: "partner_language", lang: "es", languages: ["es"] }, me);
    view = applyRoomMessage(view, { type: "user_left", client_count: 1, client_id: "other-00" }, me);
    expect(view.items.map((i) => (i.kind === "notice" ? [i.event, i.language, i.count] : i.kind))).toEqual([
      ["you_joined", "en", 1],
      ["joined", "es", 2],
      ["left", undefined, 1],
    ]);
    expect(view).toMatchObject({ count: 1, partner: "es", others: ["es"] });
  });

  it("puts transcripts in the conversation and a room error as a notice", () => {
    let view = applyRoomMessage(EMPTY_ROOM, room({ is_mine: true, is_interim: true }), me);
    view = applyRoomMessage(view, room({ is_mine: true, original: "Hola." }), me);
    expect(utterances(view.items)).toEqual([expect.objectContaining({ id: "u1", final: true, mine: true })]);
    view = applyRoomMessage(view, { type: "error", code: "no_engine", message: "no free engine" }, me);
    expect(view.items.at(-1)).toMatchObject({ kind: "notice", event: "problem", code: "no_engine" });
  });
});

describe("room connection", () => {
  it("treats the room's own closes as final and a drop as retryable for 30 s", () => {
    for (const code of [1000, 1009, 4400, 4404, 4408, 4409, 4429])
      expect(afterClose(code, 0), String(code)).toBe("final");
    for (const code of [1001, 1006, 1011, 1012])
      expect(afterClose(code, 1_000), String(code)).toBe("reconnect");
    expect(afterClose(1006, RECONNECT_WINDOW_MS)).toBe("give_up");
  });

  it("backs off 0.5, 1, 2, then 4 s", () => {
    expect([0, 1, 2, 3, 9].map(reconnectDelayMs)).toEqual([500, 1_000, 2_000, 4_000, 4_000]);
  });

  it("starts a participant in the remembered language, else the browser's supported one, else the session's other", () => {
    const base = { remembered: null, supported: ["en", "es"], sessionTarget: "es" };
    expect(defaultRoomLanguage({ ...base, browser: ["fr-FR", "en-GB"] })).toBe("en");
    expect(defaultRoomLanguage({ ...base, browser: ["fr-FR", "de"] })).toBe("es");
    expect(defaultRoomLanguage({ ...base, remembered: "es", browser: ["en-US"] })).toBe("es");
    expect(defaultRoomLanguage({ ...base, remembered: "xx", browser: ["en-US"] })).toBe("en");
  });
});

describe("language pair", () => {
  const languages = {
    supported_languages: [
      ["en", "English"],
      ["es", "Spanish"],
      ["fr", "French"],
    ] as [string, string][],
    default_source: "en",
    default_target: "es",
    translation_pairs: [
      ["en", "es"],
      ["es", "en"],
    ] as [string, string][],
    asr_languages: [],
  };

  it("starts from the saved pair while the deployment has both languages, else its defaults", () => {
    expect(initialPair(languages, { source: "es", target: "en" })).toEqual({ source: "es", target: "en" });
    expect(initialPair(languages, { source: "vi", target: "en" })).toEqual({ source: "en", target: "es" });
    expect(initialPair(languages, null)).toEqual({ source: "en", target: "es" });
  });

  it("swaps, swaps when one side takes the other's language, and knows the directions it translates", () => {
    const pair = { source: "en", target: "es" };
    expect(swapped(pair)).toEqual({ source: "es", target: "en" });
    expect(withSource(pair, "es")).toEqual({ source: "es", target: "en" });
    expect(withTarget(pair, "en")).toEqual({ source: "es", target: "en" });
    expect(withTarget(pair, "fr")).toEqual({ source: "en", target: "fr" });
    expect(translatesPair(languages, pair)).toBe(true);
    expect(translatesPair(languages, { source: "en", target: "fr" })).toBe(false);
  });
});
