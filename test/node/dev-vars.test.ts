import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ensureDevSecret } from "../../scripts/lib/dev-vars.ts";

/** `npm start`'s local secrets file: readable by its owner only, however it was found. */

const modeOf = (path: string) => statSync(path).mode & 0o777;
const scratch = () => join(mkdtempSync(join(tmpdir(), "dev-vars-")), ".dev.vars");

describe(".dev.vars", () => {
  it("is created with mode 0600 and keeps the secrets it wrote", () => {
    const path = scratch();
    const token = ensureDevSecret(path, "NODE_TOKEN");
    expect(token).toMatch(/^[0-9a-f]{48}$/);
    expect(modeOf(path)).toBe(0o600);
    expect(ensureDevSecret(path, "NODE_TOKEN")).toBe(token);
  });

  it("is narrowed to 0600 when it already existed world-readable, whether a secret is added or only read", () => {
    const reading = scratch();
    writeFileSync(reading, "NODE_TOKEN=abc\n", { mode: 0o644 });
    expect(ensureDevSecret(reading, "NODE_TOKEN")).toBe("abc");
    expect(modeOf(reading)).toBe(0o600);

    const adding = scratch();
    writeFileSync(adding, "OTHER=1", { mode: 0o666 });
    const secret = ensureDevSecret(adding, "UPLOAD_SIGNING_SECRET");
    expect(readFileSync(adding, "utf8")).toBe(`OTHER=1\nUPLOAD_SIGNING_SECRET=${secret}\n`);
    expect(modeOf(adding)).toBe(0o600);
  });
});
