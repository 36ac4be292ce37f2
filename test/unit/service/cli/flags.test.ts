import { describe, expect, it, vi } from 'vitest';
import {
  drainSeconds,
  envFlag,
  flagProject,
  perMinute,
  proxyHops,
  seconds,
  storeAt,
  whole,
  wholeNumber,
} from '../../../../service/cli/flags.js';
import { programEnv } from './env.js';

/** The program's flags and environment variables read one value at a time (service/cli/flags.ts). */
describe('the program flags', () => {
  programEnv();

  it('keeps the store in .data/service unless --data, AGENT_CHAT_DATA or DATABASE_URL says otherwise', () => {
    expect(storeAt({})).toEqual({ databaseUrl: undefined, dataDir: '.data/service' });
    vi.stubEnv('AGENT_CHAT_DATA', '/srv/chat');
    vi.stubEnv('DATABASE_URL', '');
    expect(storeAt({})).toEqual({ databaseUrl: undefined, dataDir: '/srv/chat' });
    vi.stubEnv('DATABASE_URL', 'postgres://db/chat');
    expect(storeAt({ data: '/mnt/data' })).toEqual({
      databaseUrl: 'postgres://db/chat',
      dataDir: '/mnt/data',
    });
  });

  it('names proj_local unless --project or AGENT_CHAT_PROJECT does, the flag first', () => {
    expect(flagProject({})).toBe('proj_local');
    vi.stubEnv('AGENT_CHAT_PROJECT', 'proj_env');
    expect(flagProject({})).toBe('proj_env');
    expect(flagProject({ project: 'proj_flag' })).toBe('proj_flag');
  });

  it('reads a yes from the environment as 1 or true only', () => {
    expect(envFlag('AGENT_CHAT_PUBLIC')).toBe(false);
    for (const [value, on] of [
      ['1', true],
      ['true', true],
      ['yes', false],
      ['0', false],
      ['', false],
    ] as const) {
      vi.stubEnv('AGENT_CHAT_PUBLIC', value);
      expect(envFlag('AGENT_CHAT_PUBLIC')).toBe(on);
    }
  });

  it('keeps the defaults for an unset or empty value, and 0 turns a limit or cap off', () => {
    for (const unset of [undefined, '']) {
      expect(proxyHops(unset)).toBeUndefined();
      expect(whole('--model-tries', unset, 1, 10)).toBeUndefined();
      expect(seconds('--model-stall-timeout', unset)).toBeUndefined();
      expect(wholeNumber(unset, 'AGENT_CHAT_MAX_CONCURRENT_ANSWERS')).toBeUndefined();
      expect(perMinute(unset)).toBeUndefined();
      expect(drainSeconds(unset)).toBe(25);
    }
    expect(perMinute('0')).toBe(false);
    expect(perMinute('30')).toEqual({ requests: 30, windowMs: 60_000 });
    expect(wholeNumber('0', 'AGENT_CHAT_MAX_CONCURRENT_ANSWERS')).toBe(false);
    expect(wholeNumber('4', 'AGENT_CHAT_MAX_CONCURRENT_ANSWERS')).toBe(4);
    expect(drainSeconds('0')).toBe(0);
    expect(drainSeconds('2.5')).toBe(2.5);
  });

  it('reads seconds as milliseconds, hops as a count or cloudflare, and whole numbers at their bounds', () => {
    expect(seconds('--model-first-token-timeout', '1.5')).toBe(1500);
    expect(proxyHops('cloudflare')).toBe('cloudflare');
    expect(proxyHops('0')).toBe(0);
    expect(proxyHops('16')).toBe(16);
    expect(() => proxyHops('17')).toThrow('--trust-proxy must be a hop count from 0 to 16');
    expect(whole('--model-tries', '1', 1, 10)).toBe(1);
    expect(whole('--model-tries', '10', 1, 10)).toBe(10);
    expect(() => whole('--model-tries', '11', 1, 10)).toThrow(
      '--model-tries must be a whole number from 1 to 10, not 11.',
    );
  });
});
