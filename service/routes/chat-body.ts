import {
  MAX_ATTACHMENTS,
  MAX_LOCALE_CHARS,
  MAX_MESSAGE_CHARS,
  MAX_TITLE_CHARS,
  MAX_TOOL_DESCRIPTION_CHARS,
  MAX_TOOLS,
  TOOL_NAME,
} from '../../contract/limits.js';
import type { ToolResult, ToolSpec } from '../../contract/types.js';
import { isRecord } from '../http/body.js';
import { HttpError, badRequest, unknownIntegration } from '../http/errors.js';

/** The chat call's body (§4, §7), checked field by field: a question, or the results of client tools. */
/** A thread's title: its first question on one line, cut to the contract's length. */
export function titleFrom(message: string): string {
  const oneLine = message.replace(/\s+/g, ' ').trim();
  return oneLine.length <= MAX_TITLE_CHARS ? oneLine : `${oneLine.slice(0, MAX_TITLE_CHARS - 1).trimEnd()}…`;
}

function parseTools(value: unknown): ToolSpec[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.length > MAX_TOOLS)
    throw badRequest(`tools must be an array of at most ${MAX_TOOLS} tools.`);
  const names = new Set<string>();
  return value.map((tool, i) => {
    if (!isRecord(tool)) throw badRequest(`tools[${i}] must be an object.`);
    const { name, description, parameters } = tool;
    if (typeof name !== 'string' || !TOOL_NAME.test(name) || names.has(name))
      throw badRequest(`tools[${i}].name must match ${TOOL_NAME.source} and be unique.`);
    if (typeof description !== 'string' || description.length > MAX_TOOL_DESCRIPTION_CHARS)
      throw badRequest(
        `tools[${i}].description must be a string of at most ${MAX_TOOL_DESCRIPTION_CHARS} characters.`,
      );
    if (!isRecord(parameters)) throw badRequest(`tools[${i}].parameters must be a JSON Schema object.`);
    names.add(name);
    return { name, description, parameters };
  });
}

function parseToolResults(value: unknown): ToolResult[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > 64)
    throw badRequest('tool_results must be a non-empty array.');
  return value.map((result, i) => {
    if (!isRecord(result) || typeof result.tool_call_id !== 'string')
      throw badRequest(`tool_results[${i}].tool_call_id must be a string.`);
    const hasOutput = 'output' in result;
    const hasError = 'error' in result;
    if (hasOutput === hasError) throw badRequest(`tool_results[${i}] needs exactly one of output and error.`);
    if (hasError && typeof result.error !== 'string')
      throw badRequest(`tool_results[${i}].error must be a string.`);
    return hasError
      ? { tool_call_id: result.tool_call_id, error: result.error as string }
      : { tool_call_id: result.tool_call_id, output: result.output };
  });
}

/** The visitor's language (§4, version 3): a well-formed BCP 47 tag, in its canonical form. */
function parseLocale(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  const invalid = () =>
    badRequest(
      `locale must be a BCP 47 language tag (like "de" or "pt-BR") of at most ${MAX_LOCALE_CHARS} characters.`,
    );
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_LOCALE_CHARS) throw invalid();
  try {
    return Intl.getCanonicalLocales(value)[0];
  } catch {
    throw invalid();
  }
}

/** A question's files (§4, version 4): at most MAX_ATTACHMENTS distinct ids (whose they are is checked against storage). */
function parseAttachments(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (
    !Array.isArray(value) ||
    value.length > MAX_ATTACHMENTS ||
    value.some((id) => typeof id !== 'string' || id.length > 64) ||
    new Set(value).size !== value.length
  )
    throw badRequest(`attachments must be an array of at most ${MAX_ATTACHMENTS} distinct file ids.`);
  return value as string[];
}

export function parseChatBody(body: unknown, integrationIds: string[]) {
  if (!isRecord(body)) throw badRequest('The body must be a JSON object.');
  const { integration_id: integrationId, message, thread_id: threadId, tool_results: toolResults } = body;
  if (typeof integrationId !== 'string' || !integrationIds.includes(integrationId))
    throw unknownIntegration(integrationId);
  if (threadId !== undefined && threadId !== null && typeof threadId !== 'string')
    throw badRequest('thread_id must be a string or null.');
  const tools = parseTools(body.tools);
  const locale = parseLocale(body.locale);
  if (toolResults !== undefined) {
    if (message !== undefined) throw badRequest('Send either message or tool_results, not both.');
    if (typeof threadId !== 'string') throw badRequest('tool_results need the thread_id of the answer.');
    return {
      kind: 'tools' as const,
      integrationId,
      threadId,
      tools,
      locale,
      results: parseToolResults(toolResults),
    };
  }
  if (typeof message !== 'string') throw badRequest('message must be a string.');
  if (message.length > MAX_MESSAGE_CHARS)
    throw new HttpError(413, 'payload_too_large', `message is longer than ${MAX_MESSAGE_CHARS} characters.`);
  const attachments = parseAttachments(body.attachments);
  // Files alone are a question too (a screenshot says what is wrong); without them, words are needed.
  if (!message.trim() && !attachments.length) throw badRequest('message is empty.');
  return {
    kind: 'message' as const,
    integrationId,
    message,
    threadId: threadId ?? null,
    tools,
    locale,
    attachments,
  };
}
