import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { Exchange } from './setup-order';

type Schema = Record<string, unknown>;
interface Operation {
  responses: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: Schema;
}

/** The operation of a concrete path: its template's parameters match any segment, literal templates first. */
function operationOf(doc: Document, method: string, path: string): [string, Operation] | undefined {
  const templates = Object.keys(doc.paths).sort((a, b) => a.split('{').length - b.split('{').length);
  for (const template of templates) {
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    const operation = doc.paths[template][method.toLowerCase()];
    if (operation && pattern.test(path)) return [`${method} ${template}`, operation];
  }
  return undefined;
}

/**
 * What is wrong with each response against the document: an undeclared operation, status or media
 * type, or a JSON body its schema refuses (formats checked). Text and binary bodies are checked for
 * their media type only.
 */
export function invalidExchanges(doc: Document, exchanges: Exchange[]): string[] {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const problems: string[] = [];
  for (const x of exchanges) {
    const found = operationOf(doc, x.method, x.path);
    const label = `${x.client} ${x.method} ${x.path} ${x.status}`;
    if (!found) {
      problems.push(`${label}: no such operation`);
      continue;
    }
    const [name, operation] = found;
    const response = operation.responses[String(x.status)];
    if (!response) {
      problems.push(`${label}: status not declared by ${name}`);
      continue;
    }
    const mediaType = x.content_type.split(';')[0].trim();
    const media = response.content?.[mediaType];
    if (response.content && !media) {
      problems.push(`${label}: ${mediaType} not declared by ${name}`);
      continue;
    }
    if (!media?.schema || !/json$/.test(mediaType)) continue;
    const validate = ajv.compile({ ...media.schema, components: doc.components });
    if (!validate(JSON.parse(x.body)))
      problems.push(`${label}: ${ajv.errorsText(validate.errors, { dataVar: 'body' }).slice(0, 1000)}`);
  }
  return problems;
}
