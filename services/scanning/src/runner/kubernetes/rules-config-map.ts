import fs from 'node:fs';
import path from 'node:path';
import type * as K8s from '@kubernetes/client-node' with { 'resolution-mode': 'import' };
import { ScanRunError } from '../scan-runner';
import { apiMessage, statusCode } from './api-errors';
import type { KubeApi } from './clients';
import { MANAGED_BY, RULES_CONFIG_MAP } from './names';

const sameData = (a: Record<string, string>, b: Record<string, string>) =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, v]) => b[k] === v);

/** The shipped rules as one ConfigMap (keys cannot hold `/`, so each file is mapped back to its path). */
export class RulesConfigMap {
  private published: Promise<K8s.V1KeyToPath[]> | undefined;

  constructor(private readonly deps: { api: KubeApi; rulesDir: string }) {}

  /** The ConfigMap's items, published once (again after a failed try). */
  items(): Promise<K8s.V1KeyToPath[]> {
    this.published ??= this.publish().catch((err) => {
      this.published = undefined;
      throw err;
    });
    return this.published;
  }

  private read(): { data: Record<string, string>; items: K8s.V1KeyToPath[] } {
    const { rulesDir } = this.deps;
    const data: Record<string, string> = {};
    const items: K8s.V1KeyToPath[] = [];
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (entry.isFile()) {
          const rel = path.relative(rulesDir, full).split(path.sep).join('/');
          const key = rel.replaceAll('/', '__');
          data[key] = fs.readFileSync(full, 'utf8');
          items.push({ key, path: rel });
        }
      }
    };
    walk(rulesDir);
    return { data, items };
  }

  private async publish(): Promise<K8s.V1KeyToPath[]> {
    const { core, namespace } = await this.deps.api.clients();
    const { data, items } = this.read();
    const metadata: K8s.V1ObjectMeta = { name: RULES_CONFIG_MAP, labels: { [MANAGED_BY]: 'bulwark' } };
    let existing: K8s.V1ConfigMap | undefined;
    try {
      existing = await core.readNamespacedConfigMap({ name: RULES_CONFIG_MAP, namespace });
    } catch (err) {
      if (statusCode(err) !== 404)
        throw new ScanRunError(`Could not read the scanner rules ConfigMap: ${apiMessage(err)}`);
    }
    try {
      if (!existing)
        await core.createNamespacedConfigMap({
          namespace,
          body: { apiVersion: 'v1', kind: 'ConfigMap', metadata, data },
          fieldValidation: 'Strict',
        });
      else if (!sameData(existing.data ?? {}, data)) {
        const replaced = { ...metadata, resourceVersion: existing.metadata?.resourceVersion };
        await core.replaceNamespacedConfigMap({
          name: RULES_CONFIG_MAP,
          namespace,
          body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: replaced, data },
          fieldValidation: 'Strict',
        });
      }
    } catch (err) {
      // Another replica published them at the same moment: theirs are the same rules.
      if (statusCode(err) !== 409)
        throw new ScanRunError(`Could not publish the scanner rules ConfigMap: ${apiMessage(err)}`);
    }
    return items;
  }
}
