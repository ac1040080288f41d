import { SecretBox, ServiceData } from '@bulwark/platform';
import { sealedStore } from './store/sealed';

/** Seals the secrets stored under an earlier master key again under the current one; answers how many. */
export function resealStaleSecrets(data: ServiceData, secrets: SecretBox): Promise<number> {
  return data.transaction(async (trx) => {
    const stale = (await sealedStore.all(trx)).filter((s) => secrets.isStale(s.sealed));
    for (const s of stale) await sealedStore.replace(trx, s, secrets.seal(secrets.open(s.sealed)));
    return stale.length;
  });
}
