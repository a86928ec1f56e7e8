// Pure formatting (strings in, strings out): amounts with BigInt only, durations and ages rounded once to the
// unit they show, so no part ever reads "60".

export function groupDigits(s) {
  return s.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function toBigInt(s) {
  try { return BigInt(s); } catch { return null; }
}

/** Whether an amount (a decimal string) is above zero: only then may it be painted as a loss or a shortfall. */
export function isPositive(s) {
  const v = toBigInt(s);
  return v !== null && v > 0n;
}

/** An integer amount (a decimal string) with `decimals` digits, exactly: every digit, trailing zeros trimmed. */
export function formatUnits(s, decimals, unit) {
  let v = toBigInt(s);
  if (v === null) return String(s);
  const neg = v < 0n;
  if (neg) v = -v;
  const base = 10n ** BigInt(decimals);
  const frac = (v % base).toString().padStart(decimals, '0').replace(/0+$/, '');
  return (neg ? '-' : '') + groupDigits((v / base).toString()) + (frac ? '.' + frac : '') + (unit ? ' ' + unit : '');
}

/**
 * An amount rounded to `significant` digits for reading at a glance (the whole part is never cut: 12,346 ETH),
 * rounded half away from zero with BigInt. `exact` says whether nothing was lost.
 */
export function roundUnits(s, decimals, significant = 4) {
  let v = toBigInt(s);
  if (v === null) return { text: String(s), exact: true };
  const neg = v < 0n;
  if (neg) v = -v;
  const digits = v.toString().length;
  // Fraction digits kept: enough for `significant` digits counted from the first non-zero one.
  const keep = Math.max(0, Math.min(decimals, decimals - digits + significant));
  const step = 10n ** BigInt(decimals - keep);
  const rounded = ((v + step / 2n) / step) * step;
  return { text: formatUnits((neg ? -rounded : rounded).toString(), decimals), exact: rounded === v };
}

const pad2 = (n) => String(n).padStart(2, '0');

/**
 * A duration in milliseconds as a person reads it: 850 ms, 4.25 s, 12.5 s, 3 min 7 s, 2 h 5 min, 3 d 4 h.
 * The value is rounded once to the smallest unit shown and only then split, and the unit is chosen after
 * rounding: 179,999 ms is "3 min 0 s" (not "2 min 60 s"), 3,599,999 ms is "1 h 0 min" (not "60 min 0 s").
 */
export function formatDuration(ms) {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return String(ms);
  if (ms < 0) return '-' + formatDuration(-ms);
  const whole = Math.round(ms);
  if (whole < 1000) return whole + ' ms';
  const centis = Math.round(ms / 10);
  if (centis < 1000) return Math.floor(centis / 100) + '.' + pad2(centis % 100) + ' s';
  const decis = Math.round(ms / 100);
  if (decis < 600) return Math.floor(decis / 10) + '.' + (decis % 10) + ' s';
  const secs = Math.round(ms / 1000);
  if (secs < 3600) return Math.floor(secs / 60) + ' min ' + (secs % 60) + ' s';
  const mins = Math.round(ms / 60000);
  if (mins < 1440) return Math.floor(mins / 60) + ' h ' + (mins % 60) + ' min';
  const hours = Math.round(ms / 3600000);
  return Math.floor(hours / 24) + ' d ' + (hours % 24) + ' h';
}

/** How long ago (or how far ahead) an RFC 3339 time is, from `now` (ms): "3 min ago", "in 2 h". */
export function formatAgo(iso, now = Date.now()) {
  const ms = now - Date.parse(iso);
  const a = Math.abs(ms);
  const secs = Math.round(a / 1e3);
  const mins = Math.round(a / 60e3);
  const hours = Math.round(a / 3600e3);
  const s = secs < 60 ? secs + ' s' : mins < 60 ? mins + ' min' : hours < 48 ? hours + ' h' : Math.round(a / 86400e3) + ' d';
  return ms >= 0 ? s + ' ago' : 'in ' + s;
}

/** A count or quantity with thousands grouped; a 0x-hex quantity (receipts may carry them) in decimal. */
export function formatCount(n) {
  if (typeof n === 'string' && /^0x[0-9a-fA-F]+$/.test(n)) n = BigInt(n).toString();
  return groupDigits(String(n));
}
