import { UpstreamAddressCheck } from '../../../application/ports/upstream-address-check.port';
import { UpstreamRefusal } from '../../../application/ports/upstream-refusal';
import { UpstreamAddressGuard } from './upstream-address-guard';

/**
 * UpstreamAddressCheck by the guard every connection goes through, so a
 * registration is refused by exactly the rule a connection would be. Only a
 * refusal counts: a name that does not resolve (yet), or a resolver slower
 * than `timeoutMs`, is left to the connection-time check, so a caller never
 * waits on DNS for longer than that. The refused host and address go to
 * `log`, never to the caller.
 */
export class GuardedAddressCheck implements UpstreamAddressCheck {
  constructor(
    private readonly guard: UpstreamAddressGuard,
    private readonly timeoutMs: number,
    private readonly log: (message: string) => void,
  ) {}

  async check(url: string): Promise<void> {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.timeoutMs);
    });
    try {
      await Promise.race([this.guard.pin(host).then(() => undefined), late]);
    } catch (error) {
      if (!(error instanceof UpstreamRefusal)) return;
      this.log(`MCP server registration refused: ${error.detail}`);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }
}
