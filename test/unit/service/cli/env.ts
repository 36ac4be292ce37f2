import { afterEach, beforeEach, vi } from 'vitest';

/**
 * Each test starts with none of the program's environment variables (the machine's own would
 * decide its defaults) and ends with the machine's back: the unit files share one process.
 */
export function programEnv() {
  beforeEach(() => {
    for (const name of Object.keys(process.env))
      if (/^(AGENT_CHAT_|OPENAI_|PORT$|HOST$|DATABASE_URL$)/.test(name)) vi.stubEnv(name, undefined);
  });
  afterEach(() => vi.unstubAllEnvs());
}
