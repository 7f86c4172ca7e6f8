/**
 * The frame shared by the report's charts: plot area, gridlines, tick labels, axis titles and a
 * legend, as inline SVG. Both charts use the same time axis so that a spike in one lines up
 * with the other.
 */
export const CHART = { width: 900, height: 280, left: 64, right: 20, top: 36, bottom: 48 } as const;

const PLOT_W = CHART.width - CHART.left - CHART.right;
const PLOT_H = CHART.height - CHART.top - CHART.bottom;

export interface Axis {
  max: number;
  ticks: number[];
  title: string;
  format(value: number): string;
}

/** An axis from 0 to a round number at or above `max`, with about `count` round ticks. */
export function niceAxis(rawMax: number, title: string, format: (value: number) => string, count = 5): Axis {
  const max = rawMax > 0 && Number.isFinite(rawMax) ? rawMax : 1;
  const step = niceStep(max / count);
  const top = Math.max(step, Math.ceil(max / step - 1e-9) * step);
  const ticks: number[] = [];
  for (let value = 0; value <= top + step / 2; value += step) ticks.push(Number(value.toPrecision(12)));
  return { max: top, ticks, title, format };
}

function niceStep(raw: number): number {
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  for (const multiple of [1, 2, 2.5, 5, 10]) if (raw <= multiple * magnitude) return multiple * magnitude;
  return 10 * magnitude;
}

export const xOf = (value: number, axis: Axis): number => round(CHART.left + (PLOT_W * value) / axis.max);
export const yOf = (value: number, axis: Axis): number => round(CHART.top + PLOT_H - (PLOT_H * value) / axis.max);
export const heightOf = (value: number, axis: Axis): number => round((PLOT_H * value) / axis.max);

export interface LegendEntry {
  color: string;
  label: string;
}

/** Gridlines, tick labels, axis titles and legend around `body` (the marks). */
export function chartFrame(x: Axis, y: Axis, body: string, legend: readonly LegendEntry[], caption: string): string {
  const bottom = CHART.top + PLOT_H;
  const parts: string[] = [];
  for (const tick of y.ticks) {
    const at = yOf(tick, y);
    parts.push(
      `<line x1="${CHART.left}" y1="${at}" x2="${CHART.width - CHART.right}" y2="${at}" stroke="${tick === 0 ? '#888' : '#e4e4e4'}"/>`,
    );
    parts.push(`<text x="${CHART.left - 6}" y="${at + 4}" text-anchor="end" class="tick">${escapeXml(y.format(tick))}</text>`);
  }
  for (const tick of x.ticks) {
    const at = xOf(tick, x);
    parts.push(`<line x1="${at}" y1="${bottom}" x2="${at}" y2="${bottom + 4}" stroke="#888"/>`);
    parts.push(`<text x="${at}" y="${bottom + 17}" text-anchor="middle" class="tick">${escapeXml(x.format(tick))}</text>`);
  }
  parts.push(`<line x1="${CHART.left}" y1="${CHART.top}" x2="${CHART.left}" y2="${bottom}" stroke="#888"/>`);
  parts.push(
    `<text x="${CHART.left + PLOT_W / 2}" y="${CHART.height - 8}" text-anchor="middle" class="title">${escapeXml(x.title)}</text>`,
  );
  parts.push(`<text x="${CHART.left}" y="${CHART.top - 14}" class="title">${escapeXml(y.title)}</text>`);
  let legendX = CHART.width - CHART.right;
  for (const entry of [...legend].reverse()) {
    const width = 22 + entry.label.length * 6.6;
    legendX -= width + 12;
    parts.push(`<rect x="${round(legendX)}" y="${CHART.top - 24}" width="12" height="12" fill="${entry.color}"/>`);
    parts.push(`<text x="${round(legendX + 17)}" y="${CHART.top - 14}" class="legend">${escapeXml(entry.label)}</text>`);
  }
  return (
    `<figure><svg xmlns="http://www.w3.org/2000/svg" width="${CHART.width}" height="${CHART.height}" viewBox="0 0 ${CHART.width} ${CHART.height}" role="img" aria-label="${escapeXml(caption)}">` +
    `${parts.join('')}${body}</svg><figcaption>${escapeXml(caption)}</figcaption></figure>`
  );
}

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
