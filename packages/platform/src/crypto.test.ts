import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { ConfigError } from './config';
import { openSecretBox, parseMasterKey, readMasterKeys, SecretBox } from './crypto';

/** The box a module gets: its keys read before anything starts, then opened on its data directory. */
const boxOf = (settings: { singleProcess: boolean; dataDir: string; env: NodeJS.ProcessEnv }, service: string) =>
  openSecretBox(readMasterKeys(settings.env, settings, service), settings.dataDir);

describe('SecretBox (AES-256-GCM secrets at rest)', () => {
  const key = randomBytes(32);

  it('opens what it sealed, with a fresh nonce each time and no plain text inside', () => {
    const box = new SecretBox(key);
    const a = box.seal('hunter2-password');
    const b = box.seal('hunter2-password');
    expect(a).not.to.equal(b);
    expect(a).to.match(new RegExp(`^v1:${box.keyId}:[A-Za-z0-9_-]+$`));
    expect(a).not.to.contain('hunter2');
    expect(box.open(a)).to.equal('hunter2-password');
    expect(box.open(box.seal(''))).to.equal('');
    expect(box.open(box.seal('pässwörd ✓'))).to.equal('pässwörd ✓');
  });

  it('refuses a tampered value, another key and malformed input', () => {
    const box = new SecretBox(key);
    const sealed = box.seal('secret');
    const [v, id, payload] = sealed.split(':');
    const raw = Buffer.from(payload, 'base64url');
    raw[raw.length - 20] ^= 1;
    expect(() => box.open(`${v}:${id}:${raw.toString('base64url')}`)).to.throw();
    expect(() => new SecretBox(randomBytes(32)).open(sealed)).to.throw(/unknown key/);
    for (const bad of ['', 'plain', 'v1:abc', `v2:${id}:${payload}`, `v1:${id}:AAAA`])
      expect(() => box.open(bad), bad).to.throw();
  });

  it('rotates: values sealed under a previous key still open and are reported stale', () => {
    const old = new SecretBox(key);
    const sealed = old.seal('token-123');
    const rotated = new SecretBox(randomBytes(32), [key]);
    expect(rotated.open(sealed)).to.equal('token-123');
    expect(rotated.isStale(sealed)).to.equal(true);
    expect(rotated.isStale(rotated.seal('x'))).to.equal(false);
  });

  it('reads a master key as base64 or base64url of exactly 32 bytes, naming the variable otherwise', () => {
    expect(parseMasterKey(key.toString('base64'), 'K').equals(key)).to.equal(true);
    expect(parseMasterKey(key.toString('base64url'), 'K').equals(key)).to.equal(true);
    expect(() => parseMasterKey(randomBytes(16).toString('base64'), 'BULWARK_MASTER_KEY')).to.throw(
      /BULWARK_MASTER_KEY must be base64 of 32/,
    );
    expect(() => new SecretBox(randomBytes(31))).to.throw(/32 bytes/);
  });

  it('takes the master key from BULWARK_MASTER_KEY, requires it for a service on its own, and generates one only in one process', () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'secret-box-'));
    try {
      const configured = key.toString('base64');
      const sealed = boxOf({ singleProcess: false, dataDir, env: { BULWARK_MASTER_KEY: configured } }, 'catalog').seal(
        's',
      );
      expect(new SecretBox(key).open(sealed)).to.equal('s');
      expect(() => boxOf({ singleProcess: false, dataDir, env: {} }, 'catalog')).to.throw(
        ConfigError,
        /BULWARK_MASTER_KEY: required when catalog runs as its own process/,
      );
      expect(() =>
        boxOf({ singleProcess: true, dataDir, env: { BULWARK_MASTER_KEY: 'c2hvcnQ=' } }, 'catalog'),
      ).to.throw(ConfigError, /BULWARK_MASTER_KEY must be base64 of 32/);
      const first = boxOf({ singleProcess: true, dataDir, env: {} }, 'catalog');
      expect(fs.statSync(path.join(dataDir, 'secrets', 'master-key')).mode & 0o777).to.equal(0o600);
      expect(boxOf({ singleProcess: true, dataDir, env: {} }, 'catalog').open(first.seal('again'))).to.equal('again');
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
