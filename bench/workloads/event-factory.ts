import { randomUUID } from 'node:crypto';
import type { ORDER_PLACED_V1, OrderPlacedV1 } from '../../src/contracts/order-placed.v1';
import type { USER_SIGNED_UP_V1, UserSignedUpV1 } from '../../src/contracts/user-signed-up.v1';

// Type-only import: the contract classes carry validation decorators the harness does not need.
export const USER_SIGNED_UP: typeof USER_SIGNED_UP_V1 = 'user.signed_up.v1';
export const ORDER_PLACED: typeof ORDER_PLACED_V1 = 'order.placed.v1';

export interface BenchEvent {
  key: string;
  value: string;
}

const FIRST = ['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara', 'Donald', 'Frances', 'Ken', 'Radia'];
const LAST = ['Lovelace', 'Hopper', 'Turing', 'Dijkstra', 'Liskov', 'Knuth', 'Allen', 'Perlman'];
const PLANS = ['free', 'trial', 'pro', 'enterprise'];
/**
 * The readers' locales of the user and order workloads, one after another: their copies are en
 * (en-GB and en-US), fr, de and es, so a sign-up workload is 40 % en and four batch keys.
 */
const LOCALES = ['en-GB', 'en-US', 'fr-FR', 'de-DE', 'es-AR'];
const SOURCES = ['web', 'ios', 'android', 'partner'];
/** The readers' zones, which one event in five carries (a lenient field). */
const ZONES = [
  'Europe/London',
  'America/New_York',
  'Europe/Paris',
  'Europe/Berlin',
  'America/Argentina/Buenos_Aires',
];
const CITIES: Array<[string, string, string]> = [
  ['Buenos Aires', 'Buenos Aires', 'Argentina'],
  ['Lyon', 'Auvergne-Rhone-Alpes', 'France'],
  ['Leeds', 'West Yorkshire', 'United Kingdom'],
  ['Austin', 'Texas', 'United States'],
];
const PRODUCTS: Array<[string, string, number]> = [
  ['SKU-TEA-001', 'Darjeeling first flush, 100 g', 1290],
  ['SKU-MUG-014', 'Stoneware mug, slate', 1800],
  ['SKU-KTL-002', 'Gooseneck kettle 1 l', 5900],
  ['SKU-FLT-100', 'Paper filters, 100 pcs', 450],
];

/** The address of sign-up `n`. */
export function signUpEmail(n: number): string {
  const first = FIRST[n % FIRST.length];
  const last = LAST[(n >> 3) % LAST.length];
  return `${first.toLowerCase()}.${last.toLowerCase()}.${n}@example.com`;
}

/**
 * A `user.signed_up.v1` as the accounts service would publish it; `n` makes it unique. The
 * reader's locale cycles through {@link LOCALES} unless `locale` is given.
 */
export function userSignedUp(
  n: number,
  at = new Date(),
  locale = LOCALES[n % LOCALES.length],
): BenchEvent & { id: string } {
  const first = FIRST[n % FIRST.length];
  const last = LAST[(n >> 3) % LAST.length];
  const userId = `u-${n.toString(36).padStart(7, '0')}`;
  const event: UserSignedUpV1 = {
    id: randomUUID(),
    type: USER_SIGNED_UP,
    time: at.toISOString(),
    source: 'https://accounts.example.com',
    data: {
      userId,
      email: signUpEmail(n),
      name: `${first} ${last}`,
      plan: PLANS[n % PLANS.length],
      locale,
      ...(n % 5 === 0 ? { timeZone: ZONES[n % ZONES.length] } : {}),
      signupSource: SOURCES[n % SOURCES.length],
    },
  };
  return { id: event.id, key: userId, value: JSON.stringify(event) };
}

/**
 * The sign-up workloads of the locales section, which differ in their readers' locales only:
 * `single-locale`, every reader in the default copy's language; `mixed-locale`, 7 readers in 10
 * in it and the other 3 spread evenly over four languages that have copies of their own. The
 * tags all have a region and the same length, so that both workloads' events are alike in size
 * and each tag resolves to its language's copy by the same one step of fallback.
 */
