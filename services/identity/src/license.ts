import { createPublicKey, KeyObject } from 'node:crypto';
import {
  BULWARK_VERSION,
  COMMUNITY_EDITION,
  daysLeft,
  IDENTITY_EVENTS,
  LicenseDocument,
  LicenseLimits,
  LicenseRejected,
  licenseState,
  LicenseState,
  readLicense,
} from '@bulwark/contracts';
import {
  errorMessage,
  invalid,
  LicenseGate,
  LicenseLimitReached,
  Logger,
  Principal,
  serializeAcrossReplicas,
  ServiceData,
  Trx,
} from '@bulwark/platform';
import { dueExpiryNotice, installProblem, limitsInForce } from './domain/license';
import { identityEvent } from './rights-changes';
import { InstalledLicense, licenseStore } from './store/license';
import { userStore } from './store/users';

/**
 * The vendor's Ed25519 public key, built in: a license verifies only under it (or under
 * LICENSE_PUBLIC_KEY, which replaces it, for tests and for a vendor's own key).
 */
export const VENDOR_PUBLIC_KEY = `-----BEGIN PUBLIC KEY-----
MCowBQYDK2VwAyEAtZMxJlBjhqNct+K0XcmDUq8gK1aiET5kJJ9owKmwhL8=
-----END PUBLIC KEY-----`;

/** A PEM public key, or the base64 of its DER (SubjectPublicKeyInfo) for an environment variable on one line. */
export function readPublicKey(text: string): KeyObject {
  const key = text.includes('-----BEGIN')
    ? createPublicKey(text)
    : createPublicKey({ key: Buffer.from(text.trim(), 'base64'), format: 'der', type: 'spki' });
  if (key.asymmetricKeyType !== 'ed25519')
    throw new Error(`LICENSE_PUBLIC_KEY must be an Ed25519 key, not ${key.asymmetricKeyType}`);
  return key;
}

/** What identity asks the services that hold what the other limits count. A count that cannot be had now is null. */
export interface UsageCounts {
  projects(): Promise<number>;
  scanningProcesses(): Promise<number>;
}

/**
 * Counts the users a new one would join and refuses it over the users limit, in the caller's
 * transaction (serialized across replicas, so two creations cannot both take the last place).
 */
export async function ensureUserRoom(trx: Trx): Promise<void> {
  const full = await userLimitReached(trx);
  if (full) throw full;
}

/** The same check, answered rather than thrown (a bulk restore reports it per user). */
export async function userLimitReached(trx: Trx): Promise<LicenseLimitReached | undefined> {
  await serializeAcrossReplicas(trx, 'license:users');
  const max = limitsInForce((await licenseStore.get(trx))?.document).users;
  try {
    LicenseGate.ensureRoom('users', max, await userStore.countActive(trx));
    return undefined;
  } catch (err) {
    if (err instanceof LicenseLimitReached) return err;
    throw err;
  }
}

/**
 * The license of this installation. Identity owns it: it keeps the installation id, counts users
 * itself, every request already passes through it (authentication), and the other services ask it
 * for the limits in force over the gRPC client they have to it. Without a license, or once it has
 * expired, the community edition's limits apply; expiry is announced ahead as a security event.
 */
export class Licensing {
  constructor(
    private readonly deps: {
      data: ServiceData;
      publicKey: KeyObject;
      counts: UsageCounts;
      noticeDays: number[];
      log: Logger;
    },
  ) {}

  private async current(): Promise<InstalledLicense | undefined> {
    return licenseStore.get(this.deps.data.db);
  }

  private static status(doc: LicenseDocument | undefined, now = Date.now()) {
    const status: LicenseState = licenseState(doc, now);
    return {
      status,
      edition: doc?.edition ?? COMMUNITY_EDITION,
      days_left: doc ? daysLeft(doc.expires_at, now) : null,
      expires_at: doc?.expires_at ?? null,
    };
  }

