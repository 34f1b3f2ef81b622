/** Plain-text tables for the terminal. */
import type { Spread } from './stats.js';

export function formatNumber(v: number | undefined, digits = 1): string {
  if (v === undefined || Number.isNaN(v)) return '-';
  if (Math.abs(v) >= 1000) return Math.round(v).toLocaleString('en-US');
  return v.toFixed(digits);
}

/** `min-max` of a figure taken more than once; empty for one sample (or none), which has no range to show. */
export function formatRange(s: Spread | undefined, digits = 1): string {
  return s && s.samples.length > 1 ? `${formatNumber(s.min, digits)}-${formatNumber(s.max, digits)}` : '';
}

export function renderTable(title: string, header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [title, line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}
