import { Component } from './model';

/**
 * Bounds on what an SBOM may state as one component's licences: real ones name a few licences of
 * tens of characters; a hostile one should not fill every dependency row and listing with megabytes.
 */
export const MAX_LICENSES = 16;
export const MAX_LICENSE_CHARS = 256;
/**
 * A component's name, group, version, type and purl are cut to this many characters: real ones are
 * short, and "group/name" is a key of the dependencies' btree index, whose entries PostgreSQL refuses
 * above about 2.7 kB (two fields of 300 characters of up to 4 bytes stay under it).
 */
export const MAX_COMPONENT_FIELD_CHARS = 300;

const FIELDS = ['name', 'group', 'version', 'purl', 'type'] as const;

/**
 * A component as the dependency index takes it, whichever SBOM format stated it: its fields and
 * licences cut to the bounds, each licence once. Applied to every parser's components in one place.
 */
export function boundedComponent(c: Component): Component {
  const out: Component = { ...c };
  for (const k of FIELDS) {
    const v = out[k];
    if (v !== undefined && v.length > MAX_COMPONENT_FIELD_CHARS) out[k] = v.slice(0, MAX_COMPONENT_FIELD_CHARS);
  }
  if (out.licenses)
    out.licenses = [...new Set(out.licenses.map((l) => l.slice(0, MAX_LICENSE_CHARS)))].slice(0, MAX_LICENSES);
  return out;
}
