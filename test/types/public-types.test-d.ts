// Compiled by `npm run typecheck`: it fails when the plain public types drift from the element.
import type { LitElement } from 'lit';
import type { AgentChat } from '../../src/components/agent-chat/agent-chat.js';
import type {
  AgentChat as PublicAgentChat,
  AgentChatAttributes,
  AgentChatEventMap,
  AgentChatMethods,
  AgentChatProperties,
} from '../../src/public-types.js';

type Expect<T extends true> = T;
/** Mutual assignability; enough here, and it does not trip over how optional members are represented. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/** Lit's protected lifecycle, which an element may override as public. */
type LitLifecycle =
  | 'render'
  | 'willUpdate'
  | 'update'
  | 'updated'
  | 'firstUpdated'
  | 'shouldUpdate'
  | 'getUpdateComplete'
  | 'createRenderRoot'
  | 'scheduleUpdate'
  | 'performUpdate';
/** Public members the element adds to LitElement. */
type Own = Exclude<keyof AgentChat, keyof LitElement | LitLifecycle>;
type Methods = {
  [K in Own]: AgentChat[K] extends (...args: never[]) => unknown
    ? K extends 'getSessionToken'
      ? never
      : K
    : never;
}[Own];

export type Checks = [
  // Every public property of the element, and no other, with the same type.
  Expect<Same<keyof AgentChatProperties, Exclude<Own, Methods>>>,
  Expect<Same<Pick<AgentChat, keyof AgentChatProperties>, AgentChatProperties>>,
  // Every public method, with the same signature.
  Expect<Same<keyof AgentChatMethods, NonNullable<Methods>>>,
  Expect<Same<Pick<AgentChat, keyof AgentChatMethods>, AgentChatMethods>>,
  // Each event name maps to the class the global event map gives it.
  Expect<
    Same<
      {
        [K in keyof AgentChatEventMap]: Same<AgentChatEventMap[K], GlobalEventHandlersEventMap[K]>;
      }[keyof AgentChatEventMap],
      true
    >
  >,
  // Every attribute is one the element observes (checked at run time by the manifest test).
  Expect<Same<keyof AgentChatAttributes extends string ? true : false, true>>,
];

// The real element satisfies the public interface, which is what the tag name gives a page.
export const element: PublicAgentChat = new (customElements.get('agent-chat') as typeof AgentChat)();
export const byTag: Expect<Same<HTMLElementTagNameMap['agent-chat'], PublicAgentChat>> = true;
