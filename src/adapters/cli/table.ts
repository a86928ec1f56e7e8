/** A plain-text table: a header row and columns padded to their widest cell. Cells are single-line text. */
export function renderTable(headers: readonly string[], rows: readonly (readonly (string | number | null | undefined)[])[]): string {
  const cells = rows.map((r) => r.map((c) => (c === null || c === undefined ? '-' : terminalSafe(String(c)))));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]!.length)));
  const line = (r: readonly string[]): string => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ');
  return [line(headers), ...cells.map(line)].join('\n');
}

/** The hint a list command prints when more rows exist (CONTRACT section 6). */
export function nextPageHint(cursor: string | null): string | undefined {
  return cursor ? `next page: --cursor ${cursor}` : undefined;
}

/** Compact duration for tables: 850ms, 12.3s, 4m05s, 2h10m. */
export function humanDuration(ms: number | null): string {
  if (ms === null) return '-';
  if (ms < 1000) return `${ms}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)}m${String(Math.floor((ms % 60_000) / 1000)).padStart(2, '0')}s`;
  return `${Math.floor(ms / 3_600_000)}h${String(Math.floor((ms % 3_600_000) / 60_000)).padStart(2, '0')}m`;
}

/** Run data is untrusted: control characters (newlines, terminal escapes) are shown as spaces. */
export function terminalSafe(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ');
}
