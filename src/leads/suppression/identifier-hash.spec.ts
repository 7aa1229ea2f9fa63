import { createHmac } from 'node:crypto';
import {
  deriveFingerprintKeys,
  deriveIdentifierKey,
  identifierHash,
  sealFingerprints,
  SEALED_RECORD_BYTES,
  unsealFingerprints,
} from './identifier-hash';

describe('keyed hashes and sealed fingerprints (docs/privacy.md#keyed-hashes)', () => {
  const secret = Buffer.alloc(32, 9);

  it('hashes with HMAC-SHA-256 under a key derived for this purpose alone', () => {
    const key = deriveIdentifierKey(secret);
    expect(key).toHaveLength(32);
    expect(key.equals(secret)).toBe(false);
    expect(identifierHash(key, 'phone', '+14155550199')).toEqual(
      createHmac('sha256', key).update('phone:+14155550199').digest(),
    );
  });

  it('derives seeds and a sealing key that differ from the hash key and from another secret', () => {
    const keys = deriveFingerprintKeys(secret);
    expect(keys.sealKey).toHaveLength(16);
    expect(keys.seeds.phone).not.toBe(keys.seeds.email);
    expect(deriveIdentifierKey(secret).includes(keys.sealKey)).toBe(false);
    expect(deriveFingerprintKeys(Buffer.alloc(32, 8)).sealKey.equals(keys.sealKey)).toBe(false);
  });

  it('stores a fingerprint sealed by its hash, and unseals it only with the same key', () => {
    const { sealKey } = deriveFingerprintKeys(secret);
    const hashKey = deriveIdentifierKey(secret);
    const entries = Array.from({ length: 300 }, (_, i) => ({
      hash: identifierHash(hashKey, 'phone', `+1415555${String(i).padStart(4, '0')}`),
      fingerprint: 0x12345678, // the same fingerprint, sealed 300 ways
    }));
    const sealed = sealFingerprints(sealKey, entries);
    expect(new Set(sealed).size).toBe(300);
    const records = Buffer.alloc(entries.length * SEALED_RECORD_BYTES);
    entries.forEach((e, i) => {
      e.hash.copy(records, i * SEALED_RECORD_BYTES, 0, 16);
      records.writeInt32BE(sealed[i], i * SEALED_RECORD_BYTES + 16);
    });
    expect([...unsealFingerprints(sealKey, records)]).toEqual(Array(300).fill(0x12345678));
    const wrongKey = deriveFingerprintKeys(Buffer.alloc(32, 1)).sealKey;
    expect([...unsealFingerprints(wrongKey, records)]).not.toContain(0x12345678);
  });
});
