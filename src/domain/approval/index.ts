export * from './tool-call-approval';
