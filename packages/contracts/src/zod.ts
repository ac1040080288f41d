import { z } from 'zod';
import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';

// Every schema of the route table carries OpenAPI metadata, so this runs before any schema is built.
extendZodWithOpenApi(z);

export { z };
