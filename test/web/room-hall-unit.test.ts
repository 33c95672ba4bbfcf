import { describe, expect, it } from "vitest";
import type { RoomTranscript } from "../../protocol/rooms.ts";
import { applyRoomMessage, EMPTY_ROOM, latestHeard, type RoomView } from "../../web/src/room/room-view.ts";

/** The room console's pure parts: who is in the room, the host's actions as the feed tells them. */

const me = "me-000000";
const ana = { client_id: "ana-0000", name: "Ana", role: "speaker" as const, language: "es" };
const binh = { client_id: "binh-000", name: "Bình", role: "listener" as const, language: "vi" };

function welcomed(): RoomView {
  return applyRoomMessage(
    EMPTY_ROOM,
    {
      type: "welcome",
      conversation_id: "c",
      client_id: me,
      resume_token: "r".repeat(43),
      language: "en",
      speak: false,
      client_count: 2,
      max_participants: 100,
      role: "speaker",
      name: "Host",
      participants: [{ client_id: me, name: "Host", role: "speaker", language: "en" }, ana],
      locked: false,
      sample_rate: 16000,
      format: "pcm_s16le",
    },
    me,
  );
}

const final = (over: Partial<RoomTranscript>): RoomTranscript => ({
  type: "transcript",
  original: "Hola.",
  translation: "Hello.",
  translation_language: "en",
  language: "es",
  utterance_id: "u1",
  start: 0,
  end: 1,
  is_mine: false,
  is_interim: false,
  speaker: ana.client_id,
  ...over,
});

describe("room console view", () => {
  it("keeps the participants from the welcome, joins, leaves and host changes, and who this participant is", () => {
    let view = welcomed();
    expect(view).toMatchObject({ me, role: "speaker", locked: false, count: 2 });
    view = applyRoomMessage(view, { type: "user_joined", client_count: 3, ...binh }, me);
    expect(view.participants.map((p) => p.name)).toEqual(["Host", "Ana", "Bình"]);
    view = applyRoomMessage(
      view,
      {
        type: "participants",
        participants: [{ client_id: me, name: "Host", role: "listener", language: "en" }, ana, binh],
      },
      me,
    );
    expect(view.role).toBe("listener");
    view = applyRoomMessage(view, { type: "user_left", client_count: 2, client_id: ana.client_id }, me);
    expect(view.participants.map((p) => p.client_id)).toEqual([me, binh.client_id]);
    const notices = view.items.flatMap((i) => (i.kind === "notice" ? [[i.event, i.name]] : []));
    expect(notices).toEqual([
      ["joined", "Bình"],
      ["left", "Ana"],
    ]);
  });

  it("puts every host action in the feed, naming whom it concerns (you, for this participant), and follows the lock", () => {
    let view = welcomed();
    const system = (event: "locked" | "unlocked" | "removed" | "floor_granted", participant: string | null) =>
      ({ type: "system", event, participant, by: "host" }) as const;
    view = applyRoomMessage(view, system("locked", null), me);
    expect(view.locked).toBe(true);
    view = applyRoomMessage(view, system("floor_granted", me), me);
    view = applyRoomMessage(view, system("removed", ana.client_id), me);
    view = applyRoomMessage(view, system("unlocked", null), me);
    expect(view.locked).toBe(false);
    expect(view.items.map((i) => (i.kind === "notice" ? [i.action, i.name, i.self] : null))).toEqual([
      ["locked", null, false],
      ["floor_granted", "Host", true],
      ["removed", "Ana", false],
      ["unlocked", null, false],
    ]);
  });

  it("gives the listener the newest final someone else said, with the speaker's name; spoken clips change nothing", () => {
    let view = welcomed();
    expect(latestHeard(view.items)).toBeNull();
    view = applyRoomMessage(view, final({ speaker_name: "Ana" }), me);
    view = applyRoomMessage(view, final({ utterance_id: "u2", is_mine: true, original: "mine" }), me);
    view = applyRoomMessage(view, final({ utterance_id: "u3", is_interim: true, original: "Bue" }), me);
    expect(latestHeard(view.items)).toMatchObject({ id: "u1", translation: "Hello.", speakerName: "Ana" });
    const before = view;
    view = applyRoomMessage(
      view,
      {
        type: "translation_audio",
        seq: 1,
        speaker: ana.client_id,
        language: "en",
        text: "Hello.",
        content_type: "audio/wav",
        duration: 1,
        audio: "",
      },
      me,
    );
    expect(view).toBe(before);
  });
});
