import {
  Default,
  LocalDefault,
  ReadableFromFile,
  defaultsFor,
  variablesReadableFromFile,
} from './default.decorator';

class Schema {
  @Default('6')
  PARTITIONS!: string;

  @Default('false', { local: 'true' })
  CREATE_TOPICS!: string;

  @LocalDefault('127.0.0.1:9092')
  BROKERS!: string;

  @ReadableFromFile()
  PASSWORD?: string;
}

class Other {
  @Default('other')
  NAME!: string;
}

/** An area of a schema built by extending another, as `EnvironmentVariables` is. */
class Extended extends Schema {
  @LocalDefault('kafka:9092')
  override BROKERS!: string;

  @Default('10')
  @ReadableFromFile()
  TIMEOUT!: string;
}

describe(Default.name, () => {
  it('gives production its defaults, and local mode its own where it has one', () => {
    expect(defaultsFor(Schema, 'production')).toEqual({ PARTITIONS: '6', CREATE_TOPICS: 'false' });
    expect(defaultsFor(Schema, 'local')).toEqual({
      PARTITIONS: '6',
      CREATE_TOPICS: 'true',
      BROKERS: '127.0.0.1:9092',
    });
  });

  it('keeps each class to its own variables', () => {
    expect(defaultsFor(Other, 'production')).toEqual({ NAME: 'other' });
    expect(variablesReadableFromFile(Schema)).toEqual(['PASSWORD']);
    expect(variablesReadableFromFile(Other)).toEqual([]);
  });

  it('gives a subclass its ancestors’ variables, in order, its own declarations replacing theirs', () => {
    expect(defaultsFor(Extended, 'production')).toEqual({
      PARTITIONS: '6',
      CREATE_TOPICS: 'false',
      TIMEOUT: '10',
    });
    expect(Object.keys(defaultsFor(Extended, 'local'))).toEqual([
      'PARTITIONS',
      'CREATE_TOPICS',
      'BROKERS',
      'TIMEOUT',
    ]);
    expect(defaultsFor(Extended, 'local').BROKERS).toBe('kafka:9092');
    expect(variablesReadableFromFile(Extended)).toEqual(['PASSWORD', 'TIMEOUT']);
    expect(defaultsFor(Schema, 'local').BROKERS).toBe('127.0.0.1:9092');
  });
});
