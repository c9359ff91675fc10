import { ApprovalBinding } from '../../../domain/approval';
import { canonicalJson } from '../../../domain/canonical-json';
import { ContentDigest } from '../../ports/content-digest.port';
import { ToolTarget } from '../gateway/tools/tool-target';
import { RuleSet } from '../tool-rules/evaluate-tool-rules';

/** The built-in rules' record, as approvals name it. */
export const BUILT_IN_RECORD = 'built_in';

/** A call as an approval binds it, and the server it reaches (empty for a built-in tool). */
export interface BoundCall {
  binding: ApprovalBinding;
  serverName: string;
}

/**
 * What an approval of this call is bound to. A server record's version is
 * its updated_at (any edit, its rules' too, makes a new one); the built-in
 * tools' rules have no row version a call reads, so theirs is a digest of
 * the tool's rule list: a changed rule makes a new one.
 */
export function boundCall(
  keyId: string,
  target: ToolTarget,
  args: Record<string, unknown> | undefined,
  rules: RuleSet,
  digest: ContentDigest,
): BoundCall {
  const argumentsSha256 = argumentsDigest(args, digest);
  if (target.kind === 'built-in') {
    const recordVersion = digest.sha256(canonicalJson(rules.rules));
    return { binding: { keyId, tool: target.resource, argumentsSha256, recordId: BUILT_IN_RECORD, recordVersion }, serverName: '' };
  }
  const { server, tool } = target.tool;
  return {
    binding: { keyId, tool: `${server.id}/${tool}`, argumentsSha256, recordId: server.id, recordVersion: server.updatedAt.toISOString() },
    serverName: String(server.data.name ?? ''),
  };
}

/**
 * SHA-256 hex of the arguments' canonical JSON (`{}` when absent), the same
 * value as the audit trail's `args_sha256`. A number JSON cannot hold counts
 * as null, as JSON.stringify writes it.
 */
export function argumentsDigest(args: Record<string, unknown> | undefined, digest: ContentDigest): string {
  let text: string;
  try {
    text = canonicalJson(args ?? {});
  } catch {
    text = canonicalJson(JSON.parse(JSON.stringify(args ?? {})));
  }
  return digest.sha256(text);
}
