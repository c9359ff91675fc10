/** The parameters of the Bearer challenge in a WWW-Authenticate value, names lowercase; empty when there is none. */
export function bearerChallengeParams(header: string): Map<string, string> {
  const params = new Map<string, string>();
  // A challenge starts with its scheme; parameters are name=token or name="quoted".
  const start = /(?:^|,)\s*bearer(?:\s+|$)/i.exec(header);
  if (!start) return params;
  const pattern = /\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,"]*))\s*(,|$)/y;
  pattern.lastIndex = start.index + start[0].length;
  for (let match = pattern.exec(header); match; match = pattern.exec(header)) {
    const name = match[1].toLowerCase();
    if (!params.has(name)) params.set(name, match[2] !== undefined ? match[2].replace(/\\(.)/g, '$1') : match[3]);
    if (match[4] === '') break;
    // The next item is a new challenge (a scheme followed by a space), not a parameter.
    if (/^\s*[!#$%&'*+.^_`|~0-9A-Za-z-]+(\s+[^=,]|\s*$)/.test(header.slice(pattern.lastIndex))) break;
  }
  return params;
}
