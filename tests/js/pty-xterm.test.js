// spawnhost/pty's output fed to @xterm/headless, a real terminal emulator: a full-screen
// program's cursor moves and colours land in the right cells of its buffer.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import * as pty from "spawnhost/pty";
import { ptySkip, waitFor } from "./support/pty.js";

const { Terminal } = createRequire(import.meta.url)("@xterm/headless");
const fixture = fileURLToPath(new URL("../fixtures/pty-fullscreen.mjs", import.meta.url));

// Waits until xterm has parsed everything written to it so far.
const parsed = (xterm) => new Promise((resolve) => xterm.write("", resolve));

describe("spawnhost/pty into @xterm/headless", { skip: ptySkip }, () => {
  test("a full-screen program draws where it means to, in its colours, then restores the screen", async () => {
    const [cols, rows] = [60, 20];
    const xterm = new Terminal({ cols, rows, allowProposedApi: true });
    const term = pty.spawn(process.execPath, [fixture], { cols, rows, name: "xterm-256color" });
    term.onData((data) => xterm.write(data));
    const exited = new Promise((resolve) => term.onExit(resolve));
    await waitFor(term, /drawn/);
    await parsed(xterm);
    const buffer = xterm.buffer.active;
    assert.equal(buffer.type, "alternate");
    const line = (y) => buffer.getLine(y).translateToString(true);
    assert.equal(line(0), `${cols}x${rows}`, "the size the program found, at the top left");
    const red = buffer.getLine(4).getCell(9);
    assert.equal(red.getChars(), "R");
    assert.ok(red.isFgPalette() && red.getFgColor() === 1, "red foreground");
    const corner = buffer.getLine(rows - 1).getCell(cols - 1);
    assert.equal(corner.getChars(), "B");
    assert.ok(corner.isFgPalette() && corner.getFgColor() === 4, "blue on ...");
    assert.ok(corner.isBgPalette() && corner.getBgColor() === 2, "... green");
    const accented = buffer.getLine(2).getCell(2);
    assert.equal(accented.getChars(), "é");
    assert.ok(accented.isBold() && accented.getFgColor() === 208, "bold, colour 208");
    const wide = buffer.getLine(2).getCell(3);
    assert.equal(wide.getChars(), "界");
    assert.equal(wide.getWidth(), 2, "a wide character takes two cells");
    assert.equal(line(1).trim(), "drawn");
    assert.equal(line(1).indexOf("drawn"), 19);
    assert.deepEqual([buffer.cursorX, buffer.cursorY], [0, 2], "the cursor after drawn\\r\\n");
    term.write("x");
    assert.deepEqual(await exited, { exitCode: 0, signal: 0 });
    await parsed(xterm);
    assert.equal(xterm.buffer.active.type, "normal", "the screen is restored");
    xterm.dispose();
  });
});
