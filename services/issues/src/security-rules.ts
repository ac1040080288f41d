import {
  invalid,
  Logger,
  notFound,
  pageOf,
  PeriodicTask,
  Principal,
  Queryable,
  ServiceData,
  Trx,
} from '@bulwark/platform';
import { deleteInScope } from './bulk-delete';
import { CallerScope } from './caller-scope';
import { cweNumber, ruleFilterValues, RuleParams, ruleProjects } from './domain/rules';
import { OPEN_STATUSES } from './domain/statuses';
import { historyStore } from './store/history';
import { issueStore } from './store/issues/issue-store';
import { SecurityRuleQuery, SecurityRuleRecord, securityRuleStore, SecurityRuleWrite } from './store/security-rules';
import { statusStore } from './store/settings';

export interface SecurityRuleInput {
  name: string;
  rule_params: RuleParams;
  suppressing_status: number;
  expiry_status: number;
  expires_at?: string | null;
}

const ruleWrite = (input: SecurityRuleInput): SecurityRuleWrite => ({
  name: input.name,
  ruleParams: input.rule_params,
  suppressingStatus: input.suppressing_status,
  expiryStatus: input.expiry_status,
  expiresAt: input.expires_at ?? null,
});

/** At most this many rules are read for one filter-values answer, or one list of a caller limited to some projects. */
const READ_CAP = 10000;

/** The rule as the caller may see it: only its own projects among `project_codes`. */
function inScope(scope: CallerScope, rule: SecurityRuleRecord): SecurityRuleRecord {
  if (scope.everyProject || rule.ruleParams.project_codes === undefined) return rule;
  const codes = scope.visible(ruleProjects(rule.ruleParams)).codes;
  return { ...rule, ruleParams: { ...rule.ruleParams, project_codes: [...codes] } };
}

/**
 * Security rules: they suppress matching issues now and at later ingestions, until they expire. A rule
 * applies to every project, or to its `project_codes` when `active_for_all` is false: a caller limited
 * to some projects sees the rules touching them and changes only rules of its own projects.
 */
export class SecurityRules {
  private readonly expiry: PeriodicTask;

  constructor(
    private readonly data: ServiceData,
    log: Logger,
    pollMs: number,
  ) {
    this.expiry = new PeriodicTask({ name: 'security rule expiry', everyMs: pollMs, run: () => this.expireDue(), log });
  }

  private async validate(input: SecurityRuleInput): Promise<void> {
    const known = new Set((await statusStore.list(this.data.db)).map((s) => s.id));
    for (const field of ['suppressing_status', 'expiry_status'] as const) {
      if (!known.has(input[field])) throw invalid(`Unknown ${field}`, [{ field, problem: 'is not a known status id' }]);
    }
    const p = input.rule_params;
    if (p.cwe !== undefined && cweNumber(p.cwe) === undefined)
      throw invalid('Invalid rule_params.cwe', [
        { field: 'rule_params.cwe', problem: 'must be a CWE number such as 79 or CWE-79' },
      ]);
  }

  /** Gives the rule's open matching issues its suppressing status, each change in their history. */
  private async apply(trx: Trx, rule: SecurityRuleRecord): Promise<number> {
    const p = rule.ruleParams;
    const covered = await issueStore.coveredByRule(
      trx,
      {
        instrumentType: p.instrument_type || undefined,
        toolName: p.tool_type_name || undefined,
        category: p.category || undefined,
        cve: p.cve || undefined,
        cwe: cweNumber(p.cwe),
        projectCodes: p.active_for_all === false ? (p.project_codes ?? []) : undefined,
      },
      OPEN_STATUSES.filter((s) => s !== rule.suppressingStatus),
    );
    const at = new Date().toISOString();
    await issueStore.setStatusMany(
      trx,
      covered.map((i) => i.id),
      rule.suppressingStatus,
      rule.id,
      at,
    );
    await historyStore.add(
      trx,
      covered.map((i) => ({
        issueId: i.id,
        actorKind: 'security_rule',
        actor: rule.name,
        field: 'status',
        oldValue: String(i.statusId),
        newValue: String(rule.suppressingStatus),
        comment: `Security rule ${rule.name}`,
        at,
      })),
    );
    return covered.length;
  }

