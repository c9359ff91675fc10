export * from './agent-role';
