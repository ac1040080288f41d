import * as admin from './admin';
import * as intel from './intel';

/**
 * The messages page chunks bring with them instead of the entry script (`addMessages` in i18n.tsx):
 * the same shape as MESSAGE_MODULES, checked by the same test.
 */
export const LAZY_MESSAGE_MODULES = { admin, intel } as const;
