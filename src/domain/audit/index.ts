export * from './audit-event';
