import type { Migration } from '@bulwark/platform';

/** The issues schema; until the service is built its database holds only the platform tables. */
export const migrations: Migration[] = [];
