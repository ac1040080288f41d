import { StringDecoder } from 'node:string_decoder';
import { SaxesParser } from 'saxes';
import { InputError } from '../errors';
import { ByteSource, bomLength } from './source';

/** A small element tree: names without namespace prefix, text of direct text and CDATA children. */
export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
}

export interface XmlLimits {
  maxDepth: number;
  maxTextBytes: number;
  maxElements: number;
}

export const DEFAULT_XML_LIMITS: XmlLimits = { maxDepth: 128, maxTextBytes: 16 << 20, maxElements: 5_000_000 };

const CHUNK = 1 << 20;

function localName(name: string): string {
  const i = name.indexOf(':');
  return i < 0 ? name : name.slice(i + 1);
}

/**
 * Parses XML into a tree. A DOCTYPE that declares entities is refused, and no DTD is ever loaded,
 * which rules out external entities and entity expansion. Only the five predefined entities and
 * character references are decoded; saxes rejects any other entity reference.
 */
export function readXml(source: ByteSource, limits: XmlLimits = DEFAULT_XML_LIMITS): XmlElement {
  const parser = new SaxesParser({ xmlns: false, position: true });
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  let count = 0;
  // Burp, Nikto and Qualys write a DOCTYPE naming a DTD or declaring elements; that is harmless, as
  // saxes never loads a DTD. Entity declarations are refused: no entity is ever expanded.
  parser.on('doctype', (doctype) => {
    if (/<!ENTITY/i.test(doctype)) {
      throw new InputError('XML DOCTYPE is refused: it declares entities (no entity is expanded, no DTD loaded)');
    }
  });
  parser.on('opentag', (tag) => {
    if (stack.length >= limits.maxDepth) throw new InputError(`XML nested deeper than ${limits.maxDepth} levels`);
    if (++count > limits.maxElements) throw new InputError(`XML has more than ${limits.maxElements} elements`);
    const attrs: Record<string, string> = {};
    for (const [k, v] of Object.entries(tag.attributes)) attrs[localName(k)] = String(v);
    const el: XmlElement = { name: localName(tag.name), attrs, children: [], text: '' };
    const parent = stack[stack.length - 1];
    if (parent) parent.children.push(el);
    else if (root) throw new InputError('XML has more than one root element');
    else root = el;
    stack.push(el);
  });
  parser.on('closetag', () => {
    const el = stack.pop();
    if (el) el.text = el.text.trim();
  });
  const onText = (t: string): void => {
    const el = stack[stack.length - 1];
    if (!el) return;
    if (el.text.length + t.length > limits.maxTextBytes) {
      throw new InputError(`XML text of <${el.name}> is longer than ${limits.maxTextBytes >> 20} MiB`);
    }
    el.text += t;
  };
  parser.on('text', onText);
  parser.on('cdata', onText);
  parser.on('error', (e) => {
    throw e;
  });

  const decoder = new StringDecoder('utf8');
  try {
    for (let pos = bomLength(source); pos < source.size; pos += CHUNK) {
      parser.write(decoder.write(source.read(pos, CHUNK)));
    }
    parser.write(decoder.end());
    parser.close();
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw new InputError(`invalid XML: ${(e as Error).message}`);
  }
  if (!root) throw new InputError('no XML root element');
  return root;
}

export function child(el: XmlElement | undefined, name: string): XmlElement | undefined {
  return el?.children.find((c) => c.name === name);
}

export function children(el: XmlElement | undefined, name: string): XmlElement[] {
  return el ? el.children.filter((c) => c.name === name) : [];
}

/** Text of the first child with that name, or undefined when missing or empty. */
export function childText(el: XmlElement | undefined, name: string): string | undefined {
  const t = child(el, name)?.text;
  return t ? t : undefined;
}

/** Follows a path of child names, e.g. `path(bom, 'components', 'component')`, returning every match. */
export function path(el: XmlElement | undefined, ...names: string[]): XmlElement[] {
  let cur: XmlElement[] = el ? [el] : [];
  for (const n of names) cur = cur.flatMap((c) => children(c, n));
  return cur;
}
