import { createHash, randomBytes } from 'node:crypto';
import { hash, verify, Algorithm } from '@node-rs/argon2';
import { invalid, FieldProblem } from '@bulwark/platform';
import { passwordWeakness } from './password-policy';

export async function hashPassword(password: string): Promise<string> {
  return hash(password, { algorithm: Algorithm.Argon2id });
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

// A real hash to compare against when the user does not exist, so timing does not reveal usernames.
let decoy: Promise<string> | undefined;
export async function burnPasswordCheck(password: string): Promise<void> {
  decoy ??= hashPassword(randomBytes(16).toString('hex'));
  await verifyPassword(await decoy, password);
}

/**
 * Checks a new password and its confirmation; every problem is named. `context`: words of the
 * account (its username), which the password must not be built on.
 */
export function checkNewPassword(
  password: string | undefined,
  confirmation: string | undefined,
  minLength: number,
  context: string[] = [],
): string {
  const problems: FieldProblem[] = [];
  if (password === undefined || password === '') problems.push({ field: 'password', problem: 'is required' });
  else if ([...password].length < minLength)
    problems.push({ field: 'password', problem: `must be at least ${minLength} characters` });
  else {
    const weakness = passwordWeakness(password, context);
    if (weakness) problems.push({ field: 'password', problem: weakness });
  }
  if (password && confirmation === undefined) problems.push({ field: 'password_confirmation', problem: 'is required' });
  else if (password && confirmation !== password)
    problems.push({ field: 'password_confirmation', problem: 'does not match password' });
  if (problems.length > 0)
    throw invalid(`Invalid password: ${problems.map((p) => `${p.field} ${p.problem}`).join('; ')}`, problems);
  return password as string;
}

export const API_TOKEN_PREFIX = 'bwk_';

/** API tokens are 256 random bits: a fast hash is enough to store them, and lookup stays one index probe. */
export function newApiToken(): { token: string; hash: string } {
  const token = API_TOKEN_PREFIX + randomBytes(32).toString('base64url');
  return { token, hash: hashApiToken(token) };
}

export function hashApiToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
