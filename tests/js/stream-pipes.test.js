// The Windows hand-over's pipe (js/src/helper/stream-pipes.js) checks who connected
// before it takes a connection: the same checks on Linux, where the pipe is a Unix
// socket, so that they run (and their mutant, tests/mutants.mjs) without wine. The
// Windows suite runs them on a named pipe with the real helper
// (tests/windows-node/stream-pipes.test.js).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after } from "node:test";
import { describeStreamPipeChecks } from "./support/stream-pipe-checks.js";

const dir = mkdtempSync(join(tmpdir(), "spawnhost-stream-pipes-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let count = 0;
const pipeName = () => join(dir, `pipe-${count++}`);

describeStreamPipeChecks(pipeName);