  async limits(): Promise<{ limits: LicenseLimits; status: LicenseState }> {
    const doc = (await this.current())?.document;
    return { limits: limitsInForce(doc), status: licenseState(doc) };
  }

  async view() {
    const installed = await this.current();
    const doc = installed?.document;
    return {
      ...Licensing.status(doc),
      installed: Boolean(installed),
      id: doc?.id ?? null,
      licensee: doc?.licensee ?? null,
      installation_id: await licenseStore.installationId(this.deps.data.db),
      issued_at: doc?.issued_at ?? null,
      installed_at: installed?.installedAt ?? null,
      limits: limitsInForce(doc),
      license_limits: doc?.limits ?? null,
      features: doc?.features ?? [],
    };
  }

  async statusView() {
    return Licensing.status((await this.current())?.document);
  }

  /** Installs a license text: 400 and nothing stored when it does not verify, has expired, or is another installation's. */
  async install(principal: Principal, text: string) {
    let doc: LicenseDocument;
    try {
      doc = readLicense(text, this.deps.publicKey);
    } catch (err) {
      if (err instanceof LicenseRejected)
        throw invalid(`Invalid license: ${err.message}`, [{ field: 'license', problem: err.message }]);
      throw err;
    }
    const problem = installProblem(doc, await licenseStore.installationId(this.deps.data.db));
    if (problem) throw invalid(`Invalid license: ${problem}`, [{ field: 'license', problem }]);
    await this.deps.data.transaction((trx) => licenseStore.put(trx, text.trim(), doc, principal.username));
    this.deps.log.info('license installed', {
      licenseId: doc.id,
      licensee: doc.licensee,
      edition: doc.edition,
      expiresAt: doc.expires_at,
      by: principal.username,
    });
    // A license installed close to its expiry announces it at once, not at the next check.
    await this.checkExpiry();
    return this.view();
  }

  async environment() {
    const doc = (await this.current())?.document;
    const count = (what: string, ask: () => Promise<number>) =>
      ask().catch((err: unknown) => {
        this.deps.log.warn(`cannot count ${what} for the license environment`, { error: errorMessage(err) });
        return null;
      });
    const [projects, scanningProcesses] = await Promise.all([
      count('projects', () => this.deps.counts.projects()),
      count('scans in flight', () => this.deps.counts.scanningProcesses()),
    ]);
    return {
      installation_id: await licenseStore.installationId(this.deps.data.db),
      version: BULWARK_VERSION,
      edition: doc && licenseState(doc) !== 'expired' ? doc.edition : COMMUNITY_EDITION,
      limits: limitsInForce(doc),
      in_use: {
        projects,
        users: await userStore.countActive(this.deps.data.db),
        scanning_processes: scanningProcesses,
      },
    };
  }

  /**
   * Sends the expiry notice that is due (license.expiring at each threshold, license.expired once)
   * through the outbox, with the record that it was sent, so each goes out once across replicas.
   */
  async checkExpiry(): Promise<void> {
    await this.deps.data.transaction(async (trx) => {
      const installed = await licenseStore.get(trx, { forUpdate: true });
      if (!installed) return;
      const doc = installed.document;
      const notice = dueExpiryNotice(doc, installed, this.deps.noticeDays);
      if (!notice) return;
      const base = { license_id: doc.id, licensee: doc.licensee, edition: doc.edition, expires_at: doc.expires_at };
      if (notice.kind === 'expired') {
        await identityEvent(trx, IDENTITY_EVENTS.licenseExpired, 'license', base);
        await licenseStore.noticesSent(trx, { expiredNoticeSent: true });
      } else {
        await identityEvent(trx, IDENTITY_EVENTS.licenseExpiring, 'license', { ...base, days_left: notice.daysLeft });
        await licenseStore.noticesSent(trx, { expiringNoticeDays: notice.threshold });
      }
      this.deps.log.warn(
        notice.kind === 'expired' ? 'the license has expired: community limits apply' : 'the license expires soon',
        { licenseId: doc.id, expiresAt: doc.expires_at },
      );
    });
  }
}
