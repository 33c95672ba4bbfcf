/**
 * Every binary the code, the tests and the benches spawn comes from a package of
 * scripts/system-packages.json, the one list the README's apt-get line, .ci/run and npm start's
 * preflight use: a tool installed by hand and listed nowhere fails here, not on a newcomer's machine.
 *
 * The spawn sites are found in the syntax tree of every tracked source file: calls of node:child_process
 * functions (imported, or wrapped in `promisify`) and of the project's wrappers, and Chromium's
 * `executablePath`. A site's program is read from its first argument: a string, a constant holding one,
 * or the string after `??` / `||`. A site whose program cannot be read that way is named in
 * DYNAMIC_SITES below; a new one fails the test until it is named there.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { onPath, systemPackages } from "../../scripts/system-packages.mjs";

const ROOT = path.resolve(import.meta.dirname, "../..");

/**
 * Programs every machine that runs the project has (Node and the npm that comes with it, git, the POSIX
 * shell), and Debian's own package tools, which scripts/system-packages.mjs runs to install the rest.
 */
const BASE_SYSTEM = new Set(["node", "npm", "sh", "git", "dpkg-query", "apt-get", "sudo"]);

/** Functions of node:child_process that run a program named by their first argument. */
const CHILD_PROCESS_FUNCTIONS = new Set([
  "spawn",
  "spawnSync",
  "execFile",
  "execFileSync",
  "exec",
  "execSync",
]);

/** The project's own wrappers that pass their first argument to one of those functions. */
const WRAPPERS = new Set(["runTool"]);

/**
 * Spawn sites whose program is not a literal: `file: expression` → the programs it runs. An empty list
 * is a program that comes with npm install (Node, a package's bin) or that the bench builds itself.
 */
const DYNAMIC_SITES: Record<string, string[]> = {
  // the pass-through of runTool; its callers are checked themselves
  "inference-node/content/process.ts: command": [],
  "inference-node/content/ffmpeg.ts: tools.ffmpeg": ["ffmpeg"],
  "inference-node/content/mindmap/png.ts: tools.ffmpeg": ["ffmpeg"],
  "inference-node/content/tts/openai-speech.ts: this.options.ffmpeg": ["ffmpeg"],
  "inference-node/content/tts/espeak.ts: this.binary": ["espeak-ng"],
  "inference-node/live/live-speech.ts: this.binary": ["espeak-ng"],
  "inference-node/media/ffmpeg-path.ts: path": ["ffmpeg"],
  // the interpreter named by apertium-apy's own #! line (python3, a dependency of apertium-apy)
  "scripts/lib/apertium.ts: apertiumPython()": ["apertium-apy"],
  "scripts/build-native.mjs: cmakeJs": [],
  // apt-get, behind sudo when not root
  "scripts/system-packages.mjs: program": ["apt-get", "sudo"],
  // whisper.cpp's whisper-cli and whisper-server, built into bench/.cache by bench/whisper-tools.ts
  "bench/sync.ts: bin": [],
  "bench/decode.ts: tools.cli": [],
  // GNU time -v around whisper-cli, for its peak RSS, when /usr/bin/time exists
  "bench/decode.ts: cmd": ["time"],
  "test/helpers/whisper-server.ts: tools.server": [],
};

/** Expressions that name the same program wherever they stand. */
const PROGRAM_EXPRESSIONS: Record<string, string[]> = {
  "ffmpegPath()": ["ffmpeg"],
};

interface SpawnSite {
  file: string;
  line: number;
  programs: string[];
}

function trackedSources(): string[] {
  // tracked files and new ones not yet added
  return execFileSync(
    "git",
    ["ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", "*.ts", "*.mts", "*.mjs", "*.tsx"],
    {
      cwd: ROOT,
      encoding: "utf8",
    },
  )
    .split("\0")
    .filter((file) => file !== "" && !file.endsWith(".d.ts"));
}

/** A program named by a string: its file name; one under node_modules comes with npm install. */
function programOf(text: string): string[] {
  // a package's bin, or a test's deliberately missing program
  if (text.startsWith("node_modules/") || text.startsWith("/nonexistent/")) return [];
  return [path.basename(text)];
}

