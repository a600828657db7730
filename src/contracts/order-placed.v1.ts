import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsISO4217CurrencyCode,
  IsISO8601,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { EventEnvelope } from './event-envelope';
import { IsEmailAddress } from './is-email-address';
import { IsPlainText } from './is-plain-text';
import { ReaderLocale, ReaderTimeZone } from './reader-preferences';

export const ORDER_PLACED_V1 = 'order.placed.v1';

/** Money as a decimal string, so no amount is ever rounded by a float. */
const AMOUNT = /^\d{1,12}(\.\d{1,4})?$/;
/** More of one item than any shop sells in one order: a typo or an attack, not a purchase. */
const MAX_QUANTITY = 1_000_000;

export class OrderAddress {
  @IsOptional() @IsString() @MaxLength(200) @IsPlainText() address1?: string;
  @IsOptional() @IsString() @MaxLength(200) @IsPlainText() address2?: string;
  @IsOptional() @IsString() @MaxLength(100) @IsPlainText() city?: string;
  @IsOptional() @IsString() @MaxLength(100) @IsPlainText() province?: string;
  @IsOptional() @IsString() @MaxLength(20) @IsPlainText() postalCode?: string;
  @IsOptional() @IsString() @MaxLength(100) @IsPlainText() country?: string;
}

export class OrderCustomer {
  @IsEmailAddress() email!: string;
  @IsString() @IsNotEmpty() @MaxLength(100) @IsPlainText() firstName!: string;
  @IsOptional() @IsString() @MaxLength(100) @IsPlainText() lastName?: string;
  @IsOptional() @IsString() @MaxLength(50) @IsPlainText() phone?: string;
  @IsOptional() @IsString() @MaxLength(200) @IsPlainText() company?: string;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => OrderAddress)
  address?: OrderAddress;

  /**
   * The customer's language as a BCP 47 tag (`de-DE`). Lenient: a value that does not fit is
   * ignored; a well-formed tag nobody knows falls back to the default copy in the templates.
   */
  @ReaderLocale() locale?: string;

  /** The customer's IANA time zone (`Europe/Berlin`). Lenient, as `locale`. */
  @ReaderTimeZone()
  timeZone?: string;
}

export class OrderItem {
  @IsString() @IsNotEmpty() @MaxLength(100) @IsPlainText() sku!: string;
  @IsString() @IsNotEmpty() @MaxLength(200) @IsPlainText() name!: string;
  @IsInt() @Min(1) @Max(MAX_QUANTITY) quantity!: number;
  @Matches(AMOUNT) unitPrice!: string;
}

export class OrderPlacedV1Data {
  @IsString() @IsNotEmpty() @MaxLength(100) @IsPlainText() orderId!: string;

  @IsObject()
  @ValidateNested()
  @Type(() => OrderCustomer)
  customer!: OrderCustomer;

  @Matches(AMOUNT, { message: 'total must be a decimal string such as "35.00"' })
  total!: string;

  @IsISO4217CurrencyCode()
  currency!: string;

  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(500)
  @ValidateNested({ each: true })
  @Type(() => OrderItem)
  items!: OrderItem[];

  @IsISO8601({ strict: true })
  @MaxLength(40)
  placedAt!: string;
}

/**
 * `order.placed.v1`: published by the shop when an order is placed.
 * @example { "id": "evt-9", "type": "order.placed.v1", "time": "2026-11-21T10:00:00Z", "data": {
 *   "orderId": "Order#50993961", "customer": { "email": "ada@example.com", "firstName": "Ada" },
 *   "total": "35.00", "currency": "EUR", "placedAt": "2026-11-21T10:00:00Z",
 *   "items": [{ "sku": "TEA-1", "name": "Green tea", "quantity": 2, "unitPrice": "17.50" }] } }
 */
export class OrderPlacedV1 extends EventEnvelope {
  declare type: typeof ORDER_PLACED_V1;

  @IsObject()
  @ValidateNested()
  @Type(() => OrderPlacedV1Data)
  data!: OrderPlacedV1Data;
}
