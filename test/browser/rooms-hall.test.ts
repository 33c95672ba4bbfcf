import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeWav } from "../helpers/wav.ts";
import { speechPcm } from "../native/audio.ts";
import { concat, quiet, tone } from "../node/live-helpers.ts";
import { launchChromium, screenshot, signedInPage, stackInfo, tempDir } from "./chromium.ts";
import { decodeQr } from "./qr.ts";

/**
 * The room console as a hall uses it, in Chromium against the stack (its node translates en↔es with
 * Apertium; the synthetic model's words are noise, so the checks are about who sees what): the host
 * (English interface, speaking English) with its panel, a speaker on a Spanish phone, and a listener
 * on a phone with the Vietnamese interface reading the translation in large type, hearing it read
 * aloud, switching its language. Then the host's actions: make a listener, give the floor, remove,
 * lock (a new join is refused), the QR code on the wall, the transcript, the end.
 */

let browser: Browser;
let media: ReturnType<typeof tempDir>;

beforeAll(async () => {
  media = tempDir();
  const wav = path.join(media.dir, "mic.wav");
  const speech = await speechPcm("Good morning everyone. The meeting starts now.");
  writeWav(wav, concat(quiet(400), speech, quiet(1600)));
  browser = await launchChromium([
    "--use-fake-ui-for-media-stream",
    "--use-fake-device-for-media-stream",
    `--use-file-for-fake-audio-capture=${wav}`,
    "--autoplay-policy=no-user-gesture-required",
  ]);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  media?.remove();
});

const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true } as const;

/** What a page's room sockets carried: the URLs opened, the JSON frames sent and received. */
function watchSockets(page: Page) {
  const seen = {
    urls: [] as URL[],
    sent: [] as Record<string, unknown>[],
    received: [] as Record<string, unknown>[],
  };
  const json = (payload: string | Buffer) => {
    if (typeof payload !== "string") return null;
    try {
      return JSON.parse(payload) as Record<string, unknown>;
    } catch {
      return null;
    }
  };
  page.on("websocket", (socket) => {
    const url = new URL(socket.url());
    if (!url.pathname.startsWith("/api/v1/ws/")) return;
    seen.urls.push(url);
    socket.on("framesent", ({ payload }) => {
      const message = json(payload);
      if (message) seen.sent.push(message);
    });
    socket.on("framereceived", ({ payload }) => {
      const message = json(payload);
      if (message) seen.received.push(message);
    });
  });
  return seen;
}

