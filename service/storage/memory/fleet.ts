import { LocalSignals } from '../local-signals.js';
import type { EndedOrphan, FleetStore } from '../types.js';
import type { MemoryState } from './state.js';

/** The fleet of one process: leases on this process's clock, signals within it. */
export class MemoryFleetStore implements FleetStore {
  private readonly signals = new LocalSignals();

  constructor(private readonly state: MemoryState) {}

  async heartbeat(instanceId: string) {
    this.state.instances.set(instanceId, Date.now());
  }

  async retireInstance(instanceId: string) {
    this.state.instances.delete(instanceId);
  }

  async reapInstances(leaseMs: number, now: number) {
    const { state } = this;
    const seenSince = Date.now() - leaseMs;
    for (const [id, seen] of state.instances) if (seen < seenSince) state.instances.delete(id);
    const ended: EndedOrphan[] = [];
    for (const [answerId, instanceId] of state.hosts) {
      if (state.instances.has(instanceId)) continue;
      state.hosts.delete(answerId);
      state.freeSlot(answerId);
      const message = state.message(answerId);
      if (message?.status === 'streaming') {
        const stopped = state.stopRequested.delete(answerId);
        ended.push(state.endLost(message, stopped ? 'stopped' : 'error', now));
      }
    }
    return ended;
  }

  subscribe(onMessage: (message: string) => void) {
    return this.signals.subscribe(onMessage);
  }

  publish(messages: string[]) {
    return this.signals.publish(messages);
  }
}
