import { hash } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { scopeFor, SUPPRESSION_WRITER, type SuppressionWriter } from './suppression-writer';
import { UnsubscribeDrain } from './unsubscribe.drain';
import { UNSUBSCRIBE_OUTBOX, type UnsubscribeOutbox } from './unsubscribe.outbox';
import type { OpenedToken, TokenRefusal, UnsubscribeTokens } from './unsubscribe-token';

export const UNSUBSCRIBE_TOKENS = Symbol('UNSUBSCRIBE_TOKENS');

/** What became of a link: done (now, or by an earlier POST of it), or refused and why. */
export type UnsubscribeAnswer = { done: true; first: boolean } | { done: false; why: TokenRefusal };

/** An id is remembered a day past its link's expiry, when the link no longer opens anyway. */
const REMEMBER_BEYOND_EXPIRY_MS = 86_400_000;

/**
 * One unsubscribe: opens the link's token, stores the suppression, queues the event. Each step
 * is idempotent, so a POST that fails midway and is sent again completes without a second event.
 */
@Injectable()
export class Unsubscriber {
  private readonly logger = new Logger(Unsubscriber.name);

  constructor(
    @Inject(UNSUBSCRIBE_TOKENS) private readonly tokens: UnsubscribeTokens | undefined,
    @Inject(SUPPRESSION_WRITER) private readonly suppression: SuppressionWriter,
    @Inject(UNSUBSCRIBE_OUTBOX) private readonly outbox: UnsubscribeOutbox,
    private readonly drain: UnsubscribeDrain,
  ) {}

  /** Whether a link would be taken, changing nothing: for the confirmation page. */
  check(token: string): UnsubscribeAnswer {
    const opened = this.open(token);
    return opened.ok ? { done: true, first: true } : { done: false, why: opened.why };
  }

  /** Resolves once the suppression and the event are stored; rejects when the store fails. */
  async unsubscribe(token: string): Promise<UnsubscribeAnswer> {
    const opened = this.open(token);
    if (!opened.ok) return { done: false, why: opened.why };
    const { address, category, expiresAt } = opened.claim;
    const scope = scopeFor(category);
    await this.suppression.add(address, scope, 'unsubscribed');
    const first = await this.outbox.record(
      {
        // Of the token, not the address: the same link twice is one unsubscribe, while a
        // later email's link after a resubscription is another.
        unsubscribeId: hash('sha256', token, 'hex').slice(0, 32),
        address,
        category,
        scope,
        unsubscribedAt: new Date(Date.now()).toISOString(),
      },
      expiresAt * 1000 - Date.now() + REMEMBER_BEYOND_EXPIRY_MS,
    );
    this.drain.kick();
    // No address, no token: the scope and whether it was new are all a reader of logs needs.
    this.logger.log(`unsubscribe stored (${scope}${first ? '' : ', repeated'})`);
    return { done: true, first };
  }

  /** Without a key no link was ever sealed here: every token is someone else's. */
  private open(token: string): OpenedToken {
    return this.tokens?.open(token) ?? { ok: false, why: 'forged' };
  }
}
