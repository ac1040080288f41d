import { z } from './zod';

/** Query strings carry text: these read booleans and numbers from it strictly. */
export const queryBool = z
  .enum(['true', 'false', '1', '0'])
  .transform((v) => v === 'true' || v === '1')
  .openapi({ type: 'boolean' });

/** Repeated query keys arrive as arrays: a multi-valued filter takes one value or a list, and reads as a list. */
export const multi = <T extends z.ZodType>(item: T) =>
  z
    .union([item, z.array(item).max(1000)])
    .transform((v) => (Array.isArray(v) ? v : [v]) as z.infer<T>[])
    .optional();

export const pageQuery = {
  page: z.coerce.number().int().min(1).default(1).openapi({ description: 'Page number, from 1', example: 1 }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000, 'must be at most 1000')
    .default(50)
    .openapi({ description: 'Records per page: default 50, maximum 1000', example: 50 }),
};

export function listOf<T extends z.ZodType>(item: T, name: string) {
  return z
    .object({
      items: z.array(item),
      total: z.number().int(),
      page: z.number().int(),
      limit: z.number().int(),
    })
    .openapi(name);
}

export const isoDateTime = z.iso.datetime({ offset: true }).openapi({ example: '2026-12-31T23:59:59Z' });

export const idsBody = z
  .object({ ids: z.array(z.string().min(1)).min(1).max(1000) })
  .strict()
  .openapi('IdsBody', { description: 'Bulk operation: the ids to act on' });

export const bulkResult = z
  .object({
    results: z.array(
      z.object({
        id: z.string(),
        status: z.enum(['deleted', 'revoked', 'restored', 'archived', 'unarchived', 'not_found', 'conflict', 'forbidden', 'unchanged']),
        message: z.string().optional(),
      }),
    ),
  })
  .openapi('BulkResult', { description: 'What was done, per id' });

export const errorBody = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: 'invalid_request' }),
      message: z.string(),
      details: z.array(z.object({ field: z.string(), problem: z.string() })).optional(),
    }),
  })
  .openapi('Error');

/** A route's access: the permission key and letter it needs. */
export const perm = (key: string, letter: 'r' | 'w' | 'x' | 'd') => ({ kind: 'permission' as const, key, letter });
