// spawnhost's own option keys (call, host and transport options, fields of its requests)
// on Object.prototype change no call of any face more than they change
// node:child_process's: tests/js/support/pollution.js; node:child_process's own keys and
// the options layer: prototype-pollution.test.js.
import { SPAWNHOST_KEYS, pollutionDir, testFaces } from "./support/pollution.js";

testFaces(SPAWNHOST_KEYS, pollutionDir());
