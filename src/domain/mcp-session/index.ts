export * from './mcp-session';
export * from './session-token';
