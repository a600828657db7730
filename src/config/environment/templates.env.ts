import { ValidateBy } from 'class-validator';
import { canonicalTimeZone } from '../../contracts/time-zone';
import { Default } from '../default.decorator';
import { ShutdownEnvironment } from './shutdown.env';

/** How the templates write for their readers (`TEMPLATE_*`). */
export class TemplatesEnvironment extends ShutdownEnvironment {
  /** IANA time zone of the dates in emails whose event names none, or one not known here. */
  @Default('UTC')
  @ValidateBy(
    {
      name: 'isTimeZone',
      validator: { validate: (value) => typeof value === 'string' && !!canonicalTimeZone(value) },
    },
    { message: 'TEMPLATE_TIME_ZONE must be an IANA time zone name, such as Europe/Berlin or UTC' },
  )
  TEMPLATE_TIME_ZONE!: string;
}
