export * from './tool-action';
export * from './tool-descriptor';
