import { createCipheriv, createDecipheriv, hash, randomBytes } from 'node:crypto';
import type { TemplateCategory } from './suppression-writer';

/** What a one-click link carries: whose address, which mail it stops, until when it works. */
export interface UnsubscribeClaim {
  address: string;
  category: TemplateCategory;
  /** Seconds since the epoch after which the link no longer works. */
  expiresAt: number;
}

/** Why a token was refused; each has its own HTTP answer (`unsubscribe.listener.ts`). */
export type TokenRefusal = 'malformed' | 'forged' | 'expired';

export type OpenedToken = { ok: true; claim: UnsubscribeClaim } | { ok: false; why: TokenRefusal };

/** AES-256-GCM: 32-byte keys, a 12-byte random nonce per token, a 16-byte tag. */
const KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
/**
 * Bound to the purpose and the format's version: a ciphertext made under the same key for
 * anything else (or a later format) does not open as an unsubscribe token.
 */
const ASSOCIATED_DATA = Buffer.from('mailbridge unsubscribe token v1');
/** A key id is 8 base64url characters; the sealed part of a 254-character address fits 600. */
const TOKEN_SHAPE = /^([A-Za-z0-9_-]{8})\.([A-Za-z0-9_-]{40,600})$/;
export const MAX_TOKEN_LENGTH = 8 + 1 + 600;

/** A key and the id that names it in every token it sealed. */
interface NamedKey {
  id: string;
  key: Buffer;
}

/**
 * Seals and opens the tokens of one-click unsubscribe links with Node's AES-256-GCM (OpenSSL):
 * the address is encrypted, so a link read in a log or a proxy does not give it away, and
 * authenticated, so that a changed or made-up token does not open. A token is
 * `<key id>.<base64url(nonce ‖ ciphertext ‖ tag)>`; the key id (a digest of the key, not the
 * key) says which key opens it, so that during a rotation the previous key still opens the links
 * already sent while new ones are sealed with the current key.
 */
export class UnsubscribeTokens {
  private readonly current: NamedKey;
  private readonly byId: Map<string, Buffer>;

  /**
   * `keys`: base64 of 32 random bytes each, the current key first and, during a rotation, the
   * previous one. `now`: the clock, in milliseconds.
   */
  constructor(
    keys: readonly string[],
    private readonly validForSeconds: number,
    private readonly now: () => number = Date.now,
  ) {
    const named = keys.map(namedKey);
    if (named.length === 0) throw new Error('an unsubscribe token key is required');
    this.current = named[0];
    this.byId = new Map(named.map(({ id, key }) => [id, key]));
  }

  seal(address: string, category: TemplateCategory): string {
    const expiresAt = Math.floor(this.now() / 1000) + this.validForSeconds;
    const plain = JSON.stringify({ a: address, c: category, x: expiresAt });
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, nonce, {
      authTagLength: TAG_BYTES,
    });
    cipher.setAAD(ASSOCIATED_DATA);
    const sealed = Buffer.concat([nonce, cipher.update(plain, 'utf8'), cipher.final()]);
    return `${this.current.id}.${Buffer.concat([sealed, cipher.getAuthTag()]).toString('base64url')}`;
  }

  open(token: string): OpenedToken {
    const shape = token.length <= MAX_TOKEN_LENGTH ? TOKEN_SHAPE.exec(token) : null;
    if (!shape) return { ok: false, why: 'malformed' };
    const key = this.byId.get(shape[1]);
    // A key id no key here has: made up, or sealed under a key retired since.
    if (!key) return { ok: false, why: 'forged' };
    const claim = decrypt(key, Buffer.from(shape[2], 'base64url'));
    if (!claim) return { ok: false, why: 'forged' };
    if (claim.expiresAt * 1000 <= this.now()) return { ok: false, why: 'expired' };
    return { ok: true, claim };
  }
}

function decrypt(key: Buffer, sealed: Buffer): UnsubscribeClaim | undefined {
  if (sealed.length < NONCE_BYTES + TAG_BYTES + 1) return undefined;
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, NONCE_BYTES), {
    authTagLength: TAG_BYTES,
  });
  decipher.setAAD(ASSOCIATED_DATA);
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
  let plain: string;
  try {
    const body = sealed.subarray(NONCE_BYTES, sealed.length - TAG_BYTES);
    plain = Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
  } catch {
    return undefined; // the tag does not match: changed, or sealed under another key
  }
  return claimOf(plain);
}

/** Only our own `seal` wrote what passed the tag; checked all the same, as any input is. */
function claimOf(plain: string): UnsubscribeClaim | undefined {
  let value: { a?: unknown; c?: unknown; x?: unknown };
  try {
    value = JSON.parse(plain) as typeof value;
  } catch {
    return undefined;
  }
  const { a, c, x } = value ?? {};
  if (typeof a !== 'string' || typeof x !== 'number') return undefined;
  if (c !== 'marketing' && c !== 'transactional') return undefined;
  return { address: a, category: c, expiresAt: x };
}

/** A key from its base64 text; its id is a digest of it, so that no one has to name keys. */
export function namedKey(text: string): NamedKey {
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== KEY_BYTES) {
    throw new Error(`an unsubscribe token key must be base64 of ${KEY_BYTES} bytes`);
  }
  const id = hash('sha256', Buffer.concat([ASSOCIATED_DATA, key]), 'base64url').slice(0, 8);
  return { id, key };
}
