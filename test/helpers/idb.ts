import { INTEGRATION_ID, PROJECT_ID } from '../msw/reference.js';
import { createDeviceMemoryStore, type StoredMemory } from '../../src/chat/device-memory-store.js';

/**
 * What the widget's device memory stores for the test project, read the way the widget reads it (statuses
 * as written); undefined when nothing of an owner is stored (the panel's state alone stays).
 */
export async function storedMemory(
  scope = `${PROJECT_ID}:${INTEGRATION_ID}`,
): Promise<StoredMemory | undefined> {
  const state = await createDeviceMemoryStore(scope).load(true);
  const empty =
    !state ||
    (!state.messages.length &&
      !state.threads.length &&
      !state.outbox.length &&
      !Object.keys(state.drafts).length &&
      state.activeThreadId === null);
  return empty ? undefined : state;
}

/** Every value in every IndexedDB database of this origin, serialized. */
export async function dumpAllIndexedDb(): Promise<string[]> {
  const out: string[] = [];
  for (const info of await indexedDB.databases()) {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const request = indexedDB.open(info.name!);
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
    for (const storeName of Array.from(db.objectStoreNames)) {
      const values = await new Promise<unknown[]>((resolve, reject) => {
        const request = db.transaction(storeName).objectStore(storeName).getAll();
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
      });
      const keys = await new Promise<IDBValidKey[]>((resolve, reject) => {
        const request = db.transaction(storeName).objectStore(storeName).getAllKeys();
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
      });
      out.push(...keys.map(String), ...values.map((v) => JSON.stringify(v)));
    }
    db.close();
  }
  return out;
}

/**
 * Holds every store of this origin's IndexedDB in a read-write transaction, kept alive with
 * one read after another, until `release()`: a widget's read of the device waits behind it.
 */
export async function holdDevice(): Promise<() => void> {
  let held = true;
  for (const info of await indexedDB.databases()) {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const request = indexedDB.open(info.name!);
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
    const names = Array.from(db.objectStoreNames);
    const transaction = db.transaction(names, 'readwrite');
    const store = transaction.objectStore(names[0]);
    const spin = () => {
      if (held) store.count().onsuccess = spin;
    };
    spin();
    transaction.oncomplete = () => db.close();
  }
  return () => (held = false);
}
