import { afterEach, describe, expect, it, vi } from 'vitest';
import { RecordStream } from '../../../../service/answers/record-stream.js';

describe('RecordStream', () => {
  const bytes = (text: string) => new TextEncoder().encode(text);
  const read = async (response: Response) => new TextDecoder().decode(await response.arrayBuffer());

  it('keeps what was written before anyone read, for a reader that comes late', async () => {
    const stream = new RecordStream(() => {});
    const response = stream.response({ 'Content-Type': 'text/plain' });
    stream.write(bytes('one,'));
    stream.write(bytes('two,'));
    const body = read(response);
    stream.write(bytes('three'));
    stream.end();
    expect(await body).toBe('one,two,three');
  });

  it('hands the same pieces to a sink that takes it directly, and tells its source once when the reader leaves', () => {
    let cancelled = 0;
    const stream = new RecordStream(() => cancelled++);
    stream.write(bytes('a'));
    const got: string[] = [];
    stream.pipe({ write: (b) => got.push(new TextDecoder().decode(b)), end: () => got.push('END') });
    stream.write(bytes('b'));
    stream.cancel();
    stream.cancel();
    stream.write(bytes('c'));
    expect(got).toEqual(['a', 'b']);
    expect(cancelled).toBe(1);
  });

  it('does not cancel a stream that already ended', () => {
    let cancelled = 0;
    const stream = new RecordStream(() => cancelled++);
    stream.pipe({ write: () => {}, end: () => {} });
    stream.end();
    stream.cancel();
    expect(cancelled).toBe(0);
  });

  describe('guarded (decisions 684, 706)', () => {
    const setup = (answers: boolean[]) => {
      let now = 0;
      const asked: number[] = [];
      const pending: ((yes: boolean) => void)[] = [];
      let cancelled = 0;
      const stream = new RecordStream(() => cancelled++);
      stream.guard(
        () => {
          asked.push(now);
          return new Promise<boolean>((resolve) => pending.push(resolve));
        },
        5_000,
        () => now,
      );
      const got: string[] = [];
      stream.pipe({ write: (b) => got.push(new TextDecoder().decode(b)), end: () => got.push('END') });
      const answer = async () => {
        pending.shift()!(answers.shift()!);
        await Promise.resolve();
      };
      return { stream, got, asked, answer, at: (ms: number) => (now = ms), cancelled: () => cancelled };
    };

    it('asks at the first piece 5 s after the last ask, holds pieces until it answers, then sends them in order', async () => {
      const s = setup([true]);
      s.stream.write(bytes('a'));
      s.at(4_999);
      s.stream.write(bytes('b'));
      expect(s.asked).toEqual([]);
      s.at(5_000);
      s.stream.write(bytes('c'));
      s.stream.write(bytes('d'));
      s.stream.end();
      expect(s.got).toEqual(['a', 'b']);
      await s.answer();
      expect(s.got).toEqual(['a', 'b', 'c', 'd', 'END']);
      expect(s.asked).toEqual([5_000]);
    });

    it("a no ends the reader's stream before the held pieces, once, and tells the source the reader left", async () => {
      const s = setup([false]);
      s.stream.write(bytes('a'));
      s.at(6_000);
      s.stream.write(bytes('secret'));
      await s.answer();
      s.stream.write(bytes('more'));
      s.stream.end();
      expect(s.got).toEqual(['a', 'END']);
      expect(s.cancelled()).toBe(1);
    });

    it('a no after the answer ended still sends nothing held, and the source is not told (it is done)', async () => {
      const s = setup([false]);
      s.at(6_000);
      s.stream.write(bytes('secret'));
      s.stream.end();
      await s.answer();
      expect(s.got).toEqual(['END']);
      expect(s.cancelled()).toBe(0);
    });
  });

  describe('keep-alive (decision 586)', () => {
    afterEach(() => void vi.useRealTimers());
    const KEEPALIVE = '{"chunk":{"type":"keepalive","content":{},"stream_end":false}}\u241E';
    const reader = (stream: RecordStream) => {
      const got: string[] = [];
      stream.pipe({
        write: (b) => got.push(`${Date.now()}:${new TextDecoder().decode(b)}`),
        end: () => got.push('END'),
      });
      return got;
    };

    it('sends a keepalive record only after a silence as long as its interval, counted from the last piece', () => {
      vi.useFakeTimers({ now: 0 });
      const stream = new RecordStream(() => {}, 300);
      stream.write(bytes('start'));
      const got = reader(stream);
      vi.advanceTimersByTime(200);
      stream.write(bytes('a'));
      vi.advanceTimersByTime(899);
      expect(got).toEqual(['0:start', '200:a', `500:${KEEPALIVE}`, `800:${KEEPALIVE}`]);
      stream.write(bytes('end'));
      stream.end();
      vi.advanceTimersByTime(1000);
      expect(got.slice(4)).toEqual(['1099:end', 'END']);
    });

    it('keeps no timer once the stream ends, once its reader leaves, before it has a reader, or with 0', () => {
      vi.useFakeTimers({ now: 0 });
      const ended = new RecordStream(() => {}, 300);
      reader(ended);
      expect(vi.getTimerCount()).toBe(1);
      ended.end();
      expect(vi.getTimerCount()).toBe(0);

      const left = new RecordStream(() => {}, 300);
      reader(left);
      vi.advanceTimersByTime(300);
      expect(vi.getTimerCount()).toBe(1);
      left.cancel();
      expect(vi.getTimerCount()).toBe(0);

      const unread = new RecordStream(() => {}, 300);
      unread.write(bytes('waits'));
      const off = new RecordStream(() => {}, 0);
      reader(off);
      vi.advanceTimersByTime(5000);
      expect(vi.getTimerCount()).toBe(0);
      expect(reader(unread)).toEqual(['5300:waits']);
    });

    it('goes out through the web stream too, and the reader cancelling it stops it', async () => {
      vi.useFakeTimers({ now: 0 });
      let cancelled = 0;
      const stream = new RecordStream(() => cancelled++, 300);
      const body = stream.response({}).body!.getReader();
      stream.write(bytes('start'));
      expect(new TextDecoder().decode((await body.read()).value)).toBe('start');
      await vi.advanceTimersByTimeAsync(300);
      expect(new TextDecoder().decode((await body.read()).value)).toBe(KEEPALIVE);
      await body.cancel();
      expect(cancelled).toBe(1);
      expect(vi.getTimerCount()).toBe(0);
    });
  });
});
