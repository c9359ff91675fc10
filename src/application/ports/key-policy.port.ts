/** Limits that operators configure; plain values so jobs can pass their own. */
export interface KeyPolicy {
  maxKeysPerUser: number;
}
