interface Waiting<In, Out> {
  input: In;
  resolve(output: Out): void;
  reject(error: unknown): void;
}

/**
 * Gathers the calls made within one turn of the event loop and runs them as one: the records of
 * a fetched batch claim their actions in one Redis command rather than one each. Each caller gets
 * its own answer; when the combined run fails, every caller of it gets the error.
 */
export class Coalescer<In, Out> {
  private waiting: Array<Waiting<In, Out>> = [];
  private scheduled = false;

  /** `run` answers each input, in order; at most `maxBatch` inputs go to one run. */
  constructor(
    private readonly run: (inputs: In[]) => Promise<Out[]>,
    private readonly maxBatch: number,
  ) {}

  call(input: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      this.waiting.push({ input, resolve, reject });
      if (this.waiting.length >= this.maxBatch) this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.flush();
        });
      }
    });
  }

  private flush(): void {
    const batch = this.waiting;
    if (batch.length === 0) return;
    this.waiting = [];
    this.run(batch.map((w) => w.input)).then(
      (outputs) => batch.forEach((w, i) => w.resolve(outputs[i])),
      (error: unknown) => batch.forEach((w) => w.reject(error)),
    );
  }
}
