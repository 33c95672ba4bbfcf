import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sourceHash } from "../../scripts/lib/source-hash.mjs";

/** The hash `npm start` compares to decide whether the console must be rebuilt (scripts/build-web.mjs --if-stale). */

let root: string;
const write = (relative: string, text: string) => {
  mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
  writeFileSync(path.join(root, relative), text);
};
const hash = () =>
  sourceHash(root, ["web", "protocol", "package-lock.json"], new Set(["dist", "node_modules"]));

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), "voxedge-source-hash-"));
  write("web/src/app.tsx", "export const app = 1;\n");
  write("protocol/live.ts", "export const rate = 16000;\n");
  write("package-lock.json", "{}\n");
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("the console's source hash", () => {
  it("changes when a source's content changes, a file is added or one is renamed", () => {
    const before = hash();
    write("web/src/app.tsx", "export const app = 2;\n");
    const edited = hash();
    expect(edited).not.toBe(before);
    write("protocol/rooms.ts", "export {};\n");
    const added = hash();
    expect(added).not.toBe(edited);
    rmSync(path.join(root, "protocol/rooms.ts"));
    write("protocol/room.ts", "export {};\n");
    expect(hash()).not.toBe(added);
  });

  it("stays the same when only files' times change (a checkout) and ignores the build output and node_modules", () => {
    const before = hash();
    utimesSync(path.join(root, "web/src/app.tsx"), new Date(), new Date(Date.now() + 60_000));
    write("web/dist/index.html", "<html>built</html>");
    write("web/node_modules/x/index.js", "module.exports = 1;");
    expect(hash()).toBe(before);
  });

  it("counts a missing source as empty rather than failing", () => {
    expect(sourceHash(root, ["web", "no-such-folder"], new Set())).toBe(sourceHash(root, ["web"], new Set()));
  });
});
