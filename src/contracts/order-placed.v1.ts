import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsEmail,
  IsISO4217CurrencyCode,
  IsISO8601,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { EventEnvelope } from './event-envelope';

export const ORDER_PLACED_V1 = 'order.placed.v1';

/** Money as a decimal string, so no amount is ever rounded by a float. */
const AMOUNT = /^\d{1,12}(\.\d{1,4})?$/;

export class OrderAddress {
  @IsOptional() @IsString() @MaxLength(200) address1?: string;
  @IsOptional() @IsString() @MaxLength(200) address2?: string;
  @IsOptional() @IsString() @MaxLength(100) city?: string;
  @IsOptional() @IsString() @MaxLength(100) province?: string;
  @IsOptional() @IsString() @MaxLength(20) postalCode?: string;
  @IsOptional() @IsString() @MaxLength(100) country?: string;
}

export class OrderCustomer {
  @IsEmail() @MaxLength(320) email!: string;
  @IsString() @IsNotEmpty() @MaxLength(100) firstName!: string;
  @IsOptional() @IsString() @MaxLength(100) lastName?: string;
  @IsOptional() @IsString() @MaxLength(50) phone?: string;
  @IsOptional() @IsString() @MaxLength(200) company?: string;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => OrderAddress)
  address?: OrderAddress;
}

export class OrderItem {
  @IsString() @IsNotEmpty() @MaxLength(100) sku!: string;
  @IsString() @IsNotEmpty() @MaxLength(200) name!: string;
  @IsInt() @Min(1) quantity!: number;
  @Matches(AMOUNT) unitPrice!: string;
}

export class OrderPlacedV1Data {
  @IsString() @IsNotEmpty() @MaxLength(100) orderId!: string;

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
