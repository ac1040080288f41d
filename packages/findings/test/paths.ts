import * as path from 'node:path';

/** The shared corpus lives beside the repository: repoRoot/../shared/corpus. */
export const CORPUS = path.resolve(__dirname, '..', '..', '..', '..', 'shared', 'corpus');
