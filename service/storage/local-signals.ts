/**
 * Fleet signals for a store one process owns (memory, the embedded PGlite): the fleet is this
 * process, so a message goes to this process's subscribers, in publishing order, a microtask
 * later (as NOTIFY delivers after the publisher's statement, never inside it).
 */
export class LocalSignals {
  private readonly handlers = new Set<(message: string) => void>();

  async subscribe(onMessage: (message: string) => void) {
    this.handlers.add(onMessage);
    return async () => {
      this.handlers.delete(onMessage);
    };
  }

  async publish(messages: string[]) {
    for (const message of messages) {
      queueMicrotask(() => {
        for (const handler of this.handlers) handler(message);
      });
    }
  }
}
