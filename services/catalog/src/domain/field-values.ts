import { FieldProblem, isUuid } from '@bulwark/platform';

export type FieldType = 'text' | 'datetime' | 'uuid' | 'url';

export interface FieldDefinition {
  id: number;
  name: string;
  type: FieldType;
  required: boolean;
}

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

function typeProblem(type: FieldType, value: string): string | undefined {
  switch (type) {
    case 'text':
      return undefined;
    case 'datetime':
      return ISO_DATE_TIME.test(value) && !Number.isNaN(Date.parse(value))
        ? undefined
        : 'must be an ISO 8601 date-time with a time zone, e.g. 2026-04-02T10:00:00Z';
    case 'uuid':
      return isUuid(value) ? undefined : 'must be a UUID';
    case 'url':
      try {
        const u = new URL(value);
        return u.protocol === 'http:' || u.protocol === 'https:' ? undefined : 'must be an http:// or https:// URL';
      } catch {
        return 'must be an http:// or https:// URL';
      }
  }
}

/** Every problem of a project's field values: unknown or repeated fields, values of the wrong type, required fields left out. */
export function fieldValueProblems(
  fields: FieldDefinition[],
  values: { field_id: number; value: string }[],
): FieldProblem[] {
  const byId = new Map(fields.map((f) => [f.id, f]));
  const seen = new Set<number>();
  const problems: FieldProblem[] = [];
  values.forEach((v, i) => {
    const field = byId.get(v.field_id);
    if (!field) problems.push({ field: `field_values[${i}].field_id`, problem: `unknown custom field ${v.field_id}` });
    else if (seen.has(v.field_id))
      problems.push({ field: `field_values[${i}].field_id`, problem: `custom field "${field.name}" is given twice` });
    else {
      const bad = typeProblem(field.type, v.value);
      if (bad)
        problems.push({
          field: `field_values[${i}].value`,
          problem: `${bad} (custom field "${field.name}", type ${field.type})`,
        });
    }
    seen.add(v.field_id);
  });
  for (const f of fields) {
    if (f.required && !values.some((v) => v.field_id === f.id && v.value.trim() !== '')) {
      problems.push({ field: 'field_values', problem: `custom field "${f.name}" (id ${f.id}) is required` });
    }
  }
  return problems;
}
