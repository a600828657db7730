import { loadConfig } from '../config/config.loader';
import { configuredTopics } from './kafka.provider';
import { MissingTopicsError } from './missing-topics.error';

describe(MissingTopicsError.name, () => {
  it('names each topic with its variable and says how to fix it', () => {
    const error = new MissingTopicsError([
      { variable: 'TOPIC_ORDER_PLACED', topic: 'order.placed.v1' },
      { variable: 'TOPIC_DEAD_LETTER', topic: 'mailbridge.dead-letter.v1' },
    ]);
    expect(error.message).toBe(
      'topics do not exist on the broker: TOPIC_ORDER_PLACED=order.placed.v1, ' +
        'TOPIC_DEAD_LETTER=mailbridge.dead-letter.v1; create them, or set ' +
        'KAFKA_CREATE_TOPICS=true to have mailbridge create them',
    );
    expect(error.retriable).toBe(false);
  });

  it('knows the variable of every configured topic', () => {
    const config = loadConfig({ MAILBRIDGE_MODE: 'local', TOPIC_DEAD_LETTER: 'dlq.custom' });
    const topics = configuredTopics(config.topics);
    expect(topics).toHaveLength(10);
    expect(topics).toContainEqual({ variable: 'TOPIC_DEAD_LETTER', topic: 'dlq.custom' });
    expect(new Set(topics.map((t) => t.topic))).toEqual(new Set(config.allTopics));
  });
});
