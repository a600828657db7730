/** A topic mailbridge reads or writes, with the variable that names it. */
export interface ConfiguredTopic {
  variable: string;
  topic: string;
}

/**
 * Start-up found topics missing while `KAFKA_CREATE_TOPICS=false`. Not retriable: trying again
 * in this process does not help until someone creates them (or lets mailbridge do it).
 */
export class MissingTopicsError extends Error {
  override readonly name = 'MissingTopicsError';
  readonly retriable = false;

  constructor(readonly missing: ConfiguredTopic[]) {
    const list = missing.map(({ variable, topic }) => `${variable}=${topic}`).join(', ');
    super(
      `${missing.length === 1 ? 'a topic does' : 'topics do'} not exist on the broker: ${list}; ` +
        'create them, or set KAFKA_CREATE_TOPICS=true to have mailbridge create them',
    );
  }
}
