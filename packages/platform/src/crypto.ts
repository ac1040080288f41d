import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { ConfigError } from './config';
import { loadOrCreateSecret } from './secrets';

const FORMAT = 'v1';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

interface Key {
  id: string;
  bytes: Buffer;
}

/** A key's id is a short hash of it: sealed values name the key that opens them, without revealing it. */
function keyOf(bytes: Buffer): Key {
  return { id: createHash('sha256').update('bulwark-secret-box').update(bytes).digest('hex').slice(0, 8), bytes };
}

/** Reads a master key given as base64 (or base64url) of exactly 32 bytes; `name` is used in the error. */
export function parseMasterKey(text: string, name: string): Buffer {
  const bytes = Buffer.from(text.trim(), 'base64');
  if (bytes.length !== 32)
    throw new Error(
      `${name} must be base64 of 32 random bytes (e.g. "openssl rand -base64 32"), got ${bytes.length} bytes`,
    );
  return bytes;
}

/**
 * Encrypts secrets at rest with AES-256-GCM: a random 96-bit nonce per value and the key id in front,
 * as `v1:<key id>:<base64url(nonce | ciphertext | tag)>`. Values sealed under an earlier key still
 * open while that key is passed in `previous`, so the master key can rotate.
 */
export class SecretBox {
  private readonly current: Key;
  private readonly keys: Map<string, Key>;

  constructor(current: Buffer, previous: Buffer[] = []) {
    for (const k of [current, ...previous]) if (k.length !== 32) throw new Error('SecretBox keys must be 32 bytes');
    this.current = keyOf(current);
    this.keys = new Map([this.current, ...previous.map(keyOf)].map((k) => [k.id, k]));
  }

  get keyId(): string {
    return this.current.id;
  }

  seal(plain: string): string {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current.bytes, nonce);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `${FORMAT}:${this.current.id}:${Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64url')}`;
  }

  /** The plain text; throws on an unknown key, a malformed value or any tampering. */
  open(sealed: string): string {
    const [format, keyId, payload, ...rest] = sealed.split(':');
    if (format !== FORMAT || !keyId || payload === undefined || rest.length > 0) throw new Error('not a sealed secret');
    const key = this.keys.get(keyId);
    if (!key) throw new Error(`sealed with an unknown key (${keyId})`);
    const raw = Buffer.from(payload, 'base64url');
    if (raw.length < NONCE_BYTES + TAG_BYTES) throw new Error('sealed secret is truncated');
    const decipher = createDecipheriv('aes-256-gcm', key.bytes, raw.subarray(0, NONCE_BYTES));
    decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
    return Buffer.concat([
      decipher.update(raw.subarray(NONCE_BYTES, raw.length - TAG_BYTES)),
      decipher.final(),
    ]).toString('utf8');
  }

  /** Whether `sealed` was sealed under an earlier key and should be sealed again. */
  isStale(sealed: string): boolean {
    return sealed.split(':')[1] !== this.current.id;
  }
}

/** The configured master keys; `current` absent only in the single-process mode, which generates its own. */
export interface MasterKeys {
  current?: Buffer;
  previous: Buffer[];
}

/**
 * `BULWARK_MASTER_KEY` (and `BULWARK_PREVIOUS_MASTER_KEYS` while rotating), checked before anything
 * starts. Only the single-process mode may generate its own key into the data directory; processes of
 * a scaled deployment must share one, so there it is required.
 */
export function readMasterKeys(env: NodeJS.ProcessEnv, mode: { singleProcess: boolean }, service: string): MasterKeys {
  const problems: string[] = [];
  const parse = (text: string, name: string) => {
    try {
      return parseMasterKey(text, name);
    } catch (err) {
      problems.push((err as Error).message);
      return undefined;
    }
  };
  const configured = env.BULWARK_MASTER_KEY || undefined;
  if (!configured && !mode.singleProcess)
    problems.push(`BULWARK_MASTER_KEY: required when ${service} runs as its own process (base64 of 32 bytes)`);
  const current = configured === undefined ? undefined : parse(configured, 'BULWARK_MASTER_KEY');
  const previous = (env.BULWARK_PREVIOUS_MASTER_KEYS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((k, i) => parse(k, `BULWARK_PREVIOUS_MASTER_KEYS[${i}]`));
  if (problems.length > 0) throw new ConfigError(problems);
  return { current, previous: previous.filter((k): k is Buffer => k !== undefined) };
}

/** The deployment's SecretBox: the configured key, or (single-process mode) the one kept in the data directory. */
export function openSecretBox(keys: MasterKeys, dataDir: string): SecretBox {
  if (keys.current) return new SecretBox(keys.current, keys.previous);
  try {
    return new SecretBox(
      parseMasterKey(loadOrCreateSecret(dataDir, 'master-key'), 'BULWARK_MASTER_KEY'),
      keys.previous,
    );
  } catch (err) {
    throw new ConfigError([(err as Error).message]);
  }
}
