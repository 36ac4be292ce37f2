// `import type {} from 'agent-chat/react'` (or "types": ["agent-chat/react"]): <agent-chat> in
// React's JSX (React 19 sets known properties as properties and `on<event>` as listeners).
import type { AgentChat } from '../../src/public-types.js';
import type { AgentChatEventProps, AgentChatProps } from './shared.js';

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'agent-chat': React.DetailedHTMLProps<React.HTMLAttributes<AgentChat>, AgentChat> &
        AgentChatProps &
        AgentChatEventProps;
    }
  }
}
