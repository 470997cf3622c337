// Small statistics and formatting helpers shared by the benchmarks.

/** Percentile `p` (0..100) of an unsorted array of numbers, nearest-rank. */
export function percentile(values, p) {
  if (values.length === 0) return NaN;
  const sorted = Float64Array.from(values).sort();
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

export function sum(values) {
  let s = 0;
  for (const v of values) s += v;
  return s;
}

/** Milliseconds with a precision that suits their size. */
export function ms(v) {
  if (v == null || Number.isNaN(v)) return "–";
  if (v >= 100) return `${v.toFixed(0)} ms`;
  if (v >= 10) return `${v.toFixed(1)} ms`;
  if (v >= 1) return `${v.toFixed(2)} ms`;
  return `${(v * 1000).toFixed(0)} µs`;
}

export function mib(bytes) {
  if (bytes == null || Number.isNaN(bytes)) return "–";
  return `${(bytes / 1048576).toFixed(1)} MiB`;
}

export function num(v, digits = 0) {
  if (v == null || Number.isNaN(v)) return "–";
  return v.toFixed(digits);
}

/** "12×" style ratio of a to b (how many times b fits in a). */
export function ratio(a, b) {
  if (!(a > 0) || !(b > 0)) return "–";
  const r = a / b;
  return r >= 10 ? `${r.toFixed(0)}×` : `${r.toFixed(1)}×`;
}

/** A markdown table from a header row and data rows (arrays of strings). */
export function table(header, rows) {
  const line = (cells) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}
