import { hasKeys, JsonFormat } from './common';
import { advisories } from './npm-audit';
import { obj } from '../normalize';

/**
 * pnpm audit --json: npm 6's document (`advisories` keyed by advisory id, `metadata`) without npm's
 * `actions` and `muted`, and with paths from the project root (`.>minimist`). One finding per advisory
 * and affected version, read as npm 6's.
 */
export const pnpmAudit: JsonFormat = {
  id: 'pnpm-audit',
  title: 'pnpm audit --json',
  testedWith: 'pnpm 7 and 8',
  kind: 'json',
  detect: (doc) => hasKeys(doc, 'advisories', 'metadata') && !('actions' in obj(doc)) && !('muted' in obj(doc)),
  parse: (doc, ctx) => advisories(obj(doc), ctx, 'pnpm-audit'),
};
