import type { FileMeta, FileQuota, FileSettings, FileStore, StoredFile } from '../types.js';
import type { MemoryState } from './state.js';

function meta(file: StoredFile): FileMeta {
  const copy: Partial<StoredFile> = { ...file };
  delete copy.bytes;
  return copy as FileMeta;
}

/** Files and their settings in the shared state: a thread's delete (state.deleteThread) takes its files. */
export class MemoryFileStore implements FileStore {
  constructor(
    private readonly state: MemoryState,
    /** Whether the directory holds the integration (its records are the directory's own). */
    private readonly integrationExists: (projectId: string, integrationId: string) => boolean,
  ) {}

  /** Counted and stored with no await between: uploads at once see each other, so both quotas hold. */
  async putFile(file: StoredFile, quota: FileQuota, publicDaySince?: number) {
    let mine = 0;
    let myBytes = 0;
    let integrationBytes = 0;
    let dayBytes = 0;
    for (const f of this.state.files.values()) {
      if (f.projectId !== file.projectId) continue;
      const ours = f.integrationId === file.integrationId;
      if (ours && publicDaySince !== undefined && f.createdAt >= publicDaySince) dayBytes += f.size;
      if (f.threadId !== null) continue;
      if (f.uploader === file.uploader) {
        mine++;
        myBytes += f.size;
      }
      if (ours) integrationBytes += f.size;
    }
    if (mine >= quota.uploaderFiles || myBytes + file.size > quota.uploaderBytes) return 'uploader_quota';
    if (integrationBytes + file.size > quota.integrationBytes) return 'integration_quota';
    if (publicDaySince !== undefined && dayBytes + file.size > quota.publicDayBytes)
      return 'public_day_quota';
    this.state.files.set(file.id, { ...file, bytes: file.bytes.slice() });
    return 'stored';
  }

  async getFile(id: string) {
    const file = this.state.files.get(id);
    return file && { ...file, bytes: file.bytes.slice() };
  }

  async describeFiles(ids: readonly string[]) {
    return [...new Set(ids)].flatMap((id) => {
      const file = this.state.files.get(id);
      return file ? [meta(file)] : [];
    });
  }

  async purgeUnusedFiles(before: number) {
    let purged = 0;
    for (const [id, f] of this.state.files)
      if (f.threadId === null && f.createdAt < before) {
        this.state.files.delete(id);
        purged++;
      }
    return purged;
  }

  async fileSettings(projectId: string, integrationId: string) {
    const settings = this.state.fileSettings.get(`${projectId}\n${integrationId}`);
    return settings && structuredClone(settings);
  }

  async putFileSettings(projectId: string, integrationId: string, settings: FileSettings) {
    if (!this.integrationExists(projectId, integrationId)) return false;
    this.state.fileSettings.set(`${projectId}\n${integrationId}`, structuredClone(settings));
    return true;
  }
}
