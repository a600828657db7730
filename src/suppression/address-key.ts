import { createHmac } from 'node:crypto';
import { normalisedAddress } from '../email-api/vendor-request.validator';

/**
 * The keyed hash the suppression list keeps instead of an address: HMAC-SHA256 under
 * `SUPPRESSION_HASH_KEY`, hex, of the address as batches compare it (lower-cased, Unicode NFC),
 * so `Ada@Example.com` and `ada@example.com` are one entry. Keyed, not a plain hash: anyone who
 * reads Redis could hash every address they know and find it in a plain SHA-256 list; without the
 * key they cannot. Node's own `crypto` (OpenSSL) computes it: no hand-written hashing.
 */
export class AddressKeyer {
  constructor(private readonly key: string) {}

  of(address: string): string {
    return createHmac('sha256', this.key).update(normalisedAddress(address), 'utf8').digest('hex');
  }
}
