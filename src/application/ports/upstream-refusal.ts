/**
 * An upstream operation stopped on purpose: the address is not allowed, or a
 * reply passed a limit. `message` says what was wrong in general terms and is
 * safe to show the caller; `detail` (which address, which limit) is for the
 * log only, so a refusal cannot be used to learn what a host name resolves to.
 */
export class UpstreamRefusal extends Error {
  constructor(
    message: string,
    readonly detail: string,
  ) {
    super(message);
    this.name = 'UpstreamRefusal';
  }

  static address(detail: string): UpstreamRefusal {
    return new UpstreamRefusal('upstream address not allowed', detail);
  }
}
