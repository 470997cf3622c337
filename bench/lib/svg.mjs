// A hand-written SVG line chart: no dependencies, readable output.

const COLORS = ["#d62728", "#ff7f0e", "#1f77b4", "#2ca02c", "#9467bd"];

function esc(text) {
  return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** Round tick step near range/target: 1, 2 or 5 times a power of ten. */
function niceStep(range, target = 6) {
  const raw = range / target;
  const pow = 10 ** Math.floor(Math.log10(raw));
  const f = raw / pow;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * pow;
}

/** Keeps at most `buckets` points, the highest of each x bucket, so spikes stay visible. */
function downsample(points, buckets, xMax) {
  if (points.length <= buckets) return points;
  const out = new Array(buckets).fill(null);
  for (const p of points) {
    const i = Math.min(buckets - 1, Math.floor((p[0] / xMax) * buckets));
    if (!out[i] || p[1] > out[i][1]) out[i] = p;
  }
  return out.filter(Boolean);
}

/**
 * series: [{ name, points: [[x, y], ...] }]. Returns the SVG document as a string.
 */
export function lineChart({ title, xLabel, yLabel, series, width = 960, height = 480 }) {
  const m = { left: 70, right: 20, top: 50, bottom: 60 };
  const w = width - m.left - m.right;
  const h = height - m.top - m.bottom;
  const all = series.flatMap((s) => s.points);
  const xMax = Math.max(1e-9, ...all.map((p) => p[0]));
  const yMaxRaw = Math.max(1, ...all.map((p) => p[1]));
  const xStep = niceStep(xMax);
  const yStep = niceStep(yMaxRaw);
  const yMax = Math.ceil(yMaxRaw / yStep) * yStep;
  const X = (x) => m.left + (x / xMax) * w;
  const Y = (y) => m.top + h - (y / yMax) * h;
  const fmt = (v) => String(Number(v.toPrecision(6)));

  const parts = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="${width / 2}" y="24" text-anchor="middle" font-size="15">${esc(title)}</text>`,
  );
  for (let y = 0; y <= yMax + 1e-9; y += yStep) {
    parts.push(
      `<line x1="${m.left}" x2="${m.left + w}" y1="${Y(y).toFixed(1)}" y2="${Y(y).toFixed(1)}" stroke="#e5e5e5"/>`,
      `<text x="${m.left - 6}" y="${(Y(y) + 4).toFixed(1)}" text-anchor="end">${fmt(y)}</text>`,
    );
  }
  for (let x = 0; x <= xMax + 1e-9; x += xStep) {
    parts.push(
      `<line x1="${X(x).toFixed(1)}" x2="${X(x).toFixed(1)}" y1="${m.top + h}" y2="${m.top + h + 5}" stroke="#333"/>`,
      `<text x="${X(x).toFixed(1)}" y="${m.top + h + 18}" text-anchor="middle">${fmt(x)}</text>`,
    );
  }
  parts.push(
    `<line x1="${m.left}" x2="${m.left + w}" y1="${m.top + h}" y2="${m.top + h}" stroke="#333"/>`,
    `<line x1="${m.left}" x2="${m.left}" y1="${m.top}" y2="${m.top + h}" stroke="#333"/>`,
    `<text x="${m.left + w / 2}" y="${height - 18}" text-anchor="middle">${esc(xLabel)}</text>`,
    `<text transform="translate(18 ${m.top + h / 2}) rotate(-90)" text-anchor="middle">${esc(yLabel)}</text>`,
  );
  series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length];
    const pts = downsample(s.points, Math.floor(w), xMax)
      .map(([x, y]) => `${X(x).toFixed(1)},${Y(y).toFixed(1)}`)
      .join(" ");
    parts.push(`<polyline fill="none" stroke="${color}" stroke-width="1.5" stroke-linejoin="round" points="${pts}"/>`);
    const ly = m.top + 8 + i * 18;
    parts.push(
      `<line x1="${m.left + w - 190}" x2="${m.left + w - 165}" y1="${ly}" y2="${ly}" stroke="${color}" stroke-width="3"/>`,
      `<text x="${m.left + w - 158}" y="${ly + 4}">${esc(s.name)}</text>`,
    );
  });
  parts.push("</svg>");
  return parts.join("\n") + "\n";
}
