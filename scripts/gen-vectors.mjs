#!/usr/bin/env node
// Writes schema/vectors.json: shared frames that the C++ and the JS test suites both
// replay. Valid vectors are encoded here once with the JS codec and committed; the C++
// side decodes and re-encodes them independently, which is the cross-check.
// Invalid vectors are hand-made bytes, each with the error category both sides must give.
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import { encode } from "@msgpack/msgpack";
import { PROTOCOL_VERSION } from "../js/src/protocol/generated.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const bin = (hex) => ({ $bin: hex });
const toWire = (v) => Array.isArray(v) ? v.map(toWire)
  : v && typeof v === "object" && "$bin" in v ? Buffer.from(v.$bin, "hex")
  : v && typeof v === "object" ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toWire(x)]))
  : v;
const frame = (body) => {
  const head = Buffer.alloc(4);
  head.writeUInt32LE(body.length);
  return Buffer.concat([head, body]).toString("hex");
};

const valid = [
  // The helper always says its own protocol version: the C++ test encodes this one.
  ["hello", [1, PROTOCOL_VERSION, "0.1.0", 4242]],
  ["spawned", [2, 7, 31337, 118, 3]],
  ["spawn_error ENOENT", [3, 8, "ENOENT", "exec"]],
  ["data stdout", [4, 7, 1, bin("68656c6c6f0a")]],
  ["data empty", [4, 7, 2, bin("")]],
  ["eof stderr", [5, 7, 2]],
  ["exit with status", [6, 7, 3, null, 0]],
  ["exit by signal after timeout", [6, 7, null, "SIGTERM", 1]],
  ["written", [7, 7, 65536]],
  ["stdin_error", [8, 7, "EPIPE"]],
  ["error without id", [9, null, false, "unknown message type 99"]],
  ["error fatal", [9, null, true, "oversized: a frame exceeds the 4194304-byte limit"]],
  ["removed ok", [10, 9, null, null]],
  ["removed failed", [10, 9, "EACCES", "rmdir"]],
  ["spawn minimal", [16, 1, "true", [], {}]],
  ["spawn full options", [16, 2, "/bin/echo", ["hi", "", "ünï"], {
    cwd: "/tmp", env: ["A=1", "B=x=y"], argv0: "echo0", stdio: [0, 0, 1], detached: false,
    timeout_ms: 1000, kill_signal: "SIGKILL", max_buffer: 1048576, credit: 65536, uid: 0, gid: 0,
  }]],
  ["spawn with the Windows options", [16, 4, "cmd.exe", ["/c", "echo hi"], { windows_hide: true, windows_verbatim_arguments: true }]],
  ["write", [17, 2, bin("00ff10")]],
  ["end", [18, 2]],
  ["kill", [19, 2, "SIGINT"]],
  ["credit", [20, 2, 1, 4294967295]],
  ["shutdown", [21, 5000]],
  ["remove_tree", [22, 3, "/tmp/x y"]],
  ["close_output", [23, 3, 1]],
  ["close_output of the IPC channel", [23, 3, 3]],
  ["send", [24, 3, bin("7b7d0a")]],
  ["send_quiet", [40, 3, bin("7b7d0a")]],
  ["sent", [11, 3, 3]],
  ["send_error", [12, 3, "EPIPE"]],
  ["data from the IPC channel", [4, 3, 3, bin("7b2261223a317d0a")]],
  ["spawn with an IPC channel", [16, 4, "node", ["child.js"], { ipc: true, credit: 65536 }]],
  ["spawn in Node's current directory", [16, 5, "pwd", [], { cwd: "/tmp/gone", node_cwd: true }]],
  ["spawn with its stdio handed over", [16, 6, "cat", [], { stdio: [0, 0, 1], handover: true, credit: 524288 }]],
  ["ping", [25, 7]],
  ["pong", [13, 7]],
  ["await_spawn", [26, 7]],
  ["spawn_known with a pid", [14, 7, 31337, null]],
  ["spawn_known of a failed launch", [14, 8, null, "ENOENT"]],
  ["spawn answered with a result frame", [16, 6, "/bin/true", [], { result: 262144, max_buffer: 3145728 }]],
  ["result with output", [15, 6, 0, null, 0, bin("68690a"), bin(""), 31337, 118, 3]],
  ["result of a child killed at maxBuffer", [15, 6, null, "SIGTERM", 2, bin(""), bin("6f6f7073"), 31338, 90, 0]],
  ["spawn on a terminal, relayed", [16, 7, "bash", [], { stdio: [0, 0, 1], pty: [80, 24], credit: 524288 }]],
  ["spawn on a terminal whose master Node gave", [16, 8, "bash", [], { stdio: [3, 1, 1], given: [5, 0, 0], handover: true, pty: [65535, 1] }]],
  ["resize", [27, 7, 120, 40]],
].map(([name, decoded]) => ({ name, hex: frame(Buffer.from(encode(toWire(decoded)))), decoded, valid: true }));

