import { invalid, Logger, notFound, PeriodicTask, Principal, ServiceData, Trx } from '@bulwark/platform';
import { cweNumber, RuleParams } from './domain/rules';
import { OPEN_STATUSES } from './domain/statuses';
import { historyStore } from './store/history';
import { issueStore } from './store/issues';
import { SecurityRuleRecord, securityRuleStore, SecurityRuleWrite } from './store/security-rules';
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

/** Security rules: they suppress matching issues now and at later ingestions, until they expire. */
export class SecurityRules {
  private readonly expiry: PeriodicTask;

  constructor(
    private readonly data: ServiceData,
    log: Logger,
    pollMs: number,
  ) {
    this.expiry = new PeriodicTask('security rule expiry', pollMs, () => this.expireDue(), log);
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
    if (![p.instrument_type, p.tool_type_name, p.category, p.cve, p.cwe].some((v) => v !== undefined && v !== '')) {
      throw invalid('A rule needs at least one parameter', [
        { field: 'rule_params', problem: 'needs instrument_type, tool_type_name, category, cve or cwe' },
      ]);
    }
    if (p.active_for_all === false && !(p.project_codes ?? []).length)
      throw invalid('Invalid rule_params.project_codes', [
        { field: 'rule_params.project_codes', problem: 'is required when active_for_all is false' },
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
    return this.data.transaction(async (trx) => {
      const rule = await securityRuleStore.insert(trx, { ...ruleWrite(input), author: principal.username });
      if (!rule.expiresAt || new Date(rule.expiresAt) > new Date()) await this.apply(trx, rule);
      return rule;
    });
  }

  async update(id: string, input: SecurityRuleInput): Promise<SecurityRuleRecord> {
    await this.validate(input);
    return this.data.transaction(async (trx) => {
      const rule = await securityRuleStore.update(trx, id, ruleWrite(input));
      if (!rule) throw notFound(`Security rule ${id}`);
      if (!rule.expiresAt || new Date(rule.expiresAt) > new Date()) await this.apply(trx, rule);
      return rule;
    });
  }

  async get(id: string): Promise<SecurityRuleRecord> {
    const rule = await securityRuleStore.get(this.data.db, id);
    if (!rule) throw notFound(`Security rule ${id}`);
    return rule;
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
