import { IsNotEmpty, MinLength } from 'class-validator';
import { LocalDefault, ReadableFromFile } from '../default.decorator';
import { TemplatesEnvironment } from './templates.env';

/** A key only for local runs: loopback Redis, memory store, nothing a real address reaches. */
export const LOCAL_SUPPRESSION_HASH_KEY = 'local-suppression-hash-key-not-a-secret';

/** Consent (`SUPPRESSION_*`): the suppression list, kept as keyed hashes of addresses. */
export class ConsentEnvironment extends TemplatesEnvironment {
  /**
   * The HMAC-SHA256 key the suppression list hashes addresses with (usually from
   * `SUPPRESSION_HASH_KEY_FILE`), at least 32 characters; local: a fixed key. Every replica must
   * have the same one, and it must never change: under another key no stored entry matches, and
   * every suppressed address could be mailed again.
   */
  @LocalDefault(LOCAL_SUPPRESSION_HASH_KEY)
  @ReadableFromFile()
  @IsNotEmpty({ message: 'SUPPRESSION_HASH_KEY (or SUPPRESSION_HASH_KEY_FILE) is required' })
  @MinLength(32, { message: 'SUPPRESSION_HASH_KEY must be at least 32 characters' })
  SUPPRESSION_HASH_KEY!: string;
}
