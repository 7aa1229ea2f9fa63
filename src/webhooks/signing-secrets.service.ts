import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { AppConfig } from '../config/app-config';

import { SIGNING_SECRET_PREFIX } from '../common/secret-prefixes';

/** A new signing secret: `whsec_` + base64 of 32 random bytes (docs/webhooks.md asks for ≥ 24). */
export function generateSigningSecret(): string {
  return SIGNING_SECRET_PREFIX + randomBytes(32).toString('base64');
}

/**
 * Encrypts signing secrets at rest with AES-256-GCM under `SECRETS_ENCRYPTION_KEY`
 * (docs/webhooks.md). Stored form: `v1:<iv>:<auth tag>:<ciphertext>`, each base64.
 */
@Injectable()
export class SigningSecretBox {
  private readonly key: Buffer;
  /** Ciphertext → plaintext: a stored value never changes meaning, so this never goes stale. */
  private readonly decrypted = new LRUCache<string, string>({ max: 10_000 });

  constructor(config: AppConfig) {
    this.key = config.secretsEncryptionKey;
  }

  /** @returns the stored form of `secret`, different on every call (random IV). */
  encrypt(secret: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return [
      'v1',
      iv.toString('base64'),
      cipher.getAuthTag().toString('base64'),
      ciphertext.toString('base64'),
    ].join(':');
  }

  /**
   * @returns the plaintext secret.
   * @throws Error when the value was not encrypted with this key (wrong `SECRETS_ENCRYPTION_KEY`) or was altered.
   */
  decrypt(stored: string): string {
    const cached = this.decrypted.get(stored);
    if (cached !== undefined) return cached;
    const plaintext = this.decryptUncached(stored);
    this.decrypted.set(stored, plaintext);
    return plaintext;
  }

  private decryptUncached(stored: string): string {
    const [version, iv, tag, ciphertext] = stored.split(':');
    if (version !== 'v1' || !iv || !tag || ciphertext === undefined)
      throw new Error('Unknown signing secret format');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64'));
      decipher.setAuthTag(Buffer.from(tag, 'base64'));
      const plaintext = Buffer.concat([
        decipher.update(Buffer.from(ciphertext, 'base64')),
        decipher.final(),
      ]);
      return plaintext.toString('utf8');
    } catch {
      throw new Error(
        'A signing secret cannot be decrypted: SECRETS_ENCRYPTION_KEY is not the key it was stored with',
      );
    }
  }
}
