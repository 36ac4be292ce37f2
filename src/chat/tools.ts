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
