import { describe, expect, it } from 'vitest';
import { consolePaths } from '../../../../contract/console.js';
import { agentBase, agentPaths } from '../../../../contract/paths.js';
import { HttpError } from '../../../../service/http/errors.js';
import { SLOT, findRoute, pathPattern, routeTable } from '../../../../service/http/route-table.js';

describe('routeTable', () => {
  const table = routeTable(agentBase(SLOT), [
    [agentPaths.threads, { GET: 'list' }],
    [agentPaths.thread(SLOT), { GET: 'get', DELETE: 'delete' }],
    [agentPaths.answerStream(SLOT), { GET: 'stream' }],
  ]);

  it('matches a contract path whole and hands back its ids, still encoded', () => {
    expect(findRoute(table, 'GET', '/agent/v1/projects/proj%201/agent/threads/th_1/')).toEqual({
      handler: 'get',
      params: ['proj%201', 'th_1'],
    });
    expect(findRoute(table, 'GET', '/agent/v1/projects/p/agent/answers/msg_9/stream/')?.params).toEqual([
      'p',
      'msg_9',
    ]);
    expect(findRoute(table, 'GET', '/agent/v1/projects/p/agent/threads/th_1/extra/')).toBeUndefined();
    expect(findRoute(table, 'GET', '/agent/v1/projects/p/agent/threads/th_1')).toBeUndefined();
  });

  it('answers 405 naming the methods a known path takes', () => {
    const error = (() => {
      try {
        findRoute(table, 'PUT', '/agent/v1/projects/p/agent/threads/th_1/');
      } catch (e) {
        return e;
      }
    })() as HttpError;
    expect(error).toBeInstanceOf(HttpError);
    expect([error.status, error.headers.Allow]).toEqual([405, 'GET, DELETE']);
  });

  it('takes the characters of a path literally, and an id never spans a slash', () => {
    const dotted = pathPattern(`/v1.0${consolePaths.keyRotation(SLOT, SLOT)}`);
    expect(dotted.exec('/v1.0/projects/a/keys/k/rotate')?.slice(1)).toEqual(['a', 'k']);
    expect(dotted.test('/v1x0/projects/a/keys/k/rotate')).toBe(false);
    expect(dotted.test('/v1.0/projects/a/b/keys/k/rotate')).toBe(false);
    expect(pathPattern(agentBase(SLOT), { whole: false }).exec('/agent/v1/projects/p/agent/chat/')?.[1]).toBe(
      'p',
    );
  });
});
