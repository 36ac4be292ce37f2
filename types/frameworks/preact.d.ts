// `import type {} from 'agent-chat/preact'`: <agent-chat> in Preact's JSX (Preact 10.19+ and 11).
import type { HTMLAttributes } from 'preact';
import type { AgentChat } from '../../src/public-types.js';
import type { AgentChatEventProps, AgentChatProps } from './shared.js';

declare module 'preact' {
  namespace JSX {
    interface IntrinsicElements {
      'agent-chat': HTMLAttributes<AgentChat> & AgentChatProps & AgentChatEventProps;
    }
  }
}
