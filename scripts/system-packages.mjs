#!/usr/bin/env node
/**
 * The system packages of scripts/system-packages.json: the one list the README, .ci/run and npm start's
 * preflight use. Plain Node (no dependencies), so it runs before `npm install`.
 *
 *   node scripts/system-packages.mjs            every package name, for `apt-get install $(...)`
 *   node scripts/system-packages.mjs missing    the ones not installed
 *   node scripts/system-packages.mjs install    apt-get installs the missing ones (sudo when not root)
 *
 * A package is installed when every program it provides is on the PATH and, where dpkg exists (Debian,
 * Ubuntu), dpkg says so (data-only packages, voices and language pairs, can only be checked there).
 */
import { spawnSync } from "node:child_process";
import { accessSync, constants, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const LIST = fileURLToPath(new URL("system-packages.json", import.meta.url));

/** @typedef {import("./system-packages.d.mts").SystemPackage} SystemPackage */

/** @returns {SystemPackage[]} */
export function systemPackages() {
  return JSON.parse(readFileSync(LIST, "utf8")).packages;
}

/** Whether `bin` is an executable file in a PATH directory. */
export function onPath(bin, envPath = process.env.PATH ?? "") {
  return envPath
    .split(path.delimiter)
    .filter(Boolean)
    .some((dir) => {
      try {
        accessSync(path.join(dir, bin), constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
}

function hasDpkg() {
  return spawnSync("dpkg-query", ["--version"], { stdio: "ignore" }).status === 0;
}

/** @param {SystemPackage} pkg */
function installed(pkg, dpkg) {
  if (!pkg.bins.every((bin) => onPath(bin))) return false;
  if (!dpkg) return true;
  // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's format field, not a template
  const res = spawnSync("dpkg-query", ["-W", "-f=${Status}", pkg.name], { encoding: "utf8" });
  return res.status === 0 && res.stdout.trim() === "install ok installed";
}

/**
 * The packages of `packages` that are not installed.
 *
 * @param {SystemPackage[]} packages
 * @returns {SystemPackage[]}
 */
export function missingPackages(packages = systemPackages()) {
  const dpkg = hasDpkg();
  return packages.filter((pkg) => !installed(pkg, dpkg));
}

/** The command that installs `names` on Debian or Ubuntu. */
export function installCommand(names) {
  return `sudo apt-get install ${names.join(" ")}`;
}

function install() {
  const missing = missingPackages().map((pkg) => pkg.name);
  if (missing.length === 0) return 0;
  const sudo = process.getuid?.() === 0 ? [] : ["sudo"];
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  console.error(`system packages: installing ${missing.join(" ")}`);
  for (const args of [
    ["apt-get", "update", "-qq"],
    ["apt-get", "install", "-y", "-qq", ...missing],
  ]) {
    const [program, ...rest] = [...sudo, ...args];
    const res = spawnSync(program, rest, { stdio: "inherit", env });
    if (res.status !== 0) return res.status ?? 1;
  }
  return 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const command = process.argv[2] ?? "list";
  if (command === "list")
    console.log(
      systemPackages()
        .map((pkg) => pkg.name)
        .join(" "),
    );
  else if (command === "missing")
    console.log(
      missingPackages()
        .map((pkg) => pkg.name)
        .join(" "),
    );
  else if (command === "install") process.exit(install());
  else {
    console.error(`unknown command ${command}: list, missing or install`);
    process.exit(2);
  }
}