/** The programs of spawn sites in one file; a site nobody can read goes to `unread`. */
function spawnSites(file: string, unread: string[]): SpawnSite[] {
  const source = ts.createSourceFile(
    file,
    readFileSync(path.join(ROOT, file), "utf8"),
    ts.ScriptTarget.Latest,
    true,
  );
  const spawners = new Set<string>(WRAPPERS);
  const constants = new Map<string, ts.Expression>();
  const isChildProcessFn = (node: ts.Expression) => ts.isIdentifier(node) && spawners.has(node.text);
  const visitDeclarations = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const from = node.moduleSpecifier.text;
      const bindings = node.importClause?.namedBindings;
      if (
        (from === "node:child_process" || from === "child_process") &&
        bindings &&
        ts.isNamedImports(bindings)
      )
        for (const element of bindings.elements) {
          const imported = (element.propertyName ?? element.name).text;
          if (CHILD_PROCESS_FUNCTIONS.has(imported)) spawners.add(element.name.text);
        }
    }
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer) {
      constants.set(node.name.text, node.initializer);
    }
    ts.forEachChild(node, visitDeclarations);
  };
  visitDeclarations(source);
  // `const run = promisify(execFile)` is a spawner too.
  const isPromisified = (node: ts.Expression) =>
    ts.isCallExpression(node) &&
    ts.isIdentifier(node.expression) &&
    node.expression.text === "promisify" &&
    node.arguments.length === 1 &&
    isChildProcessFn(node.arguments[0]!);
  for (const [name, init] of constants) if (isPromisified(init)) spawners.add(name);

  const read = (expr: ts.Expression, depth = 0): string[] | null => {
    if (ts.isStringLiteral(expr) || ts.isNoSubstitutionTemplateLiteral(expr)) return programOf(expr.text);
    if (ts.isParenthesizedExpression(expr) || ts.isAsExpression(expr)) return read(expr.expression, depth);
    if (
      ts.isBinaryExpression(expr) &&
      (expr.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken ||
        expr.operatorToken.kind === ts.SyntaxKind.BarBarToken)
    )
      return read(expr.right, depth) ?? read(expr.left, depth);
    if (ts.isPropertyAccessExpression(expr) && expr.getText(source) === "process.execPath") return [];
    // join("node_modules", ".bin", "tsx"), resolve("node_modules/.bin/wrangler"): a package's bin
    if (
      ts.isCallExpression(expr) &&
      /^(path\.)?(join|resolve)$/.test(expr.expression.getText(source)) &&
      expr.arguments.some((arg) => ts.isStringLiteral(arg) && arg.text.split("/").includes("node_modules"))
    )
      return [];
    const everywhere = PROGRAM_EXPRESSIONS[expr.getText(source)];
    if (everywhere) return everywhere;
    if (ts.isIdentifier(expr) && depth < 4) {
      const init = constants.get(expr.text);
      const resolved = init ? read(init, depth + 1) : null;
      if (resolved) return resolved;
    }
    const named = DYNAMIC_SITES[`${file}: ${expr.getText(source)}`];
    return named ?? null;
  };

  const sites: SpawnSite[] = [];
  const record = (node: ts.Node, arg: ts.Expression | undefined) => {
    if (!arg) return;
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    const programs = read(arg);
    if (programs === null) unread.push(`${file}:${line}: ${arg.getText(source)}`);
    else sites.push({ file, line, programs });
  };
  const visitCalls = (node: ts.Node) => {
    if (ts.isCallExpression(node)) {
      if (isChildProcessFn(node.expression) || isPromisified(node.expression))
        record(node, node.arguments[0]);
    }
    if (
      ts.isPropertyAssignment(node) &&
      ts.isIdentifier(node.name) &&
      node.name.text === "executablePath" &&
      ts.isExpression(node.initializer)
    )
      record(node, node.initializer);
    ts.forEachChild(node, visitCalls);
  };
  visitCalls(source);
  return sites;
}

describe("system packages", () => {
  const packages = systemPackages();
  const provided = new Map(packages.flatMap((pkg) => pkg.bins.map((bin) => [bin, pkg.name] as const)));

  it("every program the code, tests and benches spawn comes from a listed package", () => {
    const unread: string[] = [];
    const sites = trackedSources().flatMap((file) => spawnSites(file, unread));
    expect(unread, "spawn sites whose program the test cannot read: name them in DYNAMIC_SITES").toEqual([]);
    const unlisted = sites.flatMap((site) =>
      site.programs
        .filter((program) => !BASE_SYSTEM.has(program) && !provided.has(program))
        .map((program) => `${site.file}:${site.line} spawns ${program}`),
    );
    expect(unlisted, "add the package that provides each to scripts/system-packages.json").toEqual([]);
    // The scan sees the sites it must: a tool that only the tests use and one the nodes run.
    const spawned = new Set(sites.flatMap((site) => site.programs));
    for (const program of ["sox", "ffmpeg", "espeak-ng", "text2wave", "pdftoppm", "chromium", "sqlite3"])
      expect(spawned).toContain(program);
  });

  it("finds a spawn of an unlisted program, literal or promisified", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "voxedge-spawn-scan-"));
    const file = path.join(dir, "probe.ts");
    writeFileSync(
      file,
      [
        'import { execFile as ef, spawn } from "node:child_process";',
        'import { promisify } from "node:util";',
        "const run = promisify(ef);",
        'const TOOL = process.env.X ?? "/usr/bin/imaginary-tool";',
        'spawn("sox-but-not-really", []);',
        "await run(TOOL, []);",
        'chromium.launch({ executablePath: "/opt/other-browser" });',
      ].join("\n"),
    );
    const unread: string[] = [];
    const sites = spawnSites(path.relative(ROOT, file), unread);
    expect(unread).toEqual([]);
    expect(sites.flatMap((site) => site.programs).sort()).toEqual([
      "imaginary-tool",
      "other-browser",
      "sox-but-not-really",
    ]);
  });

  it("the README's apt-get line names exactly the listed packages", () => {
    const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
    const line = /^sudo apt-get install ([^\n`]+)$/m.exec(readme)?.[1];
    expect(line, "README.md keeps one `sudo apt-get install …` line").toBeDefined();
    expect(new Set(line!.trim().split(/\s+/))).toEqual(new Set(packages.map((pkg) => pkg.name)));
  });

  it(".ci/run installs from the same list", () => {
    const ci = readFileSync(path.join(ROOT, ".ci/run"), "utf8");
    expect(ci).toMatch(/^node scripts\/system-packages\.mjs install$/m);
  });

  it("onPath finds an executable only in a PATH directory", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "voxedge-path-"));
    writeFileSync(path.join(dir, "some-tool"), "#!/bin/sh\n", { mode: 0o755 });
    writeFileSync(path.join(dir, "not-executable"), "", { mode: 0o644 });
    expect(onPath("some-tool", dir)).toBe(true);
    expect(onPath("not-executable", dir)).toBe(false);
    expect(onPath("some-tool", "/nonexistent")).toBe(false);
  });
});
