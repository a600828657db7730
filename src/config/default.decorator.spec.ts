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
});
