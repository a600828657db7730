import type { Result } from 'ioredis';
import {
  SUPPRESSION_SCOPES,
  type SuppressionReason,
  type SuppressionScope,
} from '../contracts/email-suppression-requested.v1';
import { luaScript } from '../redis/lua';
import type { RedisClient } from '../redis/redis.connection';
import type { SuppressionStore } from './suppression.store';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    mailbridgeSuppressionAdd(...args: string[]): Result<number, Context>;
    mailbridgeSuppressionRemove(...args: string[]): Result<number, Context>;
  }
}

/**
 * The suppression list every replica shares: one Redis hash, `<prefix>suppression`, whose fields
 * are `<scope>:<keyed hash>` (`all:…`, `marketing:…`) and whose values are the reasons. One hash,
 * not a key per address, so that checking every recipient of a vendor request is one HMGET
 * whatever their number, on a sharded Redis too (one key, one slot). Entries never expire: an
 * unsubscribe holds until it is removed.
 */
export class RedisSuppressionStore implements SuppressionStore {
  private readonly key: string;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
    /** Resolves once Redis replicas hold the writes so far: a lost entry could mean an email. */
    private readonly replicated: () => Promise<void> = () => Promise.resolve(),
  ) {
    this.key = `${prefix}suppression`;
    redis.defineCommand('mailbridgeSuppressionAdd', {
      numberOfKeys: 1,
      lua: luaScript(__dirname, 'suppression-add'),
    });
    redis.defineCommand('mailbridgeSuppressionRemove', {
      numberOfKeys: 1,
      lua: luaScript(__dirname, 'suppression-remove'),
    });
  }

  async add(hash: string, scope: SuppressionScope, reason: SuppressionReason): Promise<void> {
    await this.redis.mailbridgeSuppressionAdd(this.key, hash, scope, reason);
    await this.replicated();
  }

  async remove(hash: string, scope: SuppressionScope): Promise<void> {
    await this.redis.mailbridgeSuppressionRemove(this.key, hash, scope);
    await this.replicated();
  }

  async scopesOf(hashes: readonly string[]): Promise<Map<string, SuppressionScope[]>> {
    const found = new Map<string, SuppressionScope[]>();
    if (hashes.length === 0) return found;
    const fields = hashes.flatMap((hash) => SUPPRESSION_SCOPES.map((scope) => `${scope}:${hash}`));
    const reasons = await this.redis.hmget(this.key, ...fields);
    reasons.forEach((reason, i) => {
      if (reason === null) return;
      const hash = hashes[Math.floor(i / SUPPRESSION_SCOPES.length)];
      const scope = SUPPRESSION_SCOPES[i % SUPPRESSION_SCOPES.length];
      found.set(hash, [...(found.get(hash) ?? []), scope]);
    });
    return found;
  }
}
