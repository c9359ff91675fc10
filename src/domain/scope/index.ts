export * from './scope-catalog';
export * from './scope';
export * from './scope-set';
