/** The names, labels and annotations by which Bulwark finds its own objects in the cluster. */
import { createHash } from 'node:crypto';

export const MANAGED_BY = 'app.kubernetes.io/managed-by';
export const SCAN_ID_LABEL = 'bulwark.io/scan-id';
export const TOOL_LABEL = 'bulwark.io/tool';
export const SCAN_ID_ANNOTATION = 'bulwark.io/scan-id';
/** Per Job, random: the report frame in the log cannot be forged by output the scanned code controls. */
export const MARKER_ANNOTATION = 'bulwark.io/report-marker';
export const RULES_CONFIG_MAP = 'bulwark-scanner-rules';
export const SCANNER_CONTAINER = 'scanner';
export const CHECKOUT_CONTAINER = 'checkout';
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** `bulwark-scan-<scan id>` when that is a DNS label (scan ids are UUIDs), else a digest of the id. */
export function jobName(scanId: string): string {
  const direct = `bulwark-scan-${scanId.toLowerCase()}`;
  return direct.length <= 63 && DNS_LABEL.test(direct)
    ? direct
    : `bulwark-scan-${createHash('sha256').update(scanId).digest('hex').slice(0, 40)}`;
}

/** A label value (≤ 63 chars, alphanumeric at both ends). */
export function labelValue(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-')
      .slice(0, 63)
      .replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, '') || 'unknown'
  );
}
