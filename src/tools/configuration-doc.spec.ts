import { readFileSync } from 'node:fs';
import { Type } from 'class-transformer';
import { getMetadataStorage, IsIn, IsInt, IsOptional, IsString, Min } from 'class-validator';
import { Default, defaultsFor, LocalDefault, ReadableFromFile } from '../config/default.decorator';
import { EnvironmentVariables } from '../config/environment.dto';
import { CONFIGURATION_DOC, configurationDoc, schemaSources } from './configuration-doc';

const doc = configurationDoc(EnvironmentVariables, schemaSources());
const rowOf = (name: string) => doc.split('\n').find((line) => line.startsWith(`| \`${name}\``));

describe(configurationDoc.name, () => {
  it('lists every setting of the schema once, with its default', () => {
    const production = defaultsFor(EnvironmentVariables, 'production');
    const local = defaultsFor(EnvironmentVariables, 'local');
    const rules = getMetadataStorage().getTargetValidationMetadatas(
      EnvironmentVariables,
      '',
      true,
      false,
    );
    const names = [...new Set(rules.map((rule) => rule.propertyName))];
    /** `@IsOptional` or `@ValidateIf`: a setting that may stay unset in production. */
    const optional = (name: string) =>
      rules.some((rule) => rule.propertyName === name && rule.type === 'conditionalValidation');
    expect(names.length).toBeGreaterThan(90);
    const shown = (value: string) => (value === '' ? 'empty' : `\`${value}\``);
    /** The Default cell's text, where the schema gives the setting a default. */
    const defaultCell = (name: string) => {
      const localPart =
        name in local && local[name] !== production[name] ? ` (local: ${shown(local[name])})` : '';
      if (name in production) return `| ${shown(production[name])}${localPart} `;
      if (!(name in local)) return '|';
      return optional(name) ? `| unset${localPart} ` : `| _required_${localPart} `;
    };
    const rows = (name: string) =>
      doc.split('\n').filter((line) => line.startsWith(`| \`${name}\``));
    expect(names.filter((name) => rows(name).length !== 1)).toEqual([]);
    expect(names.filter((name) => !rowOf(name)?.includes(defaultCell(name)))).toEqual([]);
  });

  it('gives each area its section, in the order the areas extend each other', () => {
    const headings = doc.split('\n').filter((line) => line.startsWith('## '));
    expect(headings).toEqual([
      '## Service',
      '## Kafka',
      '## Topics',
      '## Vendor',
      '## Sender',
      '## Consumer',
      '## Batching',
      '## Idempotency',
      '## Shutdown',
      '## Templates',
      '## Consent',
      '## Unsubscribe',
    ]);
  });

  it('shows types, allowed values, files and what each setting does', () => {
    expect(rowOf('HTTP_PORT')).toMatch(/\| integer +\| `3000` +\| 0 to 65535 +\| \S/);
    expect(rowOf('LOG_FORMAT')).toContain('`json` (local: `pretty`)');
    expect(rowOf('CONSUMER_START_FROM')).toContain('`latest`, `earliest`');
    expect(rowOf('KAFKA_SSL')).toMatch(/\| boolean +\| `false` +\| `true`, `false`/);
    expect(rowOf('KAFKA_BROKERS')).toContain('must be a comma-separated host:port list');
    expect(rowOf('VENDOR_API_KEY')).toContain('`VENDOR_API_KEY` or `VENDOR_API_KEY_FILE`');
    expect(rowOf('KAFKA_SSL_SERVERNAME')).toMatch(/\| unset +\|/);
    expect(rowOf('MAILBRIDGE_MODE')).toMatch(/\| `production` +\| `local`, `production`/);
  });

  it('is what docs/configuration.md holds (`npm run config:docs` writes it)', () => {
    expect(readFileSync(CONFIGURATION_DOC, 'utf8')).toBe(doc);
  });

  describe('of a schema whose settings are not all described', () => {
    /** A first area. */
    class First {
      /** Described. */
      @Default('1')
      @Type(() => Number)
      @IsInt()
      @Min(1)
      COUNT!: number;

      @LocalDefault('x')
      @ReadableFromFile()
      @IsString()
      SECRET!: string;
    }
    /** A second area. */
    class Second extends First {
      @IsOptional()
      @IsIn(['a', 'b'])
      CHOICE?: string;
    }
    const sources = [
      {
        path: 'first.env.ts',
        text: `/** A first area. */
          class First {
            /** Described. */
            @Default('1') COUNT!: number;
            @LocalDefault('x') SECRET!: string;
          }`,
      },
      {
        path: 'second.env.ts',
        text: `/** A second area. */
          class Second extends First {
            @IsOptional() CHOICE?: string;
          }`,
      },
    ];

    it('fails, naming each setting without a doc comment', () => {
      expect(() => configurationDoc(Second, sources)).toThrow(
        /SECRET \(first\.env\.ts\): no doc comment\n {2}CHOICE \(second\.env\.ts\): no doc comment/,
      );
    });

    it('fails when a setting is in the schema but in no schema file', () => {
      const described = [
        { ...sources[0], text: sources[0].text.replace('@LocalDefault', '/** Secret. */ @X') },
      ];
      expect(() => configurationDoc(First, described)).not.toThrow();
      expect(() => configurationDoc(Second, described)).toThrow(
        /CHOICE: not declared in any schema file/,
      );
    });
  });
});
