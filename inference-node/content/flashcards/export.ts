/**
 * A flashcard set as files: JSON, CSV (for spreadsheets and Quizlet-style imports) and an Anki
 * package (.apkg) that Anki's importer opens as one deck.
 */
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import JSZip from "jszip";
import initSqlJs from "sql.js";
import type { Flashcard, FlashcardSet } from "./generate.ts";

/** The JSON file: the set as generated. */
export function flashcardsJson(set: FlashcardSet): string {
  return `${JSON.stringify(set, null, 2)}\n`;
}

export const CSV_COLUMNS = ["front", "back", "source_sentence", "tags"] as const;

/**
 * One RFC 4180 field: quoted (quotes doubled) when it holds a comma, a quote or a line break.
 * Spreadsheets evaluate a cell that starts with = + - @ (or a tab or CR) as a formula, and a note's
 * text is not ours: such a cell gets a leading apostrophe, which they show as text (OWASP's advice
 * against CSV injection). The JSON and the .apkg keep the text as written.
 */
function csvField(value: string): string {
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * The CSV file (RFC 4180: CRLF line ends, a header row, tags space-separated in one field).
 * It starts with a UTF-8 byte-order mark because Excel reads a CSV without one in the system's
 * ANSI code page (Windows-1252 in most locales), which turns Vietnamese "Sông" into "SÃ´ng"; with
 * the mark it reads UTF-8. Other readers (Python's csv with utf-8-sig, Google Sheets) skip it.
 */
export function flashcardsCsv(cards: readonly Flashcard[]): string {
  const rows = [
    CSV_COLUMNS.join(","),
    ...cards.map((c) => [c.front, c.back, c.source_sentence, c.tags.join(" ")].map(csvField).join(",")),
  ];
  return `\uFEFF${rows.join("\r\n")}\r\n`;
}

/*
 * Anki's package format, as Anki's importer reads it (facts from Anki's rslib/src/storage/schema11.sql
 * and the genanki writer):
 * - An .apkg is a zip of `collection.anki2` (an SQLite database in the legacy "schema 11" layout:
 *   tables col, notes, cards, revlog, graves) and `media`, a JSON object mapping the zip's numbered
 *   media files to their names (`{}` when there are none).
 * - col holds one row whose `models` is a JSON object of note types by id (fields `flds`, card
 *   templates `tmpls` with `qfmt`/`afmt`, `req` saying which fields a card needs) and `decks` a JSON
 *   object of decks by id (deck 1, "Default", always exists). ver = 11.
 * - A note: id (ms epoch, unique), guid (unique text; re-importing the same guid updates the note),
 *   mid (its note type), mod (s epoch), usn -1 (not synced), tags (" a b " space-padded), flds (the
 *   field values joined by \x1f), sfld (the sort field's text), csum (the first 8 hex digits of the
 *   SHA-1 of the first field with HTML stripped, as an integer: Anki's duplicate check), flags 0, data "".
 * - A card per note and template: type 0 / queue 0 (new), due = its position among new cards.
 * Field values are HTML in Anki, so the text is escaped.
 */
const BASIC_MODEL_ID = 1_700_000_000_001;
const DEFAULT_DECK_ID = 1;

/** Anki's field checksum: the first 8 hex digits of SHA-1 of the field's plain text, as a number. */
export function fieldChecksum(text: string): number {
  return Number.parseInt(createHash("sha1").update(text, "utf8").digest("hex").slice(0, 8), 16);
}

const escapeHtml = (text: string) =>
  text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");

/** A stable positive id (under 2^53) from text, so one note's deck keeps its id across exports. */
function idFrom(text: string): number {
  return Number.parseInt(createHash("sha1").update(text).digest("hex").slice(0, 12), 16);
}

function basicModel(deckId: number, nowSec: number) {
  const field = (name: string, ord: number) => ({
    name,
    ord,
    sticky: false,
    rtl: false,
    font: "Arial",
    size: 20,
    media: [],
  });
  return {
    id: BASIC_MODEL_ID,
    name: "Voxedge Basic",
    type: 0,
    mod: nowSec,
    usn: -1,
    sortf: 0,
    did: deckId,
    tmpls: [
      {
        name: "Card 1",
        ord: 0,
        qfmt: "{{Front}}",
        afmt: '{{FrontSide}}<hr id="answer">{{Back}}',
        did: null,
        bqfmt: "",
        bafmt: "",
      },
    ],
    flds: [field("Front", 0), field("Back", 1)],
    css: ".card { font-family: Arial; font-size: 20px; text-align: center; color: black; background-color: white; }",
    latexPre: "\\documentclass[12pt]{article}\n\\begin{document}\n",
    latexPost: "\\end{document}",
    latexsvg: false,
    req: [[0, "any", [0]]],
    tags: [],
    vers: [],
  };
}

function deckEntry(id: number, name: string, nowSec: number) {
  return {
    id,
    name,
    desc: "",
    mod: nowSec,
    usn: -1,
    collapsed: false,
    dyn: 0,
    conf: 1,
    extendNew: 10,
    extendRev: 50,
    newToday: [0, 0],
    revToday: [0, 0],
    lrnToday: [0, 0],
    timeToday: [0, 0],
  };
}

/**
 * Deck options group 1 ("Default", Anki's own defaults). Anki upgrades an imported schema-11
 * collection by parsing each group, and id, mod, name, usn, maxTaken, autoplay, timer, new, rev and
 * lapse are required keys there (rslib/src/deckconfig/schema11.rs): a partial group fails the import.
 */
function defaultDeckOptions() {
  return {
    id: 1,
    mod: 0,
    name: "Default",
    usn: 0,
    maxTaken: 60,
    autoplay: true,
    timer: 0,
    replayq: true,
    dyn: false,
    new: { bury: false, delays: [1, 10], initialFactor: 2500, ints: [1, 4, 0], order: 1, perDay: 20 },
    rev: { bury: false, ease4: 1.3, ivlFct: 1, maxIvl: 36500, perDay: 200, hardFactor: 1.2 },
    lapse: { delays: [10], leechAction: 1, leechFails: 8, minInt: 1, mult: 0 },
  };
}

const SCHEMA_11 = `
create table col (id integer primary key, crt integer not null, mod integer not null, scm integer not null,
  ver integer not null, dty integer not null, usn integer not null, ls integer not null, conf text not null,
  models text not null, decks text not null, dconf text not null, tags text not null);
create table notes (id integer primary key, guid text not null, mid integer not null, mod integer not null,
  usn integer not null, tags text not null, flds text not null, sfld integer not null, csum integer not null,
  flags integer not null, data text not null);
create table cards (id integer primary key, nid integer not null, did integer not null, ord integer not null,
  mod integer not null, usn integer not null, type integer not null, queue integer not null, due integer not null,
  ivl integer not null, factor integer not null, reps integer not null, lapses integer not null,
  left integer not null, odue integer not null, odid integer not null, flags integer not null, data text not null);
create table revlog (id integer primary key, cid integer not null, usn integer not null, ease integer not null,
  ivl integer not null, lastIvl integer not null, factor integer not null, time integer not null, type integer not null);
create table graves (usn integer not null, oid integer not null, type integer not null);
create index ix_notes_usn on notes (usn);
create index ix_cards_usn on cards (usn);
create index ix_revlog_usn on revlog (usn);
create index ix_cards_nid on cards (nid);
create index ix_cards_sched on cards (did, queue, due);
create index ix_revlog_cid on revlog (cid);
create index ix_notes_csum on notes (csum);
`;

const sqlJsDist = dirname(createRequire(import.meta.url).resolve("sql.js"));
let sqlJs: ReturnType<typeof initSqlJs> | undefined;

export interface ApkgOptions {
  deckName: string;
  /** Seeds the deck id and note guids, so exporting the same note again updates the same deck. */
  seed: string;
  now?: Date;
}

/** The `collection.anki2` database of one deck holding a Basic (Front/Back) note per card. */
export async function ankiCollection(cards: readonly Flashcard[], options: ApkgOptions): Promise<Uint8Array> {
  sqlJs ??= initSqlJs({ locateFile: (file: string) => join(sqlJsDist, file) });
  const SQL = await sqlJs;
  const nowMs = (options.now ?? new Date()).getTime();
  const nowSec = Math.floor(nowMs / 1000);
  const deckId = idFrom(`deck:${options.seed}`);
  const db = new SQL.Database();
  try {
    db.run(SCHEMA_11);
    const conf = {
      nextPos: cards.length + 1,
      curDeck: deckId,
      curModel: String(BASIC_MODEL_ID),
      activeDecks: [deckId],
    };
    const decks = {
      [DEFAULT_DECK_ID]: deckEntry(DEFAULT_DECK_ID, "Default", nowSec),
      [deckId]: deckEntry(deckId, options.deckName, nowSec),
    };
    db.run("insert into col values (1, ?, ?, ?, 11, 0, 0, 0, ?, ?, ?, ?, '{}')", [
      nowSec,
      nowMs,
      nowMs,
      JSON.stringify(conf),
      JSON.stringify({ [BASIC_MODEL_ID]: basicModel(deckId, nowSec) }),
      JSON.stringify(decks),
      JSON.stringify({ 1: defaultDeckOptions() }),
    ]);
    cards.forEach((card, i) => {
      const id = nowMs + i;
      const tags = card.tags.length > 0 ? ` ${card.tags.join(" ")} ` : "";
      db.run("insert into notes values (?, ?, ?, ?, -1, ?, ?, ?, ?, 0, '')", [
        id,
        idFrom(`note:${options.seed}:${card.front}`).toString(36),
        BASIC_MODEL_ID,
        nowSec,
        tags,
        [card.front, card.back].map(escapeHtml).join("\x1f"),
        card.front,
        fieldChecksum(card.front),
      ]);
      db.run("insert into cards values (?, ?, ?, 0, ?, -1, 0, 0, ?, 0, 0, 0, 0, 0, 0, 0, 0, '')", [
        id,
        id,
        deckId,
        nowSec,
        i + 1,
      ]);
    });
    return db.export();
  } finally {
    db.close();
  }
}

/** The .apkg file: collection.anki2 and an empty media map, zipped. */
export async function flashcardsApkg(
  set: FlashcardSet,
  options: Omit<ApkgOptions, "deckName">,
): Promise<Uint8Array> {
  const zip = new JSZip();
  zip.file("collection.anki2", await ankiCollection(set.cards, { ...options, deckName: set.title }));
  zip.file("media", "{}");
  return zip.generateAsync({ type: "uint8array", compression: "DEFLATE" });
}
