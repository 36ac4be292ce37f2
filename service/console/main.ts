/** The console's one module with side effects: it registers every element, then the page's <console-app> runs. */
import { ActivityChart } from './components/activity-chart.js';
import { ActivityPage } from './components/activity-page.js';
import { AdminsPage } from './components/admins-page.js';
import { ConsoleApp } from './components/app.js';
import { AuditPage } from './components/audit-page.js';
import { SourcesPage } from './components/sources-page.js';
import { ConversationErase } from './components/conversation-erase.js';
import { ConversationsPage } from './components/conversations-page.js';
import { DocsSearch } from './components/docs-search.js';
import { FileSettingsForm } from './components/file-settings.js';
import { IntegrationsPage } from './components/integrations-page.js';
import { KeysPage } from './components/keys-page.js';
import { MessageFiles } from './components/message-files.js';
import { NotificationsPage } from './components/notifications-page.js';
import { OwnAccount } from './components/own-account.js';
import { ConsoleSignIn } from './components/sign-in.js';

const elements: [string, CustomElementConstructor][] = [
  ['console-sign-in', ConsoleSignIn],
  ['activity-chart', ActivityChart],
  ['activity-page', ActivityPage],
  ['conversations-page', ConversationsPage],
  ['conversation-erase', ConversationErase],
  ['file-settings', FileSettingsForm],
  ['message-files', MessageFiles],
  ['integrations-page', IntegrationsPage],
  ['keys-page', KeysPage],
  ['audit-page', AuditPage],
  ['docs-search', DocsSearch],
  ['sources-page', SourcesPage],
  ['notifications-page', NotificationsPage],
  ['own-account', OwnAccount],
  ['admins-page', AdminsPage],
  ['console-app', ConsoleApp],
];
for (const [name, element] of elements) if (!customElements.get(name)) customElements.define(name, element);
