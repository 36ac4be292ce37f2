import { describe, expect, it } from 'vitest';
import { auditDetail } from '../../../../service/console/format.js';

describe("the audit log's detail line", () => {
  it('writes every value in words: lists joined, an empty one as none, a budget as its figures', () => {
    expect(
      auditDetail({
        name: 'Docs site',
        budget: { sessions: 500, answers: 2000 },
        public: true,
        allowed_origins: ['https://docs.example.com', 'https://www.example.com'],
        exclude: [],
      }),
    ).toBe(
      'name: Docs site · budget: sessions 500, answers 2000 · public: true · ' +
        'allowed origins: https://docs.example.com, https://www.example.com · exclude: (none)',
    );
    expect(auditDetail(null)).toBe('');
    expect(auditDetail({ groups: 1, note: null })).toBe('groups: 1 · note: null');
  });
});
