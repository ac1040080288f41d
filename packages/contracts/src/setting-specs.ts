import { getOpenApiMetadata } from '@asteasolutions/zod-to-openapi';
import type { ZodObject, ZodType } from 'zod';

/** One setting of a source or tool type, as `GET /source-types` and `GET /tool-types` list it. */
export interface SettingSpec {
  name: string;
  required: boolean;
  secret: boolean;
  /** Accepted so one payload shape fits every type, and not used by this one. */
  ignored: boolean;
  description: string;
}

/**
 * The settings an object schema takes, read from the schema the service validates with, so the list
 * cannot drift from it: required when absence does not parse, described as the document describes it.
 */
export function describeSettings(
  object: ZodObject,
  names: { secret: readonly string[]; ignored: readonly string[] },
): SettingSpec[] {
  return Object.entries(object.shape as Record<string, ZodType>).map(([name, schema]) => {
    const ignored = names.ignored.includes(name);
    return {
      name,
      required: !ignored && !schema.safeParse(undefined).success,
      secret: names.secret.includes(name),
      ignored,
      description: (getOpenApiMetadata(schema).description as string | undefined) ?? '',
    };
  });
}