  async create(principal: Principal, input: SecurityRuleInput): Promise<SecurityRuleRecord> {
    await this.validate(input);
    const scope = new CallerScope(principal);
    scope.assertMayChange(ruleProjects(input.rule_params), 'this security rule');
    return this.data.transaction(async (trx) => {
      const rule = await securityRuleStore.insert(trx, { ...ruleWrite(input), author: principal.username });
      if (!rule.expiresAt || new Date(rule.expiresAt) > new Date()) await this.apply(trx, rule);
      return inScope(scope, rule);
    });
  }

  /** The caller changes a rule only when both the projects it applies to and those it will apply to are its own. */
  async update(principal: Principal, id: string, input: SecurityRuleInput): Promise<SecurityRuleRecord> {
    await this.validate(input);
    const scope = new CallerScope(principal);
    return this.data.transaction(async (trx) => {
      const current = await this.visible(scope, id, trx);
      scope.assertMayChange(ruleProjects(current.ruleParams), `security rule ${id}`);
      scope.assertMayChange(ruleProjects(input.rule_params), `security rule ${id}`);
      const rule = await securityRuleStore.update(trx, id, ruleWrite(input));
      if (!rule) throw notFound(`Security rule ${id}`);
      if (!rule.expiresAt || new Date(rule.expiresAt) > new Date()) await this.apply(trx, rule);
      return inScope(scope, rule);
    });
  }

  private async visible(scope: CallerScope, id: string, db: Queryable = this.data.db) {
    const rule = await securityRuleStore.get(db, id);
    if (!rule || !scope.sees(ruleProjects(rule.ruleParams))) throw notFound(`Security rule ${id}`);
    return rule;
  }

  async get(principal: Principal, id: string): Promise<SecurityRuleRecord> {
    const scope = new CallerScope(principal);
    return inScope(scope, await this.visible(scope, id));
  }

  /** The rules the caller sees, filtered in memory for a caller limited to some projects. */
  async list(principal: Principal, q: SecurityRuleQuery & { page: number; limit: number }) {
    const scope = new CallerScope(principal);
    const page = scope.everyProject
      ? await securityRuleStore.list(this.data.db, q)
      : pageOf(await this.seen(scope, q), q);
    return { items: page.items.map((r) => inScope(scope, r)), total: page.total };
  }

  async filterValues(principal: Principal, q: SecurityRuleQuery) {
    return ruleFilterValues(await this.seen(new CallerScope(principal), q));
  }

  private async seen(scope: CallerScope, q: SecurityRuleQuery) {
    const rules = await securityRuleStore.matching(this.data.db, q, READ_CAP);
    return rules.filter((r) => scope.sees(ruleProjects(r.ruleParams)));
  }

  delete(principal: Principal, ids: string[]) {
    const scope = new CallerScope(principal);
    return this.data.transaction(async (trx) =>
      deleteInScope(
        ids,
        await securityRuleStore.getMany(trx, ids),
        (r) => scope.access(ruleProjects(r.ruleParams), `security rule ${r.id}`),
        (allowed) => securityRuleStore.delete(trx, allowed),
      ),
    );
  }

  /** Expires the rules whose time has come: issues they still hold move to their expiry status. */
  async expireDue(now = new Date()): Promise<number> {
    return this.data.transaction(async (trx) => {
      const due = await securityRuleStore.due(trx, now.toISOString(), 100);
      const at = now.toISOString();
      for (const rule of due) {
        const held = await issueStore.bySecurityRule(trx, rule.id, rule.suppressingStatus);
        await issueStore.setStatusMany(
          trx,
          held.map((i) => i.id),
          rule.expiryStatus,
          null,
          at,
        );
        await historyStore.add(
          trx,
          held.map((i) => ({
            issueId: i.id,
            actorKind: 'security_rule',
            actor: rule.name,
            field: 'status',
            oldValue: String(i.statusId),
            newValue: String(rule.expiryStatus),
            comment: `Security rule ${rule.name} expired`,
            at,
          })),
        );
        await securityRuleStore.markExpired(trx, rule.id);
      }
      return due.length;
    });
  }

  start(): void {
    this.expiry.start();
  }

  stop(): Promise<void> {
    return this.expiry.stop();
  }
}
