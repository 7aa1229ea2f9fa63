import { Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { FingerprintFilter } from './fingerprint-filter';
import { deriveFingerprintKeys, unsealFingerprints } from './identifier-hash';
import { SuppressionRepository } from './suppression.repository';

/** What an upload's check asks first: whether an identifier with a fingerprint may be listed. */
export interface SuppressionPrefilter {
  mayHold(fingerprint: number): boolean;
}

/** The prefilter of a list that holds entries without fingerprints: every lead is looked up. */
export const LOOK_UP_EVERY_LEAD: SuppressionPrefilter = { mayHold: () => true };

/** Most bytes the filters of one process hold together (eight of the largest). */
export const FILTER_CACHE_BYTES = 64 * 1024 * 1024;

interface CachedFilter {
  /** The list version the filter holds every entry of (a decimal string). */
  version: string;
  /** Entries read into it, removed ones included: what its size is checked against. */
  entries: number;
  /** Null when the list holds entries without fingerprints. */
  filter: FingerprintFilter | null;
}

/**
 * The accounts' suppression lists as {@link FingerprintFilter}s in this process's memory
 * (docs/privacy.md#fingerprints), kept current by the list's version: each check reads the
 * version (one indexed query, which also tells an empty list), and a filter behind it reads
 * only the fingerprints of the entries added since. Filters are kept for the accounts checked
 * most recently, within {@link FILTER_CACHE_BYTES}; loads of one account are not run twice at
 * once. The fingerprints are stored sealed and unsealed here. Nothing here is a source of truth: a filter may let a lead through to the keyed-hash
 * lookup that is not listed, never the other way round.
 */
@Injectable()
export class SuppressionFilters {
  private readonly cached = new Map<number, CachedFilter>();
  private readonly loading = new Map<number, Promise<CachedFilter>>();
  private readonly logger = new Logger(SuppressionFilters.name);
  private bytes = 0;
  private readonly sealKey: Buffer;

  constructor(
    private readonly repository: SuppressionRepository,
    config: AppConfig,
  ) {
    this.sealKey = deriveFingerprintKeys(config.secretsEncryptionKey).sealKey;
  }

  /**
   * The account's prefilter as of now, or null when its list is empty. A filter this process
   * does not hold yet is read in the background (a million entries take about a second), and
   * until it is in, every lead is looked up; one behind the list's version is brought up to it
   * first (the entries added since: one indexed query).
   * @throws database errors (the caller's upload fails as on any other query).
   */
  async of(accountId: number): Promise<SuppressionPrefilter | null> {
    const state = await this.repository.state(accountId);
    if (state.empty) {
      this.forget(accountId);
      return null;
    }
    let cached = this.cached.get(accountId);
    if (cached === undefined) {
      if (!this.loading.has(accountId)) {
        this.refresh(accountId, state.version).catch((error: unknown) =>
          this.logger.warn(`could not read a suppression list's fingerprints: ${String(error)}`),
        );
      }
      return LOOK_UP_EVERY_LEAD;
    }
    if (BigInt(cached.version) < BigInt(state.version)) {
      cached = await this.refresh(accountId, state.version);
    }
    // Most recently used last: the first is the one to evict.
    if (this.cached.delete(accountId)) this.cached.set(accountId, cached);
    return cached.filter ?? LOOK_UP_EVERY_LEAD;
  }

  /** Settles when the account's filter being read, if any, is in (or could not be read). */
  async settled(accountId: number): Promise<void> {
    await this.loading.get(accountId)?.catch(() => undefined);
  }

  private async refresh(accountId: number, version: string): Promise<CachedFilter> {
    for (;;) {
      const pending = this.loading.get(accountId);
      if (pending === undefined) break;
      await pending.catch(() => undefined);
    }
    const cached = this.cached.get(accountId);
    if (cached !== undefined && BigInt(cached.version) >= BigInt(version)) return cached;
    const load = this.load(accountId, version, cached).finally(() =>
      this.loading.delete(accountId),
    );
    this.loading.set(accountId, load);
    return load;
  }

  private async load(
    accountId: number,
    version: string,
    cached: CachedFilter | undefined,
  ): Promise<CachedFilter> {
    if (cached?.filter) {
      const added = await this.repository.fingerprints(accountId, cached.version);
      if (added.unfingerprinted === 0 && cached.entries + added.entries <= cached.filter.capacity) {
        cached.filter.addAll(unsealFingerprints(this.sealKey, added.records));
        cached.entries += added.entries;
        cached.version = version;
        return cached;
      }
    }
    const all = await this.repository.fingerprints(accountId, '-1');
    let filter: FingerprintFilter | null = null;
    if (all.unfingerprinted === 0) {
      filter = FingerprintFilter.sizedFor(all.entries);
      filter.addAll(unsealFingerprints(this.sealKey, all.records));
    }
    this.forget(accountId);
    const fresh = { version, entries: all.entries, filter };
    this.keep(accountId, fresh);
    return fresh;
  }

  private keep(accountId: number, entry: CachedFilter): void {
    const size = entry.filter?.bytes ?? 0;
    if (size > FILTER_CACHE_BYTES) return;
    for (const [oldest] of this.cached) {
      if (this.bytes + size <= FILTER_CACHE_BYTES) break;
      this.forget(oldest);
    }
    this.cached.set(accountId, entry);
    this.bytes += size;
  }

  private forget(accountId: number): void {
    const entry = this.cached.get(accountId);
    if (entry === undefined) return;
    this.cached.delete(accountId);
    this.bytes -= entry.filter?.bytes ?? 0;
  }
}
