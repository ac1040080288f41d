import { conflict, invalid, notFound, Queryable, ServiceData, present } from '@bulwark/platform';
import type { BulkStatus } from './catalog-writes';
import { fieldValueProblems, FieldType } from './domain/field-values';
import { fieldStore } from './store/fields';

/** The custom fields every project may fill in (field_values), typed and possibly required. */
export class CustomFields {
  constructor(private readonly data: ServiceData) {}

  listFields(q: { page: number; limit: number }) {
    return fieldStore.list(this.data.db, q);
  }

  async getField(id: number) {
    const field = await fieldStore.get(this.data.db, id);
    if (!field) throw notFound(`Field ${id}`);
    return field;
  }

  async createField(w: { name: string; type: FieldType; required?: boolean; description?: string }) {
    return this.data.transaction(async (trx) => {
      if (await fieldStore.nameTaken(trx, w.name))
        throw conflict(`Field ${w.name} already exists`, [{ field: 'name', problem: 'already exists' }]);
      const id = await fieldStore.insert(trx, {
        name: w.name,
        type: w.type,
        required: w.required ?? false,
        description: w.description ?? '',
      });
      return present(await fieldStore.get(trx, id), `field ${id}`);
    });
  }

  async updateField(id: number, w: { name?: string; required?: boolean; description?: string }) {
    return this.data.transaction(async (trx) => {
      const field = await fieldStore.get(trx, id);
      if (!field) throw notFound(`Field ${id}`);
      if (w.name && (await fieldStore.nameTaken(trx, w.name, id)))
        throw conflict(`Field ${w.name} already exists`, [{ field: 'name', problem: 'already exists' }]);
      await fieldStore.update(trx, id, {
        name: w.name ?? field.name,
        required: w.required ?? field.required,
        description: w.description ?? field.description,
      });
      return present(await fieldStore.get(trx, id), `field ${id}`);
    });
  }

  async deleteFields(ids: number[]): Promise<BulkStatus[]> {
    return this.data.transaction(async (trx) => {
      const results: BulkStatus[] = [];
      for (const id of ids) {
        if (!(await fieldStore.get(trx, id))) results.push({ id: String(id), status: 'not_found' });
        else {
          const holders = await fieldStore.delete(trx, id);
          results.push({
            id: String(id),
            status: 'deleted',
            ...(holders > 0 ? { message: `removed its value from ${holders} project(s)` } : {}),
          });
        }
      }
      return results;
    });
  }

  /** Refuses values of unknown fields, of the wrong type, or missing required ones (400 naming each). */
  async checkFieldValues(db: Queryable, values: { field_id: number; value: string }[]): Promise<void> {
    const problems = fieldValueProblems(await fieldStore.all(db), values);
    if (problems.length > 0)
      throw invalid(`Invalid field_values: ${problems.map((p) => `${p.field} ${p.problem}`).join('; ')}`, problems);
  }
}
