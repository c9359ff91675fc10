export * from './tool-action';
export * from './tool-descriptor';
export * from './tool-definition';
export * from './tool-pin';
export * from './tool-rule';
