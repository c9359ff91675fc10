export * from './mode-session';
export * from './mode-tool-config';
