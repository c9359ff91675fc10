/** Server-to-client requests awaiting the client's answer, counted per session on this replica. */
export class PendingRequests {
  private readonly counts = new Map<string, number>();

  /** False when the session already has `max` in flight here. */
  acquire(sessionId: string, max: number): boolean {
    const count = this.counts.get(sessionId) ?? 0;
    if (count >= max) return false;
    this.counts.set(sessionId, count + 1);
    return true;
  }

  release(sessionId: string): void {
    const count = (this.counts.get(sessionId) ?? 1) - 1;
    if (count <= 0) this.counts.delete(sessionId);
    else this.counts.set(sessionId, count);
  }

  inFlight(sessionId: string): number {
    return this.counts.get(sessionId) ?? 0;
  }
}
