import { Finding } from '../model';
import { addCvss, arr, obj, str } from '../normalize';
import { each, hasKeys, JsonFormat, ParseContext } from './common';
import { packageVulnerability } from './package-vulnerability';

/**
 * NeuVector image scan report (REST `POST /v1/scan/repository` response and the standalone scanner's
 * JSON; 4.x–5.x): one finding per entry of `report.vulnerabilities`, a vulnerability in one package.
 * Severity is NeuVector's High/Medium/Low (Critical in 5.x). Its compliance `checks`, `secrets` and
 * `setid_perms` are benchmark output, not vulnerabilities, and are not read.
 */
function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  const report = obj(obj(doc).report);
  const image = [str(report.registry), str(report.repository)].filter(Boolean).join('/');
  const tag = str(report.tag);
  for (const r of each(report.vulnerabilities)) {
    const v = obj(r);
    const id = str(v.name) ?? 'unknown';
    const name = str(v.package_name) ?? 'unknown';
    const version = str(v.package_version);
    const fixed = str(v.fixed_version);
    const sev = str(v.severity) ?? 'Unknown';
    const init = ctx.finding({
      tool: 'neuvector',
      toolCategory: 'container',
      ...packageVulnerability({ id, aliases: arr(v.cves), name, version, fixedVersion: fixed, severity: sev }),
      title: `${id} in ${name}${version ? `:${version}` : ''}`,
      description: str(v.description),
      tags: [v.in_base_image === true ? 'base-image' : undefined, ...arr(v.tags).map(str)].filter(
        (t): t is string => !!t,
      ),
      references: [str(v.link)].filter((u): u is string => !!u),
      filePath: str(v.file_name),
      resource: image ? { id: `${image}${tag ? `:${tag}` : ''}`, type: 'container-image' } : undefined,
    });
    addCvss(init, v.vectors_v3, v.score_v3);
    addCvss(init, v.vectors, v.score);
    yield init;
  }
}

export const neuvector: JsonFormat = {
  id: 'neuvector',
  title: 'NeuVector image scan report JSON (REST scan/repository, standalone scanner)',
  testedWith: 'NeuVector 4.x and 5.x',
  kind: 'json',
  detect: (doc) =>
    hasKeys(doc, 'report') &&
    hasKeys(obj(doc).report, 'vulnerabilities') &&
    ['modules', 'checks', 'envs', 'cmds', 'base_os', 'image_id'].some((k) => k in obj(obj(doc).report)),
  parse,
};
