import { describe, expect, it } from 'vitest';
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
});