/** Records, in the page, each text the listener view shows as being read aloud, and the audio element's ends. */
async function recordReading(page: Page): Promise<void> {
  await page.evaluate(() => {
    const log = { reading: [] as string[], ended: 0 };
    (window as unknown as { readLog: typeof log }).readLog = log;
    document.querySelector(".room audio")?.addEventListener("ended", () => log.ended++);
    new MutationObserver(() => {
      const text = document.querySelector(".listener-reading [lang]")?.textContent ?? null;
      if (text !== null && log.reading.at(-1) !== text) log.reading.push(text);
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
}
const readLog = (page: Page) =>
  page.evaluate(() => (window as unknown as { readLog: { reading: string[]; ended: number } }).readLog);

/** A phone that opens the join link (no API key). */
async function phone(locale: string, joinUrl: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ locale, ...PHONE });
  const page = await context.newPage();
  await page.goto(joinUrl);
  return { context, page };
}

describe("rooms for a hall", () => {
  it("host, speaker and listener; read aloud and a language switch; the host's actions reach everyone; lock, QR wall, transcript, end", async () => {
    // The host creates the room from Translate, then joins it with a name.
    const host = await signedInPage(browser);
    const page = host.page;
    await page.goto(`${stackInfo().url}/translate`);
    await page.getByLabel("I speak").selectOption("en");
    await page.getByLabel("Translate into").selectOption("es");
    await page.getByRole("button", { name: "Create a room" }).click();
    const joinUrl = await page.getByLabel("Join link", { exact: true }).inputValue();
    // the host token stays in this browser's storage, under this room only
    const conversationId = joinUrl.split("/").at(-1) as string;
    expect(
      await page.evaluate((id) => localStorage.getItem(`voxedge.room.${id}.host`), conversationId),
    ).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const hostSockets = watchSockets(page);
    await page.getByRole("link", { name: "Enter the room" }).click();
    await page.getByLabel("Your name (shown to everyone)").fill("Hana");
    await page.getByRole("button", { name: "Join the conversation" }).click();
    await page.getByText("You joined, speaking English.").waitFor();
    await page.getByRole("heading", { name: "Host controls" }).waitFor();
    // the token goes out only as the control route's header, never on the socket
    const token = await page.evaluate(
      (id) => localStorage.getItem(`voxedge.room.${id}.host`),
      conversationId,
    );
    expect(hostSockets.urls.map((url) => url.href).join(" ")).not.toContain(token);

    // A speaker on a Spanish phone.
    const ana = await phone("es-ES", joinUrl);
    await ana.page.getByLabel("Your name (shown to everyone)").fill("Ana");
    expect(await ana.page.getByLabel("Your language").inputValue()).toBe("es");
    await ana.page.getByRole("button", { name: "Join the conversation" }).click();
    await page.getByText("Ana joined, speaking Spanish · 2 in the conversation").waitFor();
    // only the browser holding the host token is the host
    await ana.page.getByText(/^Connected · 2 in the conversation$/).waitFor();
    expect(await ana.page.getByRole("heading", { name: "Host controls" }).count()).toBe(0);

    // A listener on a phone in Vietnamese: the interface speaks Vietnamese; it reads in Spanish.
    const binh = await phone("vi-VN", joinUrl);
    const binhSockets = watchSockets(binh.page);
    // A language named inside a Vietnamese sentence is "tiếng …", lower case; a label keeps "Tiếng …".
    await binh.page
      .getByText("Một cuộc hội thoại có dịch, bắt đầu bằng tiếng Anh và tiếng Tây Ban Nha.", { exact: true })
      .waitFor();
    await binh.page.getByLabel("Tên của bạn (mọi người đều thấy)").fill("Bình");
    await binh.page.getByLabel("Người nghe: tôi sẽ đọc và nghe").check();
    await binh.page.getByRole("button", { name: "Tham gia hội thoại" }).click();
    await binh.page.getByText("Đã kết nối · 3 người trong hội thoại").waitFor();
    await binh.page.getByText("Bạn đang nghe bằng tiếng Tây Ban Nha.", { exact: true }).waitFor();
    await page.getByText("Bình joined, speaking Spanish · 3 in the conversation").waitFor();
    expect(binhSockets.urls[0]?.searchParams.get("role")).toBe("listener");
    expect(binhSockets.urls[0]?.searchParams.get("name")).toBe("Bình");
    expect(await binh.page.getByRole("button", { name: "Nhấn để nói" }).count()).toBe(0);
    expect(
      await binh.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
    ).toBeLessThanOrEqual(0);

    // The host sees everyone with their role and language.
    const rows = page.locator(".host-participant");
    await expect.poll(() => rows.count()).toBe(3);
    expect(await rows.allTextContents()).toEqual([
      expect.stringMatching(/^Hana \(you\)speaker · English/),
      expect.stringMatching(/^Anaspeaker · Spanish/),
      expect.stringMatching(/^Bìnhlistener · Spanish/),
    ]);

    // Read aloud on, then the host speaks.
    await binh.page.getByRole("button", { name: "Đọc to" }).click();
    expect(await binh.page.getByRole("button", { name: "Đọc to" }).getAttribute("aria-pressed")).toBe("true");
    expect(binhSockets.sent).toContainEqual({ type: "speak", enabled: true });
    await recordReading(binh.page);
    await page.getByRole("button", { name: "Tap to speak" }).click();
    const big = binh.page.locator(".listener-text");
    await big.waitFor({ timeout: 90_000 });
    expect((await big.textContent())?.trim()).not.toBe("");
    expect(await big.getAttribute("lang")).toBe("es");
    expect(await binh.page.locator(".listener-who").textContent()).toBe("Hana · Tiếng Anh");
    expect(
      Number.parseFloat(await big.evaluate((el) => getComputedStyle(el).fontSize)),
    ).toBeGreaterThanOrEqual(27);
    await ana.page
      .locator(".bubble.theirs.final .bubble-who", { hasText: "Hana · English" })
      .first()
      .waitFor();
    await screenshot(binh.page, "rooms-hall-listener");

    // Spoken translations: the room sends them to participants with speak on (the node speaks with espeak-ng).
    const welcome = binhSockets.received.find((m) => m.type === "welcome");
    expect(welcome).toHaveProperty("speak");
    await expect
      .poll(async () => (await readLog(binh.page)).ended, { timeout: 60_000 })
      .toBeGreaterThanOrEqual(1);
    const clips = binhSockets.received.filter((m) => m.type === "translation_audio");
    const read = (await readLog(binh.page)).reading;
    // what was read is the clips' texts, in the order the room numbered them
    expect(read).toEqual(
      clips
        .toSorted((a, b) => (a.seq as number) - (b.seq as number))
        .map((clip) => clip.text)
        .slice(0, read.length),
    );

    // The listener switches to English: the same place (resume token), the next finals in English.
    const notices = await page.locator(".room-notice").allTextContents();
    await binh.page.getByLabel("Ngôn ngữ của bạn").selectOption("en");
    await binh.page.locator(".listener-text[lang=en]").waitFor({ timeout: 90_000 });
    const switched = binhSockets.urls.at(-1) as URL;
    expect(switched.searchParams.get("language")).toBe("en");
    expect(switched.searchParams.get("resume")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await page.locator(".room-notice").allTextContents()).slice(0, notices.length)).toEqual(notices);
    expect(await page.getByText("Bình left").count()).toBe(0);
    await page.getByRole("button", { name: "Stop speaking" }).click();

    // Make Ana a listener, then give her the floor: she sees both, and her page follows her role.
    await page.getByRole("button", { name: "Make Ana a listener" }).click();
    await ana.page.getByText("The host made you a listener.").waitFor();
    await ana.page.locator(".listener").waitFor();
    expect(await ana.page.getByRole("button", { name: "Tap to speak" }).count()).toBe(0);
    await page.getByText("The host made Ana a listener.").waitFor();
    await page.getByRole("button", { name: "Give Ana the floor" }).click();
    await ana.page.getByText("The host gave you the floor.").waitFor();
    await ana.page.getByRole("button", { name: "Tap to speak" }).waitFor();

    // Remove Bình: the listener is told, in Vietnamese, and is back at the door.
    await page.getByRole("button", { name: "Remove Bình" }).click();
    await binh.page.getByText("Chủ phòng đã mời bạn ra khỏi cuộc hội thoại này.").waitFor();
    await binh.page.getByRole("button", { name: "Tham gia lại" }).waitFor();
    await page.getByText("The host removed Bình.").waitFor();
    await ana.page.getByText("The host removed Bình.").waitFor();
    await expect.poll(() => rows.count()).toBe(2);

    // Lock: nobody new gets in, the removed listener included (its place is gone: a new join).
    await page.getByRole("button", { name: "Lock the room" }).click();
    await page.getByText("Locked: nobody new can join.").waitFor();
    await ana.page.getByText("The host locked the room: nobody new can join.").waitFor();
    await binh.page.getByRole("button", { name: "Tham gia lại" }).click();
    await binh.page
      .getByText("Chủ phòng đã khóa cuộc hội thoại: hiện không ai mới có thể tham gia.")
      .waitFor({ timeout: 15_000 });
    const late = await phone("en-US", joinUrl);
    await late.page.getByRole("button", { name: "Join the conversation" }).click();
    const refused = late.page.getByRole("alert");
    await refused.waitFor({ timeout: 15_000 });
    expect(await refused.textContent()).toBe(
      "The host has locked this conversation: nobody new can join now.",
    );
    await screenshot(page, "rooms-hall-host");

    // The QR code for the wall, full screen, still the join link.
    await page.getByText("Invite someone").click();
    await page.getByRole("button", { name: "Show the QR code full screen" }).click();
    const wall = page.getByRole("dialog", { name: "Scan to join the conversation" });
    await wall.waitFor();
    const qr = wall.getByRole("img", { name: "QR code of the join link" });
    expect(await decodeQr(page, qr)).toBe(joinUrl);
    const viewport = await page.evaluate(() => Math.min(window.innerWidth, window.innerHeight));
    expect((await qr.boundingBox())?.width).toBeGreaterThanOrEqual(viewport * 0.6);
    await screenshot(page, "rooms-hall-qr-wall");
    await page.getByRole("button", { name: "Close the full-screen QR code" }).click();
    await wall.waitFor({ state: "detached" });

    // The transcript from the host's room page: in Spanish as text, and as JSON.
    await page.getByLabel("Language of the transcript").selectOption({ label: "In Spanish" });
    const [txt] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download TXT" }).click(),
    ]);
    const text = await readFile((await txt.path()) as string, "utf8");
    expect(text).toMatch(/^Speaker 1: \S/);
    const [json] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download JSON" }).click(),
    ]);
    const body = JSON.parse(await readFile((await json.path()) as string, "utf8")) as {
      conversation_id: string;
      language: string;
      lines: { speaker: string; language: string; translated: boolean }[];
    };
    expect(body).toMatchObject({ conversation_id: conversationId, language: "es" });
    expect(body.lines.length).toBeGreaterThan(0);
    expect(body.lines[0]).toMatchObject({ speaker: "Speaker 1", language: "en", translated: true });
    await page.getByRole("button", { name: "Make a note of it" }).click();
    await page.getByRole("link", { name: "Note made: open it in Studio" }).waitFor();

    // The end: everyone is told, and the room is gone.
    await page.getByRole("button", { name: "End the room for everyone" }).click();
    await page.getByRole("button", { name: "Yes, end it now" }).click();
    for (const gone of [page, ana.page]) {
      await gone.getByRole("heading", { name: "This conversation has ended or does not exist" }).waitFor();
      await gone.getByText("The host ended this conversation.").waitFor();
    }
    expect(
      await page.evaluate((id) => localStorage.getItem(`voxedge.room.${id}.host`), conversationId),
    ).toBeNull();
    // The host's ended room still offers its transcript: original and Spanish, as WebVTT.
    expect(await page.getByLabel("Language of the transcript").inputValue()).toBe("both:es");
    const [vtt] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download VTT" }).click(),
    ]);
    expect(await readFile((await vtt.path()) as string, "utf8")).toMatch(
      /^WEBVTT\n\n[\s\S]*\d\d:\d\d\.\d{3} --> /,
    );
    expect(await ana.page.getByLabel("Language of the transcript").count()).toBe(0);

    for (const context of [late.context, binh.context, ana.context, host.context]) await context.close();
  }, 400_000);

  it("reads aloud through the page's <audio>: clips in seq order, each played to its end before the next, their text shown", async () => {
    const created = await fetch(`${stackInfo().url}/api/v1/session/create`, {
      method: "POST",
      headers: { authorization: `Bearer ${stackInfo().key}`, "content-type": "application/json" },
      body: JSON.stringify({ language: "en", translate_language: "es" }),
    });
    const { join_url: joinUrl } = (await created.json()) as { join_url: string };
    const clipFile = (ms: number) => {
      const file = path.join(media.dir, `clip-${ms}.wav`);
      writeWav(file, tone(ms));
      return readFileSync(file).toString("base64");
    };
    const clips = [700, 300, 500].map((ms, i) => ({
      type: "translation_audio",
      seq: 10 + i,
      speaker: "speaker-0001",
      speaker_name: "Hana",
      language: "es",
      text: `frase ${i + 1}`,
      content_type: "audio/wav",
      duration: ms / 1000,
      audio: clipFile(ms),
    }));

    const listener = await browser.newContext({ locale: "en-US", ...PHONE });
    // The room's socket, with the spoken translations played by a proxy in front of it: the room
    // answers everything else; on the page's `speak` the clips follow, in one burst and out of order
    // once (a repeat of seq 10), as a room ahead of its listener would send them.
    await listener.routeWebSocket(/\/api\/v1\/ws\//, (socket) => {
      const room = socket.connectToServer();
      socket.onMessage((message) => {
        const asked =
          typeof message === "string" ? (JSON.parse(message) as { type?: string; enabled?: boolean }) : null;
        if (asked?.type !== "speak") return room.send(message);
        if (asked.enabled)
          for (const clip of [clips[0], clips[1], clips[0], clips[2]]) socket.send(JSON.stringify(clip));
      });
    });
    const page = await listener.newPage();
    await page.goto(joinUrl);
    await page.getByLabel("Listener: I will read and listen").check();
    await page.getByRole("button", { name: "Join the conversation" }).click();
    await page.getByText(/^Connected · \d+ in the conversation$/).waitFor();
    await page.evaluate(() => {
      const events: string[] = [];
      (window as unknown as { audioEvents: string[] }).audioEvents = events;
      const audio = document.querySelector(".room audio") as HTMLAudioElement;
      for (const type of ["playing", "ended"]) {
        audio.addEventListener(type, () => {
          const reading = document.querySelector(".listener-reading [lang]")?.textContent ?? "-";
          // the duration tells the clips apart (0.7, 0.3, 0.5 s) from the tap's silent unlock (0.1 s)
          events.push(`${type} ${audio.duration.toFixed(1)} ${reading}`);
        });
      }
    });
    await page.getByRole("button", { name: "Read aloud" }).click();
    const events = () => page.evaluate(() => (window as unknown as { audioEvents: string[] }).audioEvents);
    const clipEvents = async () => (await events()).filter((e) => !e.includes(" 0.1 "));
    await expect
      .poll(async () => (await clipEvents()).filter((e) => e.startsWith("ended")).length, { timeout: 30_000 })
      .toBe(3);
    // After the tap's silent unlock, each clip starts only after the one before it ended, none cut short.
    expect(await clipEvents()).toEqual([
      "playing 0.7 frase 1",
      "ended 0.7 frase 1",
      "playing 0.3 frase 2",
      "ended 0.3 frase 2",
      "playing 0.5 frase 3",
      "ended 0.5 frase 3",
    ]);
    await page.locator(".listener-reading").waitFor({ state: "detached" });
    await listener.close();
  });
});
