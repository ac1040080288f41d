import type { Migration } from '@bulwark/platform';

/** The reporting schema; until the service is built its database holds only the platform tables. */
export const migrations: Migration[] = [];
