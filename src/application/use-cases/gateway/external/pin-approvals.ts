import { FieldError, ValidationError } from '../../../../domain/errors';
import { approvalHolds, MAX_PINNED_NAME_LENGTH, PinApproval, ToolPin } from '../../../../domain/tool';

// How an owner's approve_tools entries are read, and checked against a server's pins.
const SHA256 = /^[0-9a-fA-F]{64}$/;

function isToolName(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_PINNED_NAME_LENGTH;
}

/** An approve_tools entry: a tool name, or {name, sha256}; null when it is neither. */
export function approvalOf(entry: unknown): PinApproval | null {
  if (isToolName(entry)) return { tool: entry, sha256: null };
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return null;
  const { name, sha256, ...rest } = entry as Record<string, unknown>;
  if (Object.keys(rest).length > 0 || !isToolName(name) || typeof sha256 !== 'string' || !SHA256.test(sha256)) return null;
  return { tool: name, sha256: sha256.toLowerCase() };
}

/** A ValidationError naming each approval that `pins` cannot honour: no pin, or a seen definition other than the one asked for. */
export function refuseUnheld(pins: ReadonlyMap<string, ToolPin>, approvals: readonly PinApproval[]): void {
  const errors: FieldError[] = [];
  approvals.forEach((approval, i) => {
    const pin = pins.get(approval.tool);
    const field = `data.approve_tools[${i}]`;
    if (pin === undefined) errors.push({ field, message: 'names no tool keygate pinned on this server' });
    else if (!approvalHolds(pin, approval)) {
      // No tool name: the field names the entry, and the seen sha256 must survive the 200-character message bound.
      errors.push({
        field,
        message: `the definition changed again: keygate now sees sha256 ${pin.seenSha256}; get the record and check that one before approving it`,
      });
    }
  });
  if (errors.length > 0) throw new ValidationError(errors);
}

export function byTool(pins: readonly ToolPin[]): Map<string, ToolPin> {
  return new Map(pins.map((pin) => [pin.tool, pin]));
}