export const LOCALE_MIXES = ['single-locale', 'mixed-locale'] as const;
export type LocaleMix = (typeof LOCALE_MIXES)[number];

/** The default copy's language (`DEFAULT_LOCALE`, en), as a reader's tag. */
export const DEFAULT_READER_LOCALE = 'en-GB';
/** Welcome has copies for de, fr, es and ja (src/templates/welcome/). */
export const OTHER_READER_LOCALES = ['de-DE', 'fr-FR', 'es-ES', 'ja-JP'] as const;

/**
 * The locale of the `n`th sign-up of `mix`. Mixed: of every 10 events, the first 7 are the
 * default's and the last 3 take the other locales in turn, so every 40 events hold each of them
 * 3 times: 70 % and 7.5 % each, exactly, over any multiple of 40 and within one event otherwise.
 */
export function readerLocale(mix: LocaleMix, n: number): string {
  const slot = n % 10;
  if (mix === 'single-locale' || slot < 7) return DEFAULT_READER_LOCALE;
  const others = Math.floor(n / 10) * 3 + (slot - 7); // how many non-default events came before
  return OTHER_READER_LOCALES[others % OTHER_READER_LOCALES.length];
}

/** Each locale's share of `mix` (0 to 1), most frequent first: over one whole turn of 40. */
export function localeShares(mix: LocaleMix): Array<{ locale: string; share: number }> {
  const TURN = 40;
  const counts = new Map<string, number>();
  for (let n = 0; n < TURN; n++) {
    const locale = readerLocale(mix, n);
    counts.set(locale, (counts.get(locale) ?? 0) + 1);
  }
  return [...counts]
    .map(([locale, count]) => ({ locale, share: count / TURN }))
    .sort((a, b) => b.share - a.share);
}

/** The `n`th sign-up of `mix`: as {@link userSignedUp}'s, with the mix's locale. */
export function localeSignUp(
  mix: LocaleMix,
): (n: number, at?: Date) => BenchEvent & { id: string } {
  return (n, at) => userSignedUp(n, at, readerLocale(mix, n));
}

/** An `order.placed.v1` with one to four lines; `n` makes it unique. */
export function orderPlaced(n: number, at = new Date()): BenchEvent & { id: string } {
  const first = FIRST[(n * 7) % FIRST.length];
  const last = LAST[(n * 5) % LAST.length];
  const [city, province, country] = CITIES[n % CITIES.length];
  const items = Array.from({ length: 1 + (n % 4) }, (_, i) => {
    const [sku, name, cents] = PRODUCTS[(n + i) % PRODUCTS.length];
    return { sku, name, quantity: 1 + ((n + i) % 3), unitPrice: (cents / 100).toFixed(2) };
  });
  const total = items.reduce((sum, item) => sum + Number(item.unitPrice) * item.quantity, 0);
  const orderId = `ord-${n.toString().padStart(8, '0')}`;
  const event: OrderPlacedV1 = {
    id: randomUUID(),
    type: ORDER_PLACED,
    time: at.toISOString(),
    source: 'https://shop.example.com',
    data: {
      orderId,
      customer: {
        email: `${first.toLowerCase()}.${last.toLowerCase()}.${n}@example.com`,
        firstName: first,
        lastName: last,
        phone: `(555) ${String(100 + (n % 900))}-${String(n % 10000).padStart(4, '0')}`,
        address: {
          address1: `${1 + (n % 400)} Harbour Street`,
          city,
          province,
          postalCode: String(10000 + (n % 89999)),
          country,
        },
        ...(n % 5 === 0
          ? { locale: LOCALES[n % LOCALES.length], timeZone: ZONES[n % ZONES.length] }
          : {}),
      },
      total: total.toFixed(2),
      currency: 'EUR',
      items,
      placedAt: at.toISOString(),
    },
  };
  return { id: event.id, key: orderId, value: JSON.stringify(event) };
}
