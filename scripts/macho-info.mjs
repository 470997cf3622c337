#!/usr/bin/env node
// Prints what a 64-bit Mach-O file is, read from its header and load commands, for the
// darwin helpers that cannot be run here (scripts/build-static, scripts/install-smoke):
//   {"cpu":"arm64","type":"executable","dylibs":["/usr/lib/libSystem.B.dylib"],"signed":true,"symtab":0}
// `signed`: it has a code signature (arm64 macOS kills an unsigned executable; zig's
// linker signs ad hoc). `symtab`: the number of symbols in its symbol table.
//   node scripts/macho-info.mjs <file>
import { readFileSync } from "node:fs";

const CPU = { 0x0100000c: "arm64", 0x01000007: "x86_64" };
const FILE_TYPE = { 1: "object", 2: "executable", 6: "dylib" };
const LC_SYMTAB = 0x2;
const LC_CODE_SIGNATURE = 0x1d;
const DYLIB_COMMANDS = new Set([0xc, 0x80000018, 0x8000001f, 0x80000023]); // load, weak, reexport, upward

const file = readFileSync(process.argv[2]);
if (file.readUInt32LE(0) !== 0xfeedfacf) {
  console.error(`macho-info: ${process.argv[2]} is not a 64-bit little-endian Mach-O file`);
  process.exit(1);
}
const info = { cpu: CPU[file.readUInt32LE(4)] ?? `0x${file.readUInt32LE(4).toString(16)}`, type: FILE_TYPE[file.readUInt32LE(12)] ?? String(file.readUInt32LE(12)), dylibs: [], signed: false, symtab: 0 };
let at = 32; // mach_header_64
for (let i = 0, count = file.readUInt32LE(16); i < count; i++) {
  const command = file.readUInt32LE(at);
  const size = file.readUInt32LE(at + 4);
  if (DYLIB_COMMANDS.has(command)) {
    const nameAt = at + file.readUInt32LE(at + 8);
    info.dylibs.push(file.toString("latin1", nameAt, file.indexOf(0, nameAt)));
  } else if (command === LC_CODE_SIGNATURE) {
    info.signed = true;
  } else if (command === LC_SYMTAB) {
    info.symtab = file.readUInt32LE(at + 12);
  }
  at += size;
}
console.log(JSON.stringify(info));
