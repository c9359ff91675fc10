/**
 * Whether this replica received SIGTERM: /readyz then answers 503, so a load
 * balancer or Kubernetes that still probes it sends it nothing new, while
 * requests it already has are finished.
 */
export class Draining {
  private begun = false;

  get started(): boolean {
    return this.begun;
  }

  start(): void {
    this.begun = true;
  }
}
