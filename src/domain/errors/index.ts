export * from './domain-error';
export * from './validation.error';
export * from './not-found.error';
export * from './forbidden.error';
export * from './conflict.error';
export * from './invalid-api-key.error';
export * from './invalid-access-token.error';
export * from './error-bounds';
