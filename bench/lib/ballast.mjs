// Memory held outside the V8 heap, the kind that makes fork() slow: V8 marks its
// own heap MADV_DONTFORK, Buffers are not (see shared BASELINE.md).
const CHUNK = 256 * 1024 * 1024;

/** Allocates `gib` GiB of Buffers and writes every page so it is resident. */
export function allocateBallast(gib) {
  const chunks = [];
  let left = Math.round(gib * 1024 * 1024 * 1024);
  while (left > 0) {
    const size = Math.min(CHUNK, left);
    const b = Buffer.allocUnsafeSlow(size);
    b.fill(0x5a); // touch every page
    chunks.push(b);
    left -= size;
  }
  globalThis.__spawnhostBenchBallast = chunks; // keep alive for the process lifetime
  return chunks;
}
