import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The folders depend one way: worker/ → durable-objects/ → platform/ → protocol/, and the node
 * (inference-node/, native/) only on protocol/. A module that imports against that direction would
 * bring back the cycles the task contract removed. The typed client (client/) is a leaf: it imports
 * only itself (its generated types included), so it can ship without the server's code.
 */

const ROOT = resolve(import.meta.dirname, "../..");

function sources(folder: string): string[] {
  const dir = join(ROOT, folder);
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(relative(ROOT, path));
    return name.endsWith(".ts") ? [path] : [];
  });
}

/** Top-level folders a file imports from (relative imports only). */
function importedFolders(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const folders = new Set<string>();
  for (const match of text.matchAll(/from\s+"(\.{1,2}\/[^"]+)"/g)) {
    const target = relative(ROOT, resolve(join(file, ".."), match[1] ?? ""));
    folders.add(target.split("/")[0] ?? "");
  }
  return [...folders];
}

const ALLOWED: Record<string, string[]> = {
  protocol: ["protocol"],
  platform: ["platform", "protocol"],
  "durable-objects": ["durable-objects", "platform", "protocol"],
  "inference-node": ["inference-node", "native", "protocol"],
  client: ["client"],
};

describe("dependency direction", () => {
  for (const [folder, allowed] of Object.entries(ALLOWED)) {
    it(`${folder}/ imports only from ${allowed.join(", ")}`, () => {
      const offenders = sources(folder).flatMap((file) =>
        importedFolders(file)
          .filter((target) => !allowed.includes(target))
          .map((target) => `${relative(ROOT, file)} → ${target}/`),
      );
      expect(offenders).toEqual([]);
    });
  }
});
