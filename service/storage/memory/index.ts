/**
 * In-process storage: the browser tests run the service inside Chromium with it, and a fleet
 * "of one process" shares one bundle. Each role is a file; what roles share is one MemoryState.
 */
import type { Stores } from '../types.js';
import { MemoryAccountStore } from './accounts.js';
import { MemoryActivityStore } from './activity.js';
import { MemoryConversationStore } from './conversations.js';
import { MemoryDirectoryStore } from './directory.js';
import { MemoryFileStore } from './files.js';
import { MemoryDocsStore } from './docs.js';
import { MemoryFleetStore } from './fleet.js';
import { MemoryGateStore } from './gate.js';
import { MemoryAnswerLedger } from './ledger.js';
import { MemoryNotificationStore } from './notifications.js';
import { MemoryRateStore } from './rates.js';
import { MemoryState } from './state.js';
import { MemoryWidgetStore } from './widgets.js';

/** Every role of the service in this process's memory; `maxRateWindows` bounds the rate table. */
export function memoryStores(options: { maxRateWindows?: number } = {}): Stores {
  const state = new MemoryState();
  const directory = new MemoryDirectoryStore(state);
  return {
    conversations: new MemoryConversationStore(state),
    ledger: new MemoryAnswerLedger(state),
    fleet: new MemoryFleetStore(state),
    rates: new MemoryRateStore(options.maxRateWindows),
    activity: new MemoryActivityStore(state),
    directory,
    accounts: new MemoryAccountStore(),
    gate: new MemoryGateStore(),
    files: new MemoryFileStore(state, (project, integration) =>
      directory.hasIntegration(project, integration),
    ),
    docs: new MemoryDocsStore(state),
    notifications: new MemoryNotificationStore((project) => directory.hasProject(project), state),
    widgets: new MemoryWidgetStore(),
    close: async () => {},
  };
}
