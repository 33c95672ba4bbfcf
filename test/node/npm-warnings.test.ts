/**
 * A newcomer's npm commands print no warning of ours: no unknown project config, and every dependency's
 * install script approved or denied in package.json's allowScripts (npm 11 lists the rest after every
 * install).
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");

function npm(...args: string[]) {
  return spawnSync("npm", args, { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
}

describe("npm warnings", () => {
  it("npm prints no warning about the project's config", () => {
    const run = npm("ls", "--depth=0");
    expect(run.status).toBe(0);
    expect(run.stderr).not.toMatch(/npm warn/i);
  });

  it("every installed dependency's install script is approved or denied", () => {
    const run = npm("install-scripts", "ls");
    expect(run.status).toBe(0);
    expect(run.stdout.trim()).toBe("No packages with unreviewed install scripts.");
    expect(run.stderr).not.toMatch(/npm warn/i);
  });
});
