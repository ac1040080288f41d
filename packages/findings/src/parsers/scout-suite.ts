import { CloudResource, Finding, Severity } from '../model';
import { arr, obj, str } from '../normalize';
import { hasKeys, JsonFormat, ParseContext } from './common';

/** Scout Suite rule levels. */
const LEVELS: Record<string, Severity> = { danger: 'high', warning: 'medium' };

/** The resource a flagged item path names, with its name and region looked up in the services tree. */
function resourceOf(
  services: Record<string, unknown>,
  item: string,
  suffix: string | undefined,
  account?: string,
): CloudResource {
  const parts = item.split('.');
  if (suffix && parts[parts.length - 1] === suffix) parts.pop();
  let node: unknown = services;
  for (const p of parts) {
    const next = obj(node)[p];
    if (next === undefined) break;
    node = next;
  }
  const regionAt = parts.indexOf('regions');
  return {
    id: parts.join('.'),
    type: parts[0],
    name: str(obj(node).name) ?? str(obj(node).arn) ?? parts[parts.length - 1],
    region: regionAt >= 0 ? parts[regionAt + 1] : undefined,
    account,
  };
}

/**
 * Scout Suite results (`scoutsuite-results/scoutsuite_results_*.js`, 5.x; AWS, Azure, GCP, Alibaba,
 * Oracle): the JSON after the script's `scoutsuite_results =`. One finding per flagged item of a rule
 * (a rule flagging two buckets is two findings, each with its bucket as the resource); rules with no
 * flagged item are passed checks. Severity: `danger` high, `warning` medium. Every rule is a
 * configuration check, so each finding carries CWE-1032 (security misconfiguration), as DefectDojo
 * files them.
 */
function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  const d = obj(doc);
  const services = obj(d.services);
  const provider = str(d.provider_code) ?? 'cloud';
  const account = str(d.account_id) ?? str(d.project_id) ?? str(d.subscription_id);
  for (const [serviceId, service] of Object.entries(services)) {
    for (const [ruleId, r] of Object.entries(obj(obj(service).findings))) {
      const rule = obj(r);
      const level = str(rule.level) ?? 'warning';
      const title = str(rule.description) ?? ruleId;
      for (const i of arr(rule.items)) {
        const item = str(i);
        if (!item) continue;
        yield ctx.finding({
          tool: 'scout-suite',
          toolCategory: 'iac',
          ruleId: `${provider}:${ruleId}`,
          title,
          description:
            [
              str(rule.rationale),
              `Service: ${str(rule.service) ?? serviceId}`,
              `Item: ${item}`,
              ...arr(rule.compliance).map(
                (c) =>
                  `Compliance: ${str(obj(c).name) ?? ''} ${str(obj(c).version) ?? ''} ${str(obj(c).reference) ?? ''}`,
              ),
            ]
              .filter(Boolean)
              .join('\n') || undefined,
          severity: LEVELS[level] ?? 'info',
          toolSeverity: level,
          tags: [provider, serviceId],
          cwes: [1032],
          references: arr(rule.references)
            .map(str)
            .filter((u): u is string => !!u),
          mitigation: str(rule.remediation),
          resource: resourceOf(services, item, str(rule.id_suffix), account),
        });
      }
    }
  }
}

export const scoutSuite: JsonFormat = {
  id: 'scout-suite',
  title: 'Scout Suite results (scoutsuite_results_*.js or its JSON)',
  testedWith: 'Scout Suite 5.x',
  kind: 'json',
  detect: (doc) => hasKeys(doc, 'provider_code', 'services', 'last_run'),
  parse,
};
