/** What pages tell the app: go to another URL of the console; the projects changed. */

export class NavigateEvent extends Event {
  constructor(
    readonly href: string,
    readonly replace = false,
  ) {
    super('console-navigate', { bubbles: true, composed: true });
  }
}

export class ProjectsChangedEvent extends Event {
  constructor(readonly select?: string | null) {
    super('console-projects-changed', { bubbles: true, composed: true });
  }
}

declare global {
  interface HTMLElementEventMap {
    'console-navigate': NavigateEvent;
    'console-projects-changed': ProjectsChangedEvent;
  }
}
