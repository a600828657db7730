import { Injectable } from '@nestjs/common';

/** Whether the consumer has joined its group: what `/health/ready` reports. */
@Injectable()
export class ConsumerStatus {
  private joined = false;
  private problem?: string;

  markJoined(): void {
    this.joined = true;
    this.problem = undefined;
  }

  markDown(problem: string): void {
    this.joined = false;
    this.problem = problem;
  }

  get ready(): boolean {
    return this.joined;
  }

  get reason(): string | undefined {
    return this.joined ? undefined : (this.problem ?? 'consumer has not joined its group yet');
  }
}
