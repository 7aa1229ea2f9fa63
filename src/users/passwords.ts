import { randomBytes } from 'node:crypto';
import { hash, verify, type Algorithm, type Options } from '@node-rs/argon2';
import { InvalidInputError } from '../common/domain-error';
import { MIN_PASSWORD_LENGTH, MAX_PASSWORD_LENGTH } from './user-limits.constants';

/** Random bytes of a generated password: 18 bytes are 24 base64url characters (144 bits). */
const GENERATED_PASSWORD_BYTES = 18;

/** `Algorithm.Argon2id` (a `const enum` in the typings, so written as its value). */
const ARGON2ID: Algorithm = 2;

/**
 * argon2id with OWASP's baseline (19 MiB, 2 passes, 1 lane): about 20–60 ms per hash. The
 * parameters are part of each stored PHC string, so raising them later keeps old hashes valid.
 */
export const ARGON2_OPTIONS: Options = {
  algorithm: ARGON2ID,
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
};

/**
 * Checks a password chosen by an operator: {@link MIN_PASSWORD_LENGTH} to
 * {@link MAX_PASSWORD_LENGTH} characters (Unicode code points).
 * @throws InvalidInputError (field `password`) otherwise.
 */
export function validatePassword(password: string): string {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH || length > MAX_PASSWORD_LENGTH) {
    throw InvalidInputError.field(
      'password',
      `must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters`,
    );
  }
  return password;
}

/** A new random password: 24 base64url characters (144 bits), printed once by the CLI. */
export function generatePassword(): string {
  return randomBytes(GENERATED_PASSWORD_BYTES).toString('base64url');
}

/** The argon2id PHC string of `password`, the only form in which passwords are stored. */
export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2_OPTIONS);
}

/** Whether `password` matches the stored PHC string `passwordHash` (false for a malformed hash). */
export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

let dummyHash: Promise<string> | undefined;

/**
 * A hash of a random password with the same parameters, made once per process: verified
 * against when no user has the email given, so that an unknown email costs the same time as a
 * wrong password (docs/dashboard.md#sessions).
 */
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(generatePassword());
  return dummyHash;
}
