import { MAX_TOOL_ROUNDS } from '../../contract/limits.js';
import type { ToolCall, ToolResult } from '../../contract/types.js';
import type { ClientTool } from '../public-types.js';

export type ToolCallState = 'pending' | 'awaiting-approval' | 'running' | 'done' | 'error' | 'denied';

/** A tool call as the answer shows it. */
export interface ToolCallView {
  id: string;
  name: string;
  displayName: string;
  arguments: Record<string, unknown>;
  state: ToolCallState;
  /** The tool's own sentence for this call (`describe`), when it has one. */
  sentence?: string;
  /** Regenerate asked again for an action the visitor had allowed for the replaced answer. */
  askedAgain?: boolean;
  error?: string;
}

export type { ToolResult };

export const TOOL_TIMEOUT_MS = 30_000;
export { MAX_TOOL_ROUNDS };
export const DENIED = 'denied by the visitor';

/** What goes on the wire: name, description, parameters (never the function). */
export function toolSpecs(tools: readonly ClientTool[]) {
  return tools.map(({ name, description, parameters }) => ({ name, description, parameters }));
}

/** "open_page" → "Open page", "maxResults" → "Max results": a wire name in words. */
export function inWords(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export function viewOf(call: ToolCall, tool: ClientTool | undefined): ToolCallView {
  let sentence: string | undefined;
  try {
    sentence = tool?.describe?.(call.arguments).trim();
  } catch {
    // A describe that throws (or returns no string) leaves the card its argument list.
  }
  return {
    id: call.id,
    name: call.name,
    displayName: tool?.displayName || inWords(call.name),
    arguments: call.arguments,
    state: 'pending',
    ...(sentence ? { sentence } : {}),
  };
}

/** JSON the service accepts: undefined becomes null, anything unserialisable an error. */
function toJson(value: unknown): unknown {
  return value === undefined ? null : JSON.parse(JSON.stringify(value));
}

/**
 * Runs one call: a missing tool, a throw, a rejection, a non-JSON result or a timeout become an
 * `error` result, never an exception. The returned promise always settles by the timeout.
 */
export async function runTool(
  tool: ClientTool | undefined,
  call: ToolCall,
  threadId: string | null,
  signal: AbortSignal,
): Promise<ToolResult> {
  if (!tool) return { tool_call_id: call.id, error: `unknown tool ${call.name}` };
  const timeoutMs = tool.timeoutMs ?? TOOL_TIMEOUT_MS;
  const controller = new AbortController();
  const abort = () => controller.abort();
  signal.addEventListener('abort', abort, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`timed out after ${timeoutMs} ms`));
    }, timeoutMs);
  });
  try {
    const output = await Promise.race([
      Promise.resolve().then(() =>
        tool.execute(call.arguments, { toolCallId: call.id, threadId, signal: controller.signal }),
      ),
      timeout,
    ]);
    return { tool_call_id: call.id, output: toJson(output) };
  } catch (error) {
    return {
      tool_call_id: call.id,
      error: error instanceof Error ? error.message || error.name : String(error),
    };
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', abort);
  }
}

export interface ToolHooks {
  /** A client-side tool call is about to run (after approval, if any). */
  onToolCall?(detail: { toolCallId: string; name: string; arguments: Record<string, unknown> }): void;
  onToolResult?(detail: { toolCallId: string; name: string; status: 'done' | 'error' | 'denied' }): void;
}

/** A message that shows tool calls (the answer). */
type WithCalls = { toolCalls?: readonly ToolCallView[] };

/** One round of calls: what it runs with, and the answer whose cards show it. */
export interface ToolRound<M extends WithCalls> {
  calls: readonly ToolCall[];
  tools: readonly ClientTool[];
  threadId: string | null;
  signal: AbortSignal;
  /** Tools that ran for the answer this one replaces: their approval cards say it is asked again. */
  ranBefore: ReadonlySet<string>;
  /** The answer as it is now. */
  answer: () => M;
  /** Shows the answer's next version. */
  show: (next: M) => void;
}

/**
 * Runs the rounds of client-side tool calls an answer pauses for (§7), and holds the calls that
 * wait for the visitor's Allow / Deny. No DOM.
 */
export class ToolRunner {
  /** Calls waiting for the visitor's Allow / Deny, by tool call id. */
  readonly #approvals = new Map<string, (allowed: boolean) => void>();

  readonly #hooks: ToolHooks;

  constructor(hooks: ToolHooks) {
    this.#hooks = hooks;
  }

  /** The visitor allowed or denied a tool call that asked for approval. */
  decide(toolCallId: string, allowed: boolean): void {
    this.#approvals.get(toolCallId)?.(allowed);
  }

  /**
   * Runs one round of tool calls in order, asking for approval where the tool wants it, and
   * shows each call's state on the answer. Every call gets exactly one result (§7).
   */
  async run<M extends WithCalls>(round: ToolRound<M>): Promise<ToolResult[]> {
    const { calls, signal, answer, show } = round;
    const set = (id: string, patch: Partial<ToolCallView>) => {
      const message = answer();
      show({
        ...message,
        toolCalls: (message.toolCalls ?? []).map((c) => (c.id === id ? { ...c, ...patch } : c)),
      });
    };
    const byName = new Map(round.tools.map((t) => [t.name, t]));
    // A reattach replays a paused answer's tool_calls, whose cards the page may remember already.
    const replayed = new Set(calls.map((c) => c.id));
    const earlier = (answer().toolCalls ?? []).filter((c) => !replayed.has(c.id));
    show({ ...answer(), toolCalls: [...earlier, ...calls.map((c) => viewOf(c, byName.get(c.name)))] });
    const results: ToolResult[] = [];
    for (const call of calls) {
      const tool = byName.get(call.name);
      if (signal.aborted) break;
      if (tool?.needsApproval) {
        set(call.id, {
          state: 'awaiting-approval',
          ...(round.ranBefore.has(call.name) ? { askedAgain: true } : {}),
        });
        const allowed = await this.#approval(call.id, signal);
        if (!allowed) {
          set(call.id, { state: 'denied' });
          results.push({ tool_call_id: call.id, error: DENIED });
          this.#hooks.onToolResult?.({ toolCallId: call.id, name: call.name, status: 'denied' });
          continue;
        }
      }
      set(call.id, { state: 'running' });
      this.#hooks.onToolCall?.({ toolCallId: call.id, name: call.name, arguments: call.arguments });
      const result = await runTool(tool, call, round.threadId, signal);
      const status = 'error' in result ? 'error' : 'done';
      set(call.id, { state: status, ...('error' in result ? { error: result.error } : {}) });
      results.push(result);
      this.#hooks.onToolResult?.({ toolCallId: call.id, name: call.name, status });
    }
    return results;
  }

  /** Resolves with the visitor's decision; a stopped answer counts as denied. */
  #approval(id: string, signal: AbortSignal): Promise<boolean> {
    return new Promise((resolve) => {
      const done = (allowed: boolean) => {
        this.#approvals.delete(id);
        signal.removeEventListener('abort', onAbort);
        resolve(allowed);
      };
      const onAbort = () => done(false);
      signal.addEventListener('abort', onAbort, { once: true });
      this.#approvals.set(id, done);
    });
  }
}
