import { describe, expect, it, vi } from 'vitest';
import { projectsOf } from '../../../../service/cli/serve.js';
import { programEnv } from './env.js';

/** The project the flags make exist at start (service/cli/serve.ts). */
describe('the program project settings', () => {
  programEnv();

  it('makes no project when no flag names one: projects come from the console', () => {
    expect(projectsOf({})).toEqual({ projects: [], named: null });
  });

  it('makes proj_local with int_local for a key alone, and for docs given on the command line', () => {
    const local = {
      projects: [{ id: 'proj_local', apiKey: 'k', integrationIds: ['int_local'], allowedOrigins: undefined }],
      named: 'project proj_local',
    };
    expect(projectsOf({ 'api-key': 'k' })).toEqual(local);
    vi.stubEnv('AGENT_CHAT_DOCS', 'https://docs.example.com/');
    expect(projectsOf({}).named).toBe('project proj_local');
  });

  it('reads integrations and origins from their variables, comma-separated, the flags first', () => {
    vi.stubEnv('AGENT_CHAT_INTEGRATION', 'int_a,int_b');
    vi.stubEnv('AGENT_CHAT_ALLOWED_ORIGINS', 'https://a.example,,https://b.example');
    vi.stubEnv('AGENT_CHAT_PUBLIC', '1');
    expect(projectsOf({}).projects).toEqual([
      {
        id: 'proj_local',
        apiKey: undefined,
        integrationIds: ['int_a', 'int_b'],
        allowedOrigins: ['https://a.example', 'https://b.example'],
        public: true,
      },
    ]);
    expect(
      projectsOf({ integration: ['int_c'], 'allowed-origin': ['http://c.example:8080'], public: false })
        .projects,
    ).toEqual([
      {
        id: 'proj_local',
        apiKey: undefined,
        integrationIds: ['int_c'],
        allowedOrigins: ['http://c.example:8080'],
      },
    ]);
  });
});
