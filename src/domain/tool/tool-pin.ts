/**
 * A tool definition keygate has seen from an upstream MCP server. `sha256`
 * is the approved definition's; `seenSha256` the one last served, which
 * differs while the status is `changed`.
 */
export interface ToolPin {
  tool: string;
  sha256: string;
  status: 'approved' | 'changed';
  seenSha256: string;
}

/** A definition as an upstream served it: the tool's name and its definition's SHA-256. */
export interface ServedDefinition {
  tool: string;
  sha256: string;
}

/** What one listing asks of the pins: first sights to pin, definitions newly seen as changed, and changed ones served as approved again. */
export interface PinChanges {
  first: ServedDefinition[];
  changed: ServedDefinition[];
  restored: ServedDefinition[];
}

/**
 * Compares what a server serves with its pins. A definition other than the
 * approved one is news only when it is not already the one last seen, so a
 * changed tool is reported once per new definition, however often it is
 * listed. A tool served with its approved definition again is approved again.
 */
export function pinChanges(pins: ReadonlyMap<string, ToolPin>, served: readonly ServedDefinition[]): PinChanges {
  const changes: PinChanges = { first: [], changed: [], restored: [] };
  for (const definition of served) {
    const pin = pins.get(definition.tool);
    if (pin === undefined) changes.first.push(definition);
    else if (pin.sha256 === definition.sha256) {
      if (pin.status === 'changed') changes.restored.push(definition);
    } else if (pin.status === 'approved' || pin.seenSha256 !== definition.sha256) changes.changed.push(definition);
  }
  return changes;
}

export function hasChanges({ first, changed, restored }: PinChanges): boolean {
  return first.length + changed.length + restored.length > 0;
}

/** Only the approved definition of a pinned tool is offered. */
export function isApproved(pin: ToolPin | undefined, sha256: string): boolean {
  return pin !== undefined && pin.sha256 === sha256;
}

/**
 * An owner's approval of a tool's last seen definition. With `sha256`, it
 * approves only that definition: the one the owner inspected, not whatever
 * the upstream served since.
 */
export interface PinApproval {
  tool: string;
  sha256: string | null;
}

/** Whether approving `pin` now approves what `approval` asks for. */
export function approvalHolds(pin: ToolPin, approval: PinApproval): boolean {
  return approval.sha256 === null || pin.seenSha256 === approval.sha256;
}

/**
 * Whether a pinned tool is withheld without its current definition at hand:
 * the one last seen is not the approved one. Where keygate lists the server
 * itself it compares the served definition (isApproved); a caller that never
 * sees the definition (forward auth) goes by the pin's status.
 */
export function awaitsApproval(pin: ToolPin | undefined): boolean {
  return pin !== undefined && pin.status === 'changed';
}
