import { ToolPinStore } from '../../src/application/ports/tool-pin-store.port';
import { approvalHolds, PinApproval, PinnedDefinition, ServedDefinition, ToolPin } from '../../src/domain/tool';

/** ToolPinStore in memory, with the PostgreSQL store's conditions; `writes` counts the calls that could write. */
export class InMemoryToolPinStore implements ToolPinStore {
  readonly pins = new Map<string, Map<string, ToolPin>>();
  /** The kept text of each approved definition, by server and tool. */
  readonly texts = new Map<string, Map<string, string>>();
  writes = 0;
  /** How many times definitions() was read. */
  reads = 0;

  async list(serverId: string): Promise<ToolPin[]> {
    return [...this.of(serverId).values()]
      .map((pin) => ({ ...pin, described: this.textsOf(serverId).has(pin.tool) }))
      .sort((a, b) => (a.tool < b.tool ? -1 : 1));
  }

  async definitions(serverId: string): Promise<PinnedDefinition[]> {
    this.reads += 1;
    const texts = this.textsOf(serverId);
    return (await this.list(serverId))
      .filter((pin) => pin.status === 'approved' && texts.has(pin.tool))
      .map((pin) => ({ tool: pin.tool, sha256: pin.sha256, text: texts.get(pin.tool)! }));
  }

  async pinFirst(serverId: string, served: readonly ServedDefinition[], max: number): Promise<void> {
    this.writes += 1;
    const pins = this.of(serverId);
    let room = max - pins.size;
    for (const { tool, sha256, text } of served) {
      if (pins.has(tool)) continue;
      if (room <= 0) return;
      room -= 1;
      pins.set(tool, { tool, sha256, seenSha256: sha256, status: 'approved', described: false });
      if (text !== undefined) this.textsOf(serverId).set(tool, text);
    }
  }

  async markChanged(serverId: string, served: readonly ServedDefinition[]): Promise<ToolPin[]> {
    this.writes += 1;
    const noticed: ToolPin[] = [];
    for (const { tool, sha256 } of served) {
      const pin = this.of(serverId).get(tool);
      if (!pin || pin.sha256 === sha256 || (pin.status === 'changed' && pin.seenSha256 === sha256)) continue;
      Object.assign(pin, { status: 'changed', seenSha256: sha256 });
      noticed.push({ ...pin, described: this.textsOf(serverId).has(tool) });
    }
    return noticed;
  }

  async restore(serverId: string, served: readonly ServedDefinition[]): Promise<void> {
    this.writes += 1;
    for (const { tool, sha256 } of served) {
      const pin = this.of(serverId).get(tool);
      if (pin?.status === 'changed' && pin.sha256 === sha256) Object.assign(pin, { status: 'approved', seenSha256: sha256 });
    }
  }

  async describe(serverId: string, served: readonly ServedDefinition[]): Promise<void> {
    this.writes += 1;
    const texts = this.textsOf(serverId);
    for (const { tool, sha256, text } of served) {
      const pin = this.of(serverId).get(tool);
      if (pin?.sha256 === sha256 && text !== undefined && !texts.has(tool)) texts.set(tool, text);
    }
  }

  async forgetTexts(serverId: string, tools: readonly string[]): Promise<void> {
    this.writes += 1;
    for (const tool of tools) this.textsOf(serverId).delete(tool);
  }

  async approve(serverId: string, approvals: readonly PinApproval[]): Promise<ToolPin[]> {
    this.writes += 1;
    const pins = this.of(serverId);
    for (const approval of approvals) {
      const pin = pins.get(approval.tool);
      if (pin?.status === 'changed' && approvalHolds(pin, approval)) {
        Object.assign(pin, { status: 'approved', sha256: pin.seenSha256 });
        this.textsOf(serverId).delete(approval.tool);
      }
    }
    const tools = new Set(approvals.map((a) => a.tool));
    return (await this.list(serverId)).filter((pin) => tools.has(pin.tool));
  }

  private textsOf(serverId: string): Map<string, string> {
    let texts = this.texts.get(serverId);
    if (!texts) this.texts.set(serverId, (texts = new Map()));
    return texts;
  }

  private of(serverId: string): Map<string, ToolPin> {
    let pins = this.pins.get(serverId);
    if (!pins) this.pins.set(serverId, (pins = new Map()));
    return pins;
  }
}
