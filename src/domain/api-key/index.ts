export * from './api-key';
export * from './key-attributes';
export * from './key-name';
export * from './raw-api-key';
export * from './usage-limits';
