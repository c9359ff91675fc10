/**
 * A tool definition keygate has seen from an upstream MCP server. `sha256`
 * is the approved definition's; `seenSha256` the one last served, which
 * differs while the status is `changed`. `described`: whether the approved
 * definition's text is kept (PinnedDefinition); a pin made before keygate
 * kept them, or just approved, has none until that definition is served.
 */
export interface ToolPin {
  tool: string;
  sha256: string;
  status: 'approved' | 'changed';
  seenSha256: string;
  described: boolean;
}

/**
 * A definition as an upstream served it: the tool's name, its definition's
 * SHA-256 and (where keygate may keep it) the canonical text hashed.
 */
export interface ServedDefinition {
  tool: string;
  sha256: string;
  text?: string;
}

/** An approved definition's canonical text, as kept with its pin: what a user without a connection is shown (definitionFrom). */
export interface PinnedDefinition {
  tool: string;
  sha256: string;
  text: string;
}

/**
 * What one listing asks of the pins: first sights to pin, definitions newly
 * seen as changed, changed ones served as approved again, approved ones
 * served whose text is not kept yet, and the tools whose text is kept but
 * which the listing no longer names (`gone`).
 */
export interface PinChanges {
  first: ServedDefinition[];
  changed: ServedDefinition[];
  restored: ServedDefinition[];
  described: ServedDefinition[];
  gone: string[];
}

/**
 * Compares what a server serves with its pins. A definition other than the
 * approved one is news only when it is not already the one last seen, so a
 * changed tool is reported once per new definition, however often it is
 * listed. A tool served with its approved definition again is approved again.
 * The approved definition's text is news while its pin keeps none; another
 * definition's text never is. A kept text is news once its tool is no longer
 * served: a server that dropped a tool should not be shown with it.
 */
export function pinChanges(pins: ReadonlyMap<string, ToolPin>, served: readonly ServedDefinition[]): PinChanges {
  const changes: PinChanges = { first: [], changed: [], restored: [], described: [], gone: [] };
  for (const definition of served) {
    const pin = pins.get(definition.tool);
    if (pin === undefined) changes.first.push(definition);
    else if (pin.sha256 === definition.sha256) {
      if (pin.status === 'changed') changes.restored.push(definition);
      if (!pin.described && definition.text !== undefined) changes.described.push(definition);
    } else if (pin.status === 'approved' || pin.seenSha256 !== definition.sha256) changes.changed.push(definition);
  }
  const named = new Set(served.map((definition) => definition.tool));
  for (const pin of pins.values()) if (pin.described && !named.has(pin.tool)) changes.gone.push(pin.tool);
  return changes;
}

export function hasChanges({ first, changed, restored, described, gone }: PinChanges): boolean {
  return first.length + changed.length + restored.length + described.length + gone.length > 0;
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
