import {
  DLT_HEADERS,
  decodeInt32,
  decodeInt64,
  encodeInt32,
  encodeInt64,
  exceptionFqcn,
  isDeadLetterHeader,
  readDeadLetterHeaders,
} from './dead-letter-headers';

describe('dead-letter headers', () => {
  it('encodes numbers as Java ByteBuffer.putInt / putLong do: big-endian, two’s complement', () => {
    expect(encodeInt32(0)).toEqual(Buffer.from([0, 0, 0, 0]));
    expect(encodeInt32(5)).toEqual(Buffer.from([0, 0, 0, 5]));
    expect(encodeInt32(-1)).toEqual(Buffer.from([0xff, 0xff, 0xff, 0xff]));
    expect(encodeInt64('9007199254740993')).toEqual(Buffer.from('0020000000000001', 'hex'));
    expect(encodeInt64(-1)).toEqual(Buffer.alloc(8, 0xff));
    expect(decodeInt32(encodeInt32(2_147_483_647))).toBe(2_147_483_647);
    expect(decodeInt64(encodeInt64('9223372036854775807'))).toBe('9223372036854775807');
  });

  it('refuses a number header of the wrong width, naming the header', () => {
    expect(() => decodeInt32(Buffer.from('12'))).toThrow('expected 4 bytes, got 2');
    const headers = {
      [DLT_HEADERS.originalTopic]: 't',
      [DLT_HEADERS.originalPartition]: Buffer.from('3'),
      [DLT_HEADERS.originalOffset]: encodeInt64(1),
      [DLT_HEADERS.originalTimestamp]: encodeInt64(1),
    };
    expect(() => readDeadLetterHeaders(headers)).toThrow(
      'kafka_dlt-original-partition: expected 4 bytes, got 1',
    );
    const { [DLT_HEADERS.originalOffset]: _offset, ...withoutOffset } = headers;
    void _offset;
    expect(() =>
      readDeadLetterHeaders({ ...withoutOffset, [DLT_HEADERS.originalPartition]: encodeInt32(0) }),
    ).toThrow('dead letter without kafka_dlt-original-offset');
  });

  it('reads the text dlq-* headers of dead letters written before the Spring names', () => {
    expect(
      readDeadLetterHeaders({
        'dlq-original-topic': Buffer.from('order.placed.v1'),
        'dlq-original-partition': Buffer.from('4'),
        'dlq-original-offset': Buffer.from('17'),
        'dlq-original-timestamp': Buffer.from('1790000000000'),
        'dlq-error-class': Buffer.from('InvalidEventError'),
        'dlq-error-code': Buffer.from('INVALID'),
        'dlq-error-message': Buffer.from('data.total: must be a decimal'),
      }),
    ).toEqual({
      originalTopic: 'order.placed.v1',
      originalPartition: 4,
      originalOffset: '17',
      originalTimestamp: '1790000000000',
      exceptionFqcn: 'mailbridge.InvalidEventError.INVALID',
      exceptionMessage: 'data.total: must be a decimal',
      errorCode: 'INVALID',
      valueReplaced: false,
    });
  });

  it('says undefined for a record that is no dead letter', () => {
    expect(readDeadLetterHeaders({ 'content-type': 'application/json' })).toBeUndefined();
    expect(readDeadLetterHeaders(undefined)).toBeUndefined();
  });

  it('tells the headers a dead letter added from the original record’s own', () => {
    for (const name of Object.values(DLT_HEADERS)) expect(isDeadLetterHeader(name)).toBe(true);
    expect(isDeadLetterHeader('dlq-error-code')).toBe(true);
    expect(isDeadLetterHeader('traceparent')).toBe(false);
    expect(isDeadLetterHeader('ce_id')).toBe(false);
    expect(isDeadLetterHeader('kafka_correlationId')).toBe(false);
  });

  it('names each kind of failure with a stable class-like name', () => {
    expect(exceptionFqcn('InvalidEventError', 'UNKNOWN_TYPE')).toBe(
      'mailbridge.InvalidEventError.UNKNOWN_TYPE',
    );
    expect(exceptionFqcn('InvalidEventError')).toBe('mailbridge.InvalidEventError');
  });
});
