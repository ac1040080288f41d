export * from './infra';
export * from './http';
export * from './system';
export * from './suite';
export * from './databases';
export * from './git-server';
export * from './oidc-provider';
export * from './license';
