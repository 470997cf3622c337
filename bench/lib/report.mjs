// Shared pieces of the result tables: one column per way, then how many times
// better the reference way (spawnhost) is than each other way.
import { LABELS } from "./ways.mjs";
import { table } from "./stats.mjs";

/** The way the gain columns are computed for: spawnhost if it ran. */
export function referenceWay(ways) {
  return ways.includes("spawnhost") ? "spawnhost" : ways[ways.length - 1];
}

/** "12×" when the reference is 12 times better, "0.5×" when it is worse. */
export function gain(refValue, otherValue, higherIsBetter) {
  if (!(refValue > 0) || !(otherValue > 0)) return "–";
  const g = higherIsBetter ? refValue / otherValue : otherValue / refValue;
  return g >= 10 ? `${g.toFixed(0)}×` : `${g.toFixed(2)}×`;
}

/**
 * rows: [{ label, get: (result) => number, fmt: (n) => string, higherIsBetter }]
 * results: { [way]: result }
 */
export function comparisonTable(rows, results, ways) {
  const ref = referenceWay(ways);
  const others = ways.filter((w) => w !== ref);
  const header = ["", ...ways.map((w) => LABELS[w] ?? w), ...others.map((w) => `${ref} gain vs ${LABELS[w] ?? w}`)];
  const body = rows.map((row) => [
    row.label,
    ...ways.map((w) => row.fmt(row.get(results[w]))),
    ...others.map((w) => gain(row.get(results[ref]), row.get(results[w]), row.higherIsBetter)),
  ]);
  return table(header, body);
}
