/** PromQL words that look like names but are not series: keywords, and what follows `by`/`without`/`on`/`ignoring`/`group_*`. */
const KEYWORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'bool',
  'and',
  'or',
  'unless',
  'offset',
  'inf',
  'nan',
]);

/**
 * The metric names a PromQL expression reads: every identifier that is not a function call, a keyword, a
 * label in a matcher or a grouping list, a string, a duration or a number. Enough for dashboard queries;
 * not a PromQL parser.
 */
export function metricNamesOf(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\$\{?[\w:]+\}?/g, ' ');
  const names = new Set<string>();
  for (const match of bare.matchAll(/(?<![\w.:])([a-zA-Z_:][\w:]*)(\s*\()?/g)) {
    const [, name, call] = match;
    if (call || KEYWORDS.has(name.toLowerCase())) continue;
    names.add(name);
  }
  return [...names];
}

/** The sample names of a Prometheus text exposition (a histogram's _bucket, _sum and _count lines included). */
export function exportedNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const line of exposition.split('\n')) {
    const name = /^([a-zA-Z_:][\w:]*)(?=[{\s])/.exec(line)?.[1];
    if (name) names.add(name);
  }
  return names;
}
