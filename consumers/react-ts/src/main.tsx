// The README's React usage: the package imported at the top, <agent-chat> in JSX with a
// function property and an event listener, type-checked through agent-chat/react.
import 'agent-chat';
import type {} from 'agent-chat/react';
import type { AgentChat, AgentChatOpenChangeEvent } from 'agent-chat';
import { useRef } from 'react';
import { createRoot } from 'react-dom/client';

const getSessionToken = async () => ({ token: 'tok', expiresAt: Date.now() + 3_600_000 });
const seen: string[] = [];
Object.assign(window, { __getSessionToken: getSessionToken, __seen: seen });

function App() {
  const ref = useRef<AgentChat>(null);
  return (
    <>
      <agent-chat
        ref={ref}
        mode="launcher"
        projectId="proj"
        integration-id="int"
        getSessionToken={getSessionToken}
        onagent-chat-open-change={(event: AgentChatOpenChangeEvent) => seen.push(`open:${event.detail.open}`)}
      />
      {/* @ts-expect-error: mode is 'launcher' | 'inline' */}
      <agent-chat mode="sideways" hidden getSessionToken={getSessionToken} />
      <button type="button" onClick={() => void ref.current?.open()}>
        Open from React
      </button>
    </>
  );
}

createRoot(document.getElementById('root')!).render(<App />);
