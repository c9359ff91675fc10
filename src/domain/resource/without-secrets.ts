/** What a secret value is replaced with in a text. */
const REDACTED = '********';

/**
 * `text` (an upstream's or the transport's error message, say) with every
 * occurrence of each secret replaced, as written and as JSON would escape it:
 * a transport quotes a header value it refuses, and an upstream may echo one.
 */
export function withoutSecrets(text: string, secrets: readonly string[]): string {
  const forms = secrets.flatMap((secret) => [secret, JSON.stringify(secret).slice(1, -1)]).filter((form) => form.length > 0);
  // Longest first, so a secret that contains another is replaced whole.
  return forms.sort((a, b) => b.length - a.length).reduce((result, form) => result.split(form).join(REDACTED), text);
}
