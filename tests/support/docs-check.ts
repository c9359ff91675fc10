/**
 * The documentation checks `tests/unit/docs/docs.spec.ts` runs: every relative
 * link in the Markdown resolves (file, and heading for an `#anchor`), and every
 * environment variable the config loader reads is one row of
 * docs/configuration.md's table. Pure functions over file contents, so the
 * spec can also feed them broken input and see them fail.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

export const repoRoot = path.resolve(__dirname, '..', '..');

/** README.md, bench/README.md and every *.md under docs/, repo-relative. */
export function markdownFiles(root: string = repoRoot): string[] {
  const underDocs = (dir: string): string[] =>
    readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
      const relative = path.posix.join(dir, entry.name);
      if (entry.isDirectory()) return underDocs(relative);
      return entry.name.endsWith('.md') ? [relative] : [];
    });
  return ['README.md', 'bench/README.md', ...underDocs('docs')].sort();
}

/** The text outside fenced code blocks, line by line (fenced lines become empty, so line numbers hold). */
function outsideFences(markdown: string): string[] {
  let fence: string | null = null;
  return markdown.split('\n').map((line) => {
    const opening = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fence === null && opening) {
      fence = opening[1];
      return '';
    }
    if (fence !== null) {
      if (new RegExp(`^\\s{0,3}${fence[0]}{${fence.length},}\\s*$`).test(line)) fence = null;
      return '';
    }
    return line;
  });
}

/** GitHub's heading anchor (github-slugger): lower case, punctuation dropped, each space a hyphen, -1, -2… for repeats. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of outsideFences(markdown)) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
    const html = line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g);
    for (const match of html) anchors.add(match[1]);
    if (!heading) continue;
    const text = heading[1]
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link's or image's text
      .replace(/<[^>]+>/g, '') // inline HTML
      .replace(/[*]/g, ''); // emphasis
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

export interface MarkdownLink {
  line: number;
  target: string;
}

/** Inline links and images and reference definitions, outside code; external ones (scheme, //) left out. */
export function relativeLinks(markdown: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  outsideFences(markdown).forEach((raw, index) => {
    const line = raw.replace(/`[^`]*`/g, (code) => ' '.repeat(code.length));
    const targets = [
      ...[...line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]),
      ...[...line.matchAll(/^\s{0,3}\[[^\]]+\]:\s+<?(\S+?)>?(?:\s+"[^"]*")?\s*$/g)].map((m) => m[1]),
      ...[...line.matchAll(/<(?:a|img)\s[^>]*(?:href|src)="([^"]+)"/g)].map((m) => m[1]),
    ];
    for (const target of targets) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue;
      links.push({ line: index + 1, target });
    }
  });
  return links;
}

/** What is wrong with each relative link in `file` (repo-relative), as "file:line: target: reason". */
export function brokenLinks(file: string, root: string = repoRoot): string[] {
  const problems: string[] = [];
  const anchorsOf = new Map<string, Set<string>>();
  const anchors = (target: string) => {
    if (!anchorsOf.has(target)) anchorsOf.set(target, headingAnchors(readFileSync(target, 'utf8')));
    return anchorsOf.get(target)!;
  };
  const source = path.join(root, file);
  for (const { line, target } of relativeLinks(readFileSync(source, 'utf8'))) {
    const hashAt = target.indexOf('#');
    const pathPart = hashAt === -1 ? target : target.slice(0, hashAt);
    const anchor = hashAt === -1 ? null : decodeURIComponent(target.slice(hashAt + 1));
    const resolved = pathPart === '' ? source : path.resolve(path.dirname(source), decodeURIComponent(pathPart));
    const where = `${file}:${line}: ${target}`;
    if (!resolved.startsWith(root + path.sep) && resolved !== root) problems.push(`${where}: leaves the repository`);
    else if (!existsSync(resolved)) problems.push(`${where}: no such file`);
    else if (anchor !== null) {
      if (statSync(resolved).isDirectory() || !resolved.endsWith('.md'))
        problems.push(`${where}: an anchor into a file that is not Markdown`);
      else if (!anchors(resolved).has(anchor)) problems.push(`${where}: no heading with that anchor`);
    }
  }
  return problems;
}

/** Environment variables a config source file names: env.NAME, env['NAME'], and helper(env, 'NAME', …). */
export function envNamesIn(source: string): string[] {
  const names = [
    ...source.matchAll(/\benv\.([A-Z][A-Z0-9_]*)\b/g),
    ...source.matchAll(/\benv\[\s*['"]([A-Z][A-Z0-9_]*)['"]\s*\]/g),
    ...source.matchAll(/\(\s*env\s*,\s*['"]([A-Z][A-Z0-9_]*)['"]/g),
  ].map((match) => match[1]);
  return [...new Set(names)].sort();
}

/** The variable names of a Markdown table's rows (a first cell that is one `NAME` in code), with repeats. */
export function documentedVariables(markdown: string): string[] {
  return outsideFences(markdown).flatMap((line) => {
    const row = /^\|\s*`([A-Z][A-Z0-9_]*)`\s*\|/.exec(line);
    return row ? [row[1]] : [];
  });
}

/** For each variable read: missing if no row names it, twice (or more) if several do. */
export function undocumentedOrRepeated(read: Iterable<string>, documented: string[]): string[] {
  const count = (name: string) => documented.filter((d) => d === name).length;
  return [...new Set(read)]
    .sort()
    .flatMap((name) =>
      count(name) === 0 ? [`${name}: not in the table`] : count(name) > 1 ? [`${name}: in the table ${count(name)} times`] : [],
    );
}
