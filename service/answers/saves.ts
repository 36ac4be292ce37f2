import type { Clock } from '../kernel/clock.js';
import type { AnswerLedger } from '../storage/types.js';
import type { LiveAnswer } from './live-answer.js';

/** How often a generating answer's text is saved, so a crash loses at most this much. */
const SAVE_EVERY_MS = 1_000;

type Log = (entry: { level: 'error'; msg: string; error: string }) => void;

/**
 * The saves of generating answers: an answer is due once a second while its text grows, and
 * every answer due is saved in one statement per tick; the next batch waits for the one in
 * flight. The ledger answers which answers this instance still holds; the others stop.
 */
export class AnswerSaves {
  private readonly due = new Set<LiveAnswer>();
  private saving: Promise<void> | null = null;

  constructor(
    private readonly ledger: AnswerLedger,
    private readonly clock: Clock,
    private readonly instanceId: string,
    private readonly log: Log,
  ) {}

  /** The answer's text grew: due for a save once a second has passed since its last. */
  grew(answer: LiveAnswer): void {
    const now = this.clock.now();
    if (now - answer.savedAt < SAVE_EVERY_MS) return;
    answer.savedAt = now;
    this.due.add(answer);
  }

  /** The answer is about to be ended: no save of it may land after its end. */
  async settle(answer: LiveAnswer): Promise<void> {
    this.due.delete(answer);
    // A save in flight lands first, so it cannot overwrite the end.
    await this.saving;
  }

  /** One statement saves every answer due; the next batch waits for it. */
  saveDue(): void {
    if (this.saving || !this.due.size) return;
    const batch = [...this.due];
    this.due.clear();
    const saves = batch.map(({ message: m }) => ({
      id: m.id,
      content: m.content,
      sources: m.sources,
      activity: m.activity,
      uncertain: m.uncertain,
      updatedAt: this.clock.now(),
    }));
    this.saving = this.ledger
      .saveAnswers(saves, this.instanceId)
      .then(
        (held) => {
          // Deleted with its thread, or ended by another instance (this one's lease ran out): stop.
          for (const answer of batch)
            if (!held.has(answer.message.id) && !answer.end) void answer.halt('gone');
        },
        (error) =>
          this.log({
            level: 'error',
            msg: 'answer_not_saved',
            error: error instanceof Error ? error.name : typeof error,
          }),
      )
      .finally(() => {
        this.saving = null;
        this.saveDue();
      });
  }
}
