/**
 * npm start's preflight names a missing platform package with the command that installs it, and starts
 * nothing without it.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { preflight } from "../../scripts/lib/preflight.ts";
import { systemPackages } from "../../scripts/system-packages.mjs";

const ROOT = path.resolve(import.meta.dirname, "../..");

describe("npm start's preflight", () => {
  it("asks for the platform's required packages only, and names each missing one with its install command", () => {
    const asked: string[] = [];
    const result = preflight(systemPackages(), (packages) => {
      asked.push(...packages.map((pkg) => pkg.name));
      return packages.filter((pkg) => pkg.name === "ffmpeg");
    });
    // test-only tools and the optional translation server never stop npm start
    expect(asked.sort()).toEqual(["espeak-ng", "ffmpeg", "poppler-utils"]);
    expect(result.missing.map((pkg) => pkg.name)).toEqual(["ffmpeg"]);
    expect(result.message).toMatch(/^ {2}ffmpeg: decodes every upload/m);
    expect(result.message).toContain("Install with: sudo apt-get install ffmpeg\n");
  });

  it("passes when nothing is missing", () => {
    expect(preflight(systemPackages(), () => [])).toEqual({ missing: [], message: "" });
  });

  it("npm start on a PATH without ffmpeg, espeak-ng and poppler exits 1 naming them, before starting anything", () => {
    // A PATH with only Node on it (no dpkg either): the packages count as missing by their programs.
    const bin = mkdtempSync(path.join(tmpdir(), "voxedge-preflight-"));
    symlinkSync(process.execPath, path.join(bin, "node"));
    const run = spawnSync(process.execPath, ["--import", "tsx", "scripts/start.ts"], {
      cwd: ROOT,
      env: { PATH: bin, HOME: process.env.HOME ?? tmpdir(), PORT: "1" },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("Install with: sudo apt-get install ffmpeg espeak-ng poppler-utils");
    expect(run.stdout).not.toContain("Voxedge is up");
  });
});
