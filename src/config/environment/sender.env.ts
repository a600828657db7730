import { Transform } from 'class-transformer';
import { IsBoolean, IsEmail, IsNotEmpty, IsOptional, IsString } from 'class-validator';
import { Default, LocalDefault } from '../default.decorator';
import { bool } from './values';
import { VendorEnvironment } from './vendor.env';

/** Who the emails come from (`SENDER_*`), whom replies go to, and whether links are tracked. */
export class SenderEnvironment extends VendorEnvironment {
  /** `sender.from.email` of every template campaign. */
  @LocalDefault('hello@mailbridge.local')
  @IsEmail({}, { message: 'SENDER_FROM_EMAIL must be an email address' })
  SENDER_FROM_EMAIL!: string;

  /** `sender.from.name`; also the brand name in the templates. */
  @Default('mailbridge')
  @IsString()
  @IsNotEmpty()
  SENDER_FROM_NAME!: string;

  /** `sender.replyTo.email`; omitted when unset. */
  @IsOptional()
  @IsEmail({}, { message: 'SENDER_REPLY_TO_EMAIL must be an email address' })
  SENDER_REPLY_TO_EMAIL?: string;

  /** `sender.replyTo.name`; `SENDER_FROM_NAME` when unset. */
  @IsOptional()
  @IsString()
  SENDER_REPLY_TO_NAME?: string;

  /** Sets `disableTrackingLinks` on template campaigns. */
  @Default('false')
  @Transform(bool)
  @IsBoolean()
  DISABLE_TRACKING_LINKS!: boolean;
}
