import { describe, expect, it, vi } from 'vitest';
import { modelAgent } from '../../../../service/cli/model-flags.js';
import { programEnv } from './env.js';

/** Which agent answers, as the start-up line names it (service/cli/model-flags.ts). */
describe('the program model settings', () => {
  programEnv();

  it('answers with the demo agent while neither OPENAI_BASE_URL nor OPENAI_MODEL is set, whatever the model flags', () => {
    expect(modelAgent({ 'model-tries': '0', 'model-usage': 'maybe' })).toBeNull();
  });

  it("takes gpt-4o-mini for OPENAI_BASE_URL alone, and OpenAI's address for OPENAI_MODEL alone", () => {
    vi.stubEnv('OPENAI_BASE_URL', 'http://127.0.0.1:11434/v1');
    expect(modelAgent({})?.by).toBe('the model gpt-4o-mini at http://127.0.0.1:11434/v1');
    vi.stubEnv('OPENAI_BASE_URL', '');
    vi.stubEnv('OPENAI_MODEL', 'gpt-5');
    expect(modelAgent({})?.by).toBe('the model gpt-5 at https://api.openai.com/v1');
  });

  it('lets a --model-* flag win over its variable', () => {
    vi.stubEnv('OPENAI_MODEL', 'gpt-5');
    vi.stubEnv('AGENT_CHAT_MODEL_TRIES', '11');
    vi.stubEnv('AGENT_CHAT_MODEL_USAGE', 'maybe');
    expect(modelAgent({ 'model-tries': '3', 'model-usage': 'off' })).not.toBeNull();
    expect(() => modelAgent({ 'model-usage': 'off' })).toThrow(
      '--model-tries must be a whole number from 1 to 10, not 11.',
    );
  });
});
