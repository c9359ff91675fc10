/**
 * Whether a URI could have come from an RFC 6570 URI template, as scope rules
 * need it: each expression stands for a run of characters that its operator
 * could produce (`{x}`, `{.x}`, `{;x}`: no `/`, `?` or `#`; `{/x}`: no `?` or
 * `#`; `{?x}`, `{&x}`: no `#`; `{+x}`, `{#x}`: anything), literals for
 * themselves. Matched by one pass per part over the URI's positions, so time
 * is length × parts whatever the input (no regular expression to backtrack).
 */
export class UriTemplatePattern {
  private constructor(private readonly parts: readonly Part[]) {}

  /** Why `template` is not a template this can read (unbalanced or nested braces, an empty expression); null when it is. */
  static problemWith(template: string): string | null {
    const parts = parse(template);
    return typeof parts === 'string' ? parts : null;
  }

  /** Whether the text is a template at all (has an expression): plain URIs are matched exactly by callers. */
  static isTemplate(text: string): boolean {
    return text.includes('{');
  }

  /** The pattern of a valid template; null for an invalid one, which then matches nothing. */
  static of(template: string): UriTemplatePattern | null {
    const parts = parse(template);
    return typeof parts === 'string' ? null : new UriTemplatePattern(parts);
  }

  matches(uri: string): boolean {
    let reach: boolean[] = Array.from({ length: uri.length + 1 }, (_, i) => i === 0);
    for (const part of this.parts) {
      const next: boolean[] = new Array<boolean>(uri.length + 1).fill(false);
      if (typeof part === 'string') {
        for (let at = 0; at + part.length <= uri.length; at++) if (reach[at] && uri.startsWith(part, at)) next[at + part.length] = true;
      } else {
        let alive = false;
        for (let at = 0; at <= uri.length; at++) {
          if (at > 0 && part.excluded.includes(uri[at - 1])) alive = false;
          if (reach[at]) alive = true;
          next[at] = alive;
        }
      }
      reach = next;
    }
    return reach[uri.length];
  }
}

/** A literal, or an expression as the characters its expansion cannot hold. */
type Part = string | { excluded: string };

const EXCLUDED: Record<string, string> = { '+': '', '#': '', '/': '?#', '?': '#', '&': '#', '.': '/?#', ';': '/?#' };

function parse(template: string): Part[] | string {
  const parts: Part[] = [];
  let at = 0;
  while (at < template.length) {
    const open = template.indexOf('{', at);
    const close = template.indexOf('}', at);
    if (open === -1) {
      if (close !== -1) return 'has a } without its {';
      parts.push(template.slice(at));
      break;
    }
    if (close !== -1 && close < open) return 'has a } without its {';
    if (open > at) parts.push(template.slice(at, open));
    const end = template.indexOf('}', open);
    if (end === -1) return 'has a { without its }';
    const body = template.slice(open + 1, end);
    if (body.includes('{')) return 'nests { inside an expression';
    const operator = Object.hasOwn(EXCLUDED, body[0] ?? '') ? body[0] : '';
    if (body.length === operator.length) return 'has an empty expression {}';
    parts.push({ excluded: operator === '' ? '/?#' : EXCLUDED[operator] });
    at = end + 1;
  }
  return parts;
}
