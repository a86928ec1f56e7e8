/**
 * A check of Prometheus text exposition after `promtool check metrics` (its parse and its lint), for tests:
 * promtool itself comes with Debian's whole `prometheus` server package (~100 MB), too heavy to install for a
 * test. Returns the problems found, one line each; an empty list means the text passes.
 *
 * Checked: every line parses (HELP, TYPE, or a sample with well-formed labels and a numeric value); a family's
 * HELP and TYPE come once, before its samples, and its samples are not interleaved with another family's; no
 * series repeats; counters end `_total` and nothing else does; histograms have `_bucket` series with a `+Inf`
 * bucket, `_sum` and `_count`; help text is present; names are snake_case.
 */
const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const SAMPLE = new RegExp(`^(${NAME})(\\{(.*)\\})? (\\S+)( -?\\d+)?$`);
const LABEL = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\["\\n])*)"(,|$)/;
const NUMBER = /^(nan|[+-]?inf|[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?)$/i;

export function expositionProblems(text: string, allowed: (name: string) => boolean = () => false): string[] {
  const problems: string[] = [];
  const types = new Map<string, string>();
  const helps = new Set<string>();
  const closed = new Set<string>();
  const series = new Set<string>();
  const histogramParts = new Map<string, Set<string>>();
  let current: string | undefined;
  const familyOf = (name: string): string => {
    for (const suffix of ['_bucket', '_sum', '_count']) {
      const base = name.slice(0, -suffix.length);
      if (name.endsWith(suffix) && types.get(base) === 'histogram') return base;
    }
    return name;
  };
  const enter = (family: string, line: string): void => {
    if (family === current) return;
    if (closed.has(family)) problems.push(`family ${family} interleaved: ${line}`);
    if (current) closed.add(current);
    current = family;
  };
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const meta = /^# (HELP|TYPE) (\S+)(?: (.*))?$/.exec(line);
    if (meta) {
      const [, what, name, rest = ''] = meta;
      enter(name!, line);
      if (what === 'HELP') {
        if (helps.has(name!)) problems.push(`second HELP for ${name}`);
        if (rest.trim() === '') problems.push(`no help text for ${name}`);
        helps.add(name!);
      } else {
        if (types.has(name!)) problems.push(`second TYPE for ${name}`);
        if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(rest)) problems.push(`unknown type ${rest} for ${name}`);
        types.set(name!, rest);
        if (rest === 'counter' && !name!.endsWith('_total')) problems.push(`counter ${name} should end _total`);
        if (rest !== 'counter' && name!.endsWith('_total') && !allowed(name!)) problems.push(`non-counter ${name} should not end _total`);
        if (/[A-Z]/.test(name!)) problems.push(`${name} is not snake_case`);
      }
      continue;
    }
    if (line.startsWith('#')) continue;
    const m = SAMPLE.exec(line);
    if (!m) {
      problems.push(`does not parse: ${line}`);
      continue;
    }
    const [, name, , labelText = '', value] = m;
    const family = familyOf(name!);
    enter(family, line);
    if (!types.has(family)) problems.push(`sample before its TYPE: ${line}`);
    if (!NUMBER.test(value!)) problems.push(`bad value: ${line}`);
    const labels: string[] = [];
    let rest = labelText;
    while (rest !== '') {
      const l = LABEL.exec(rest);
      if (!l) {
        problems.push(`bad labels: ${line}`);
        break;
      }
      labels.push(`${l[1]}=${l[2]}`);
      rest = rest.slice(l[0].length);
    }
    const key = `${name}{${labels.sort().join(',')}}`;
    if (series.has(key)) problems.push(`duplicate series ${key}`);
    series.add(key);
    if (types.get(family) === 'histogram') {
      const parts = histogramParts.get(family) ?? new Set<string>();
      parts.add(name === `${family}_bucket` ? (labels.includes('le=+Inf') ? 'inf' : 'bucket') : name!.slice(family.length + 1));
      histogramParts.set(family, parts);
    }
  }
  for (const [family, parts] of histogramParts) {
    for (const part of ['inf', 'sum', 'count']) if (!parts.has(part)) problems.push(`histogram ${family} lacks ${part === 'inf' ? 'a +Inf bucket' : `_${part}`}`);
  }
  return problems;
}
