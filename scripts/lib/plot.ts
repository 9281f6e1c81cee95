// Line charts for benchmark reports: drawn as SVG here (no plotting dependency) and turned into a
// PNG by the Debian chromium the browser tests already use (playwright-core, no browser download).
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { chromium } from "playwright-core";

export interface Line {
  name: string;
  color: string;
  points: [number, number | null][];
}

export interface Chart {
  title: string;
  xLabel: string;
  yLabel: string;
  lines: Line[];
  /** A horizontal reference line (a goal or bound), drawn dashed. */
  limit?: { value: number; label: string };
}

const W = 760;
const H = 300;
const M = { left: 60, right: 20, top: 34, bottom: 44 };

function niceMax(v: number): number {
  if (!(v > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;");

export function svgChart(chart: Chart): string {
  const all = chart.lines.flatMap((l) => l.points);
  const xMax = niceMax(Math.max(1, ...all.map(([x]) => x)));
  const ys = all.map(([, y]) => y).filter((y): y is number => y !== null && Number.isFinite(y));
  const yMax = niceMax(Math.max(...ys, chart.limit?.value ?? 0, 0) * 1.1);
  const px = (x: number) => M.left + (x / xMax) * (W - M.left - M.right);
  const py = (y: number) => H - M.bottom - (y / yMax) * (H - M.top - M.bottom);
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${W / 2}" y="20" text-anchor="middle" font-size="14" font-weight="bold">${esc(chart.title)}</text>`,
  ];
  for (let i = 0; i <= 5; i++) {
    const y = (yMax * i) / 5;
    const x = (xMax * i) / 5;
    parts.push(
      `<line x1="${M.left}" x2="${W - M.right}" y1="${py(y)}" y2="${py(y)}" stroke="#ddd"/>`,
      `<text x="${M.left - 6}" y="${py(y) + 4}" text-anchor="end">${+y.toPrecision(3)}</text>`,
      `<text x="${px(x)}" y="${H - M.bottom + 16}" text-anchor="middle">${+x.toPrecision(3)}</text>`,
    );
  }
  parts.push(
    `<line x1="${M.left}" x2="${M.left}" y1="${M.top}" y2="${H - M.bottom}" stroke="#333"/>`,
    `<line x1="${M.left}" x2="${W - M.right}" y1="${H - M.bottom}" y2="${H - M.bottom}" stroke="#333"/>`,
    `<text x="${W / 2}" y="${H - 8}" text-anchor="middle">${esc(chart.xLabel)}</text>`,
    `<text transform="translate(14 ${H / 2}) rotate(-90)" text-anchor="middle">${esc(chart.yLabel)}</text>`,
  );
  if (chart.limit) {
    parts.push(
      `<line x1="${M.left}" x2="${W - M.right}" y1="${py(chart.limit.value)}" y2="${py(chart.limit.value)}" stroke="#c00" stroke-dasharray="6 4"/>`,
      `<text x="${W - M.right - 4}" y="${py(chart.limit.value) - 4}" text-anchor="end" fill="#c00">${esc(chart.limit.label)}</text>`,
    );
  }
  chart.lines.forEach((line, i) => {
    const segments: string[][] = [[]];
    for (const [x, y] of line.points) {
      if (y === null || !Number.isFinite(y)) segments.push([]);
      else segments.at(-1)!.push(`${px(x).toFixed(1)},${py(y).toFixed(1)}`);
    }
    for (const seg of segments.filter((s) => s.length)) {
      parts.push(`<polyline fill="none" stroke="${line.color}" stroke-width="2" points="${seg.join(" ")}"/>`);
      if (seg.length === 1) {
        const [cx, cy] = seg[0]!.split(",");
        parts.push(`<circle cx="${cx}" cy="${cy}" r="3" fill="${line.color}"/>`);
      }
    }
    parts.push(
      `<rect x="${M.left + 10 + i * 150}" y="${M.top - 2}" width="12" height="4" fill="${line.color}"/>`,
      `<text x="${M.left + 26 + i * 150}" y="${M.top + 3}">${esc(line.name)}</text>`,
    );
  });
  parts.push("</svg>");
  return parts.join("\n");
}

export const CHROMIUM_PATH = process.env.OCW_CHROMIUM ?? "/usr/bin/chromium";

/** Writes the charts, stacked, as `<base>.html` (SVG) and `<base>.png`; returns the files written
 * (the PNG is left out, with a reason, when no chromium is installed). */
export async function writeCharts(
  charts: Chart[],
  base: string,
): Promise<{ files: string[]; note?: string }> {
  const html = `<!doctype html><meta charset="utf-8"><body style="margin:0;background:white">${charts
    .map((c) => `<div>${svgChart(c)}</div>`)
    .join("")}</body>`;
  await writeFile(`${base}.html`, html);
  if (!existsSync(CHROMIUM_PATH))
    return { files: [`${base}.html`], note: `${CHROMIUM_PATH} not found: no PNG` };
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
  try {
    const page = await browser.newPage({ viewport: { width: W, height: H * charts.length } });
    await page.setContent(html);
    await page.screenshot({ path: `${base}.png`, fullPage: true });
  } finally {
    await browser.close();
  }
  return { files: [`${base}.html`, `${base}.png`] };
}
