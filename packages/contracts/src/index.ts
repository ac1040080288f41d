export * from './zod';
export * from './common';
export * from './permissions';
export * from './events';
export * from './route-table';
export * from './openapi';
export * from './routes/identity';
export * from './tool-types';
