import { isEmail } from 'class-validator';
import { InvalidInputError } from '../common/domain-error';
import { MAX_EMAIL_LENGTH } from './user-limits.constants';

/**
 * Normalises and checks a dashboard user's email (docs/dashboard.md#users-and-roles): trimmed,
 * at most {@link MAX_EMAIL_LENGTH} characters, valid for class-validator's `isEmail`
 * (validator.js defaults, as lead emails are checked). The case is kept as given; uniqueness
 * and sign-in compare case-insensitively.
 * @throws InvalidInputError (field `email`) otherwise.
 */
export function normaliseEmail(email: string): string {
  const trimmed = email.trim();
  if ([...trimmed].length > MAX_EMAIL_LENGTH || !isEmail(trimmed)) {
    throw InvalidInputError.field(
      'email',
      `must be a valid email address of at most ${MAX_EMAIL_LENGTH} characters`,
    );
  }
  return trimmed;
}

/** The form emails are compared in: trimmed and lower-cased (the unique index is on `lower(email)`). */
export function emailKey(email: string): string {
  return email.trim().toLowerCase();
}
