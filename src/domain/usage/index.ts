export * from './latency-histogram';
export * from './usage-bucket';
export * from './usage-outcome';
