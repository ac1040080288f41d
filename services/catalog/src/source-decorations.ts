import {
  assertCredentialStaysWith,
  assertReachable,
  invalidField,
  isUuid,
  Logger,
  notFound,
  OutboundPolicy,
  Principal,
  SecretBox,
  ServiceData,
} from '@bulwark/platform';
import type { DecorationPlatformName, ReviewMinSeverity, SourceDecorationBody } from '@bulwark/contracts';
import type { ResourceAccess, ResourceLookup } from './resource-access';
import { DecorationRecord, decorationStore } from './store/decorations';
import { SourceRecord, sourceStore } from './store/sources';

const SOURCES: ResourceLookup<SourceRecord> = { kind: 'source', get: (db, id) => sourceStore.get(db, id) };

/** What another service needs to decorate a pull request of the source's repository: the token opened. */
export interface DecorationForService {
  platform: DecorationPlatformName;
  apiUrl: string;
  token: string;
  reviewMinSeverity: ReviewMinSeverity;
  repositoryUrl: string;
}

/**
 * Pull request decoration settings of a source's repository. The API address must pass the outbound
 * address policy when it is set (and passes it again at every call, in the issues service); the token
 * is sealed before it is stored, goes only to the address it was given for, and is never returned.
 */
export class SourceDecorations {
  constructor(
    private readonly deps: {
      data: ServiceData;
      access: ResourceAccess;
      secrets: SecretBox;
      policy: OutboundPolicy;
      log: Logger;
    },
  ) {}

  async get(p: Principal, sourceId: string): Promise<DecorationRecord> {
    await this.deps.access.visible(this.deps.data.db, p, sourceId, SOURCES);
    const decoration = await decorationStore.get(this.deps.data.db, sourceId);
    if (!decoration) throw notFound(`Decoration of source ${sourceId}`);
    return decoration;
  }

  async set(p: Principal, sourceId: string, body: SourceDecorationBody): Promise<DecorationRecord> {
    await assertReachable(this.deps.policy, body.api_url, 'api_url', 'The API address');
    return this.deps.data.transaction(async (trx) => {
      await this.deps.access.changeable(trx, p, sourceId, SOURCES);
      const stored = await decorationStore.get(trx, sourceId);
      const tokenSealed = body.token !== undefined ? this.deps.secrets.seal(body.token) : stored?.tokenSealed;
      if (!tokenSealed) throw invalidField('token', 'is required the first time');
      // A stored token goes only where it already went: never to another scheme, host or port.
      if (body.token === undefined && stored) assertCredentialStaysWith(stored.apiUrl, body.api_url, 'api_url');
      await decorationStore.put(trx, sourceId, {
        enabled: body.enabled,
        platform: body.platform,
        apiUrl: body.api_url.replace(/\/+$/, ''),
        tokenSealed,
        reviewMinSeverity: body.review_min_severity ?? stored?.reviewMinSeverity ?? 'none',
      });
      this.deps.log.info('source decoration set', {
        sourceId,
        platform: body.platform,
        enabled: body.enabled,
        tokenChanged: body.token !== undefined,
        by: p.username,
      });
      const saved = await decorationStore.get(trx, sourceId);
      if (!saved) throw notFound(`Decoration of source ${sourceId}`);
      return saved;
    });
  }

  /** For internal callers (gRPC): the enabled decoration of a source, its token opened; 404 when none. */
  async forService(sourceId: string): Promise<DecorationForService> {
    const source = isUuid(sourceId) ? await sourceStore.get(this.deps.data.db, sourceId) : undefined;
    const decoration = source ? await decorationStore.get(this.deps.data.db, sourceId) : undefined;
    if (!source || !decoration?.enabled) throw notFound(`Decoration of source ${sourceId}`);
    return {
      platform: decoration.platform,
      apiUrl: decoration.apiUrl,
      token: this.deps.secrets.open(decoration.tokenSealed),
      reviewMinSeverity: decoration.reviewMinSeverity,
      repositoryUrl: source.url,
    };
  }
}
