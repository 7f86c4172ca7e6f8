import { clockTime } from '../pace/outage-notice.js';
import type { RunProgress } from '../run/progress.js';

/** A piece of the progress line, with its separator; `keep`: the higher, the later it gives way to a narrow terminal. */
interface Part {
  text: string;
  keep: number;
}

/** The whole progress line, for logs (no width): every part. */
export function formatProgress(progress: RunProgress, now: number): string {
  return progressParts(progress, now)
    .map((part) => part.text)
    .join('');
}

/**
 * The progress line cut to a terminal `columns` wide: a line as long as the terminal, or longer,
 * wraps, and the next redraw's `\r` then returns only to the start of its last piece, so every
 * redraw would leave a line behind. Parts give way, least useful first (concurrency, retrying, what
 * limits the pace, rows/s), keeping their order; what still does not fit is cut with `…`. One
 * column is left free: some terminals wrap as soon as the last one is written.
 */
export function fitProgress(progress: RunProgress, now: number, columns: number): string {
  const width = Math.max(1, columns - 1);
  const parts = progressParts(progress, now);
  let length = parts.reduce((sum, part) => sum + [...part.text].length, 0);
  while (length > width && parts.length > 1) {
    let weakest = 1;
    for (let i = 2; i < parts.length; i++) if (parts[i]!.keep < parts[weakest]!.keep) weakest = i;
    length -= [...parts[weakest]!.text].length;
    parts.splice(weakest, 1);
  }
  const line = parts.map((part) => part.text).join('');
  const characters = [...line];
  return characters.length <= width ? line : `${characters.slice(0, width - 1).join('')}…`;
}

function progressParts(progress: RunProgress, now: number): Part[] {
  const elapsedSeconds = Math.max(0.001, (now - progress.startedAt) / 1000);
  const rate = progress.settled / elapsedSeconds;
  const done = progress.settled + progress.reused;
  const total = progress.total === null ? '' : `/${progress.total}`;
  const remaining = progress.total === null ? null : Math.max(0, progress.total - done);
  const parts: Part[] = [
    { text: `${done}${total} done`, keep: 100 },
    { text: ` (${progress.succeeded} ok, ${progress.failed} failed)`, keep: 90 },
    { text: `, ${progress.retrying} retrying`, keep: progress.retrying > 0 ? 40 : 20 },
    { text: `, ${rate.toFixed(1)} rows/s`, keep: 50 },
  ];
  if (remaining !== null && rate > 0) parts.push({ text: `, ETA ${formatSeconds(remaining / rate)}`, keep: 80 });
  parts.push({ text: `, concurrency ${progress.concurrency}`, keep: 10 });
  const pace = pacePart(progress);
  if (pace) parts.push({ text: pace, keep: 30 });
  if (progress.cooldownUntil > now)
    parts.push({ text: `, cooling down ${((progress.cooldownUntil - now) / 1000).toFixed(1)} s`, keep: 60 });
  const outage = outagePart(progress, now);
  // While the endpoint is down nothing moves: why, and until when, outrank the counts.
  if (outage) parts.push({ text: outage, keep: 95 });
  return parts;
}

function pacePart({ limitedBy, rateLimited }: RunProgress): string {
  const taken = rateLimited > 0 ? ` (${rateLimited} 429s taken)` : '';
  return limitedBy ? `, ${limitedBy}${taken}` : taken ? `,${taken}` : '';
}

function outagePart({ outage }: RunProgress, now: number): string {
  if (!outage) return '';
  const probe = outage.nextProbeAt === null ? 'probing' : `next probe in ${Math.max(0, (outage.nextProbeAt - now) / 1000).toFixed(1)} s`;
  return `, endpoint down since ${clockTime(outage.downSinceWall)}, ${probe}`;
}

function formatSeconds(seconds: number): string {
  if (seconds < 90) return `${Math.ceil(seconds)} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}
