// The README's Vue usage: isCustomElement, a .prop binding for the function, an @event listener.
import 'agent-chat';
import { createApp } from 'vue';

const getSessionToken = async () => ({ token: 'tok', expiresAt: Date.now() + 3_600_000 });
const seen: string[] = [];
Object.assign(window, { __getSessionToken: getSessionToken, __seen: seen });

const app = createApp({
  setup: () => ({
    getSessionToken,
    onOpen: (event: CustomEvent<{ open: boolean }>) => seen.push(`open:${event.detail.open}`),
  }),
  template: `<agent-chat mode="launcher" project-id="proj" integration-id="int" :getSessionToken.prop="getSessionToken"
    @agent-chat-open-change="onOpen"></agent-chat>`,
});
app.config.compilerOptions.isCustomElement = (tag) => tag.startsWith('agent-chat');
app.mount('#app');
