import { readFileSync } from "node:fs";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ContentError } from "../../inference-node/content/errors.ts";
import { translateNote } from "../../inference-node/content/note-translation/translate-note.ts";
import { ApertiumTranslator } from "../../inference-node/translate/apertium.ts";
import { createTranslator } from "../../inference-node/translate/config.ts";
import { MtStatus } from "../../inference-node/translate/mt-status.ts";
import { TranslationError } from "../../inference-node/translate/translator.ts";
import { fromAlpha3 } from "../../protocol/iso639.ts";
import { type Apertium, startApertium } from "../../scripts/lib/apertium.ts";
import { freePort } from "../../scripts/lib/ports.ts";

/** The Apertium backend against the real APy server with Debian's apertium-eng-spa pair. */

let apy: Apertium;
beforeAll(async () => {
  apy = await startApertium();
}, 60_000);
afterAll(() => apy?.stop());

async function failure(fn: () => Promise<unknown>): Promise<TranslationError> {
  const err = await fn().then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TranslationError);
  return err as TranslationError;
}

/** Local addresses (hex, as the kernel writes them) of the TCP sockets listening on `port`. */
function listeningAddresses(port: number): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, "0");
  return ["/proc/net/tcp", "/proc/net/tcp6"].flatMap((table) =>
    readFileSync(table, "utf8")
      .split("\n")
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      .filter((fields) => fields[3] === "0A" && fields[1]?.endsWith(`:${hexPort}`))
      .map((fields) => fields[1]!.split(":")[0]!),
  );
}

describe("APy as the scripts start it", () => {
  it("listens on 127.0.0.1 only, never on every interface", () => {
    const addresses = listeningAddresses(Number(new URL(apy.url).port));
    expect(addresses.length).toBeGreaterThan(0);
    expect(
      addresses.every((address) => address === "0100007F"),
      addresses.join(", "),
    ).toBe(true);
  });
});

describe("ApertiumTranslator on APy", () => {
  it("lists the installed pairs with the API's two-letter codes (regional variants folded in)", async () => {
    const mt = new ApertiumTranslator({ url: `${apy.url}/` });
    expect(mt.model).toBe("apertium");
    const pairs = await mt.pairs();
    // APy lists spa→eng, spa→eng_US and eng→spa
    expect(pairs).toEqual(
      expect.arrayContaining([
        ["en", "es"],
        ["es", "en"],
      ]),
    );
    expect(pairs).toHaveLength(2);
  });

  it("translates English to Spanish and back", async () => {
    const mt = new ApertiumTranslator({ url: apy.url });
    const spanish = await mt.translate("The weather is nice today.", "en", "es");
    expect(spanish).toMatch(/tiempo/i);
    expect(spanish).not.toMatch(/weather/i);
    const english = await mt.translate("Hola, buenos días.", "es", "en");
    expect(english).toMatch(/hello/i);
  });

  it("passes unknown words through without Apertium's * markers", async () => {
    const mt = new ApertiumTranslator({ url: apy.url });
    const out = await mt.translate("Voxedge zorbly works", "en", "es");
    expect(out).toContain("Voxedge");
    expect(out).not.toContain("*");
  });

  it("sends long text in sentence chunks and keeps their order", async () => {
    const mt = new ApertiumTranslator({ url: apy.url, maxChunkChars: 100 });
    const text = Array.from({ length: 8 }, (_, i) => `I have ${i + 1} small dogs in the house.`).join(" ");
    const out = await mt.translate(text, "en", "es");
    const numbers = [...out.matchAll(/\d+/g)].map((m) => Number(m[0]));
    expect(numbers).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(out).toMatch(/perros/);
  });

  it("refuses a pair that is not installed with `unsupported`, naming it", async () => {
    const mt = new ApertiumTranslator({ url: apy.url });
    const err = await failure(() => mt.translate("Hello", "en", "vi"));
    expect(err.code).toBe("unsupported");
    expect(err.message).toBe("apertium: en → vi is not installed on this server");
    expect((await failure(() => mt.translate("Hello", "en", "xx"))).code).toBe("unsupported");
  });

  it("fails a note asked in a language it has no pair for translation_unavailable, in words a user reads", async () => {
    // npm start's Apertium and an English note asked in Vietnamese: a pair missing is not a failure of the
    // translator, and the owner's message names no class of ours.
    const mt = new ApertiumTranslator({ url: apy.url });
    const failed = await translateNote(
      { note_id: "n1", title: "Rivers", language: "en", content: "The Mekong is long." },
      "vi",
      (text, from, to, signal) => mt.translate(text, from, to, signal),
      new AbortController().signal,
    ).then(
      () => null,
      (error: unknown) => error as ContentError,
    );
    expect(failed).toBeInstanceOf(ContentError);
    expect(failed).toMatchObject({ code: "translation_unavailable" });
    expect(failed?.message).toBe("translation en->vi: apertium: en → vi is not installed on this server");
  });

  it("answers same-language and blank text without a server, and reports an unreachable one", async () => {
    const mt = new ApertiumTranslator({ url: `http://127.0.0.1:${await freePort()}` });
    await expect(mt.translate("Hello", "en", "en")).resolves.toBe("Hello");
    await expect(mt.translate("   ", "en", "es")).resolves.toBe("");
    const err = await failure(() => mt.pairs());
    expect(err.code).toBe("network");
    expect(err.message).toMatch(/^apertium: request to http:\/\/127\.0\.0\.1:\d+\/listPairs failed/);
  });

  it("is built by createTranslator from VOXEDGE_MT_BACKEND=apertium settings", async () => {
    const mt = createTranslator({ backend: "apertium", url: apy.url });
    expect(mt).toBeInstanceOf(ApertiumTranslator);
    await expect(mt?.translate("Good morning", "en", "es")).resolves.toMatch(/buenos/i);
  });
});

describe("Apertium language codes", () => {
  it("maps ISO 639-3 names (and individual-language codes) to the API's codes", () => {
    expect(fromAlpha3("eng")).toBe("en");
    expect(fromAlpha3("spa")).toBe("es");
    expect(fromAlpha3("eng_US")).toBe("en");
    expect(fromAlpha3("cat_valencia")).toBe("ca");
    expect(fromAlpha3("nob")).toBe("no");
    expect(fromAlpha3("nno")).toBe("nn");
    expect(fromAlpha3("zsm")).toBe("ms");
    expect(fromAlpha3("epo")).toBeNull();
  });
});

describe("MtStatus on APy", () => {
  it("says which directions to ask: the installed pair's, not VI<->EN, which Apertium has no pair for", async () => {
    const silent = pino({ level: "silent" });
    const down = new MtStatus(
      new ApertiumTranslator({ url: `http://127.0.0.1:${await freePort()}/` }),
      silent,
    );
    // no answer yet (or a backend that is down): the call is made, and its failure logged
    expect(down.translates("en", "vi")).toBe(true);
    const mt = new MtStatus(new ApertiumTranslator({ url: `${apy.url}/` }), silent);
    await mt.start();
    try {
      expect(mt.translates("en", "es")).toBe(true);
      expect(mt.translates("es", "en")).toBe(true);
      expect(mt.translates("en", "vi")).toBe(false);
      expect(mt.translates("vi", "en")).toBe(false);
    } finally {
      mt.stop();
    }
  });
});
