import { recordStreamOf } from '../answers/record-stream.js';
import type { SessionRecord } from '../storage/types.js';
import { type ServiceContext, sessionHolds } from './context.js';

/**
 * How long an open stream trusts its session without asking again: it asks at its first record
 * after this long (the directory's cached view, invalidated fleet-wide by the console's
 * changes, so most asks read no store).
 */
const RECHECK_MS = 5_000;

/**
 * An answer's stream (§4, §9) that stops carrying records once something ends its session while
 * it is open: the key that minted it revoked with "end its sessions", its public integration
 * made private, its project deleted. The answer itself goes on and is stored; only this
 * connection closes, as a dropped one does, and the widget's reattach then meets the 401 every
 * route gives the session. A token that expires mid-answer keeps its stream: the question was
 * asked in time (decision 684). Every answer's stream is a record stream, watched where its
 * records are written (decision 706); any other response (an error) carries no answer.
 */
export function whileSessionHolds(ctx: ServiceContext, session: SessionRecord, response: Response): Response {
  recordStreamOf(response)?.guard(
    async () => {
      // A directory that cannot be read now (a store's blip) ends no answer: the next ask decides.
      const project = await ctx.directory.project(session.projectId).catch(() => null);
      return project === null || sessionHolds(session, project);
    },
    RECHECK_MS,
    () => ctx.clock.now(),
  );
  return response;
}
