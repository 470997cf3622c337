// The bootstrap's cache is trusted only as ssh trusts a key file: a cache directory, a
// helper directory or a cached helper that another user owns or can write is refused
// with the reason, and an upload is never written through a file or link someone
// planted where it goes. Each of these would let another user's program run as this
// one. Through a local argv transport (sh), as docker/kubectl exec -i would run it.
import { describe, test, after } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, chownSync, copyFileSync, lstatSync, mkdirSync, readFileSync, readdirSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ProcessHost, HelperExitedError } from "spawnhost";
import { modes, rejection } from "./support/modes.js";
import { fileDigest } from "../../js/src/helper/bootstrap.js";
import { locateHelper } from "../../js/src/helper/locate.js";
import { scratchDir } from "./support/scratch.js";

const HELPER = modes().includes("helper") ? locateHelper() : undefined;
const VERSION = JSON.parse(readFileSync(new URL("../../js/package.json", import.meta.url))).version;
// Another user: nobody. Only root can give a file away (chown) to set the scene.
const OTHER_UID = 65534;
const skip = !modes().includes("helper") ? "SPAWNHOST_TEST_MODES has no helper mode"
  : process.getuid?.() !== 0 ? "giving a file to another user (chown) needs root" : false;

describe("remote cache trust", { skip }, () => {
  const root = skip ? "" : scratchDir("spawnhost-trust-");
  after(() => { if (root) rmSync(root, { recursive: true, force: true }); });
  let count = 0;
  /** A fresh cache dir (0700, ours) and the helper directory the bootstrap will use in it. */
  const scene = () => {
    const cacheDir = join(root, `cache-${++count}`);
    const dir = join(cacheDir, `${VERSION}-${fileDigest(HELPER).sha256}`);
    return { cacheDir, dir };
  };
  // The bootstrap through `sh -c`; `before` runs first in the same shell (same pid).
  const bootstrapError = async (cacheDir, before = "") => {
    const host = new ProcessHost({
      transport: { command: "sh", args: ["-c", `${before}\nexec "$@"`, "sh"], cacheDir, name: "local sh" }, restart: false,
    });
    try {
      const error = await rejection(host.info());
      assert.ok(error instanceof HelperExitedError, String(error));
      return error.message;
    } finally {
      await host.shutdown();
    }
  };

  test("a cache directory another user owns is refused, and nothing is written in it", async () => {
    const { cacheDir } = scene();
    mkdirSync(cacheDir, { mode: 0o700 });
    chownSync(cacheDir, OTHER_UID, OTHER_UID);
    const message = await bootstrapError(cacheDir);
    assert.match(message, new RegExp(`the bootstrap failed: refusing ${cacheDir}: owned by uid ${OTHER_UID}, not by this user \\(0\\)`));
    for (const entry of readdirSync(cacheDir)) assert.deepEqual(readdirSync(join(cacheDir, entry)), [], "no upload in it");
  });

  test("a cache directory others can write is refused", async () => {
    const { cacheDir } = scene();
    mkdirSync(cacheDir);
    chmodSync(cacheDir, 0o777);
    const message = await bootstrapError(cacheDir);
    assert.match(message, new RegExp(`the bootstrap failed: refusing ${cacheDir}: writable by group or others`));
    for (const entry of readdirSync(cacheDir)) assert.deepEqual(readdirSync(join(cacheDir, entry)), []);
  });

  test("a directory above the cache that others can write (not sticky) is refused", async () => {
    const above = join(root, `open-${++count}`);
    mkdirSync(above);
    chmodSync(above, 0o777);
    const cacheDir = join(above, "cache");
    const message = await bootstrapError(cacheDir);
    assert.match(message, new RegExp(`the bootstrap failed: refusing ${above}: writable by group or others`));
  });

  test("a helper directory another user owns is refused", async () => {
    const { cacheDir, dir } = scene();
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chownSync(dir, OTHER_UID, OTHER_UID);
    const message = await bootstrapError(cacheDir);
    assert.match(message, new RegExp(`refusing ${dir}: owned by uid ${OTHER_UID}`));
    assert.deepEqual(readdirSync(dir), []);
  });

  test("a cached helper another user owns is refused and not run, even with the right SHA-256", async () => {
    const { cacheDir, dir } = scene();
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const bin = join(dir, "spawnhost-helper");
    copyFileSync(HELPER, bin);
    chmodSync(bin, 0o755);
    chownSync(bin, OTHER_UID, OTHER_UID);
    const message = await bootstrapError(cacheDir);
    assert.match(message, new RegExp(`refusing ${bin}: owned by uid ${OTHER_UID}`));
    assert.equal(lstatSync(bin).uid, OTHER_UID, "left as it was");
  });

  test("a cached helper others can write is refused and not run", async () => {
    const { cacheDir, dir } = scene();
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const bin = join(dir, "spawnhost-helper");
    copyFileSync(HELPER, bin);
    chmodSync(bin, 0o777);
    const message = await bootstrapError(cacheDir);
    assert.match(message, new RegExp(`refusing ${bin}: writable by group or others`));
  });

  test("a cached helper that is a symbolic link is refused", async () => {
    const { cacheDir, dir } = scene();
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const target = join(root, `elsewhere-${count}`);
    copyFileSync(HELPER, target);
    chmodSync(target, 0o700);
    const bin = join(dir, "spawnhost-helper");
    symlinkSync(target, bin);
    const message = await bootstrapError(cacheDir);
    assert.match(message, new RegExp(`refusing ${bin}: a symbolic link`));
  });

  test("an upload is not written through a link planted at its name: refused, the link's target untouched", async () => {
    const { cacheDir, dir } = scene();
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const victim = join(root, `victim-${count}`);
    writeFileSync(victim, "#!/bin/sh\necho the victim's own file\n", { mode: 0o700 });
    // Planted by the transport's shell at the name the bootstrap (the same process,
    // after exec) will use: .upload-<its pid>.
    const message = await bootstrapError(cacheDir, `ln -s '${victim}' "${dir}/.upload-$$"`);
    assert.match(message, new RegExp(`refusing ${dir}/\\.upload-\\d+: something is there already`));
    assert.equal(readFileSync(victim, "utf8"), "#!/bin/sh\necho the victim's own file\n", "the target is untouched");
    const [planted] = readdirSync(dir);
    assert.equal(readlinkSync(join(dir, planted)), victim, "the link is left as it was");
    assert.equal(readdirSync(dir).length, 1, "nothing installed");
  });

  test("an upload is not written into a file planted at its name either", async () => {
    const { cacheDir, dir } = scene();
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const message = await bootstrapError(cacheDir, `printf planted >"${dir}/.upload-$$"`);
    assert.match(message, /something is there already/);
    const [planted] = readdirSync(dir);
    assert.equal(readFileSync(join(dir, planted), "utf8"), "planted");
  });

  test("a trusted cache still works: uploaded, then cached", async () => {
    const { cacheDir } = scene();
    for (const expected of ["uploaded", "cached"]) {
      const host = new ProcessHost({ transport: { command: "sh", args: ["-c", "exec \"$@\"", "sh"], cacheDir, name: "local sh" } });
      assert.equal((await host.info()).helper, expected);
      await host.shutdown();
    }
  });
});
