import { describe, expect, it } from 'vitest';
import { classSizes } from '../../../scripts/class-size.mjs';

describe('classSizes', () => {
  it('measures each class from its declaration to the closing brace at its indentation', () => {
    const source = [
      '/** A class in a comment: class Ignored { */',
      'export class Outer {',
      '  method() {',
      '    return html`<p class="x">`;',
      '  }',
      '}',
      '',
      'export default abstract class Base<T>',
      '  extends Outer',
      '  implements Thing {',
      '  field = 1;',
      '}',
      'class Empty {}',
      'function nested() {',
      '  class Inner {',
      '    a = 1;',
      '  }',
      '}',
    ].join('\n');
    expect(classSizes(source)).toEqual([
      { name: 'Outer', line: 2, lines: 5 },
      { name: 'Base', line: 8, lines: 5 },
      { name: 'Inner', line: 15, lines: 3 },
    ]);
  });
});