const raw = (hex) => frame(Buffer.from(hex, "hex"));
const invalid = [
  ["oversized length", "01004000" + "00", "oversized"],
  ["maximum u32 length", "ffffffff", "oversized"],
  ["truncated body", "0500000093", "truncated"],
  ["truncated length", "0500", "truncated"],
  ["empty body", raw(""), "not_msgpack"],
  ["body is not msgpack", raw("c1"), "not_msgpack"],
  ["trailing bytes after the value", raw("9112" + "00"), "not_msgpack"],
  ["body is not an array", raw("a3616263"), "not_array"],
  ["empty array", raw("90"), "not_array"],
  ["unknown message code", raw("9163"), "unknown_message"],
  ["message code is a string", raw("91a131"), "unknown_message"],
  ["end without id", raw("9112"), "wrong_size"],
  ["end with an extra field", raw("93120102"), "wrong_size"],
  ["kill with numeric signal", raw("9313010f"), "bad_field"],
  ["credit with negative bytes", raw("941401" + "01" + "ff"), "bad_field"],
  ["spawn args not strings", raw("9510" + "01" + "a474727565" + "9101" + "80"), "bad_field"],
  ["spawn with unknown option", raw("9510" + "01" + "a474727565" + "90" + "81a3666f6fc3"), "bad_option"],
  ["spawn option of wrong type", raw("9510" + "01" + "a474727565" + "90" + "81a3637764c3"), "bad_option"],
  ["spawn stdio of two entries", raw("9510" + "01" + "a474727565" + "90" + "81a5737464696f920000"), "bad_option"],
  ["spawn with id 0", raw("9510" + "00" + "a474727565" + "90" + "80"), "bad_field"],
  ["hello sent to the helper", raw("9401" + "01" + "a3302e31" + "01"), "unknown_message"],
  ["close_output of stdin", raw("9317" + "03" + "00"), "bad_field"],
  ["credit for fd 4", raw("941403" + "04" + "0a"), "bad_field"],
  ["exit sent to the helper", raw("9506" + "01" + "00" + "c0" + "00"), "unknown_message"],
  ["ping without a token", raw("9119"), "wrong_size"],
  ["spawn with a result option not a uint", raw("9510" + "01" + "a474727565" + "90" + "81a6726573756c74c3"), "bad_option"],
  ["result sent to the helper", raw("9a0f" + "01" + "00" + "c0" + "00" + "c400" + "c400" + "00" + "00" + "00"), "unknown_message"],
  ["spawn with node_cwd not a bool", raw("9510" + "01" + "a474727565" + "90" + "81a86e6f64655f63776401"), "bad_option"],
  ["spawn with handover not a bool", raw("9510" + "01" + "a474727565" + "90" + "81a868616e646f76657201"), "bad_option"],
// Every invalid vector is bytes arriving at the helper; the JS suite decodes them as
// the helper would, so both sides agree on the categories.
].map(([name, hex, error]) => ({ name, hex, valid: false, receiver: "helper", error }));

writeFileSync(join(root, "schema/vectors.json"), JSON.stringify({
  $comment: "Shared protocol vectors; written by scripts/gen-vectors.mjs. decoded: the message array, bin as {\"$bin\": hex}. Invalid vectors give the error category both decoders must report.",
  vectors: [...valid, ...invalid],
}, null, 1) + "\n");
