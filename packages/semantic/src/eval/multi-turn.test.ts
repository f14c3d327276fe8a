import { describe, expect, it } from 'vitest';
import { loadCasaCatalogue, loadCasaSingleTurn } from './casa.ts';
import { toMultiTurn } from './multi-turn.ts';

const catalogue = loadCasaCatalogue();
const records = loadCasaSingleTurn(catalogue);

describe('multi-turn variant', () => {
  it('is deterministic and keeps the label, tool and split', () => {
    const a = toMultiTurn(records[7]!, catalogue);
    expect(toMultiTurn(records[7]!, catalogue)).toEqual(a);
    expect(a).toMatchObject({ id: records[7]!.id, class: records[7]!.class, tool: records[7]!.tool, split: records[7]!.split });
  });

  it('buries every task with a tangent, an acknowledged or declined suggestion, code and an injected tool result', () => {
    const templates = new Set<string>();
    for (const r of records) {
      const m = toMultiTurn(r, catalogue);
      templates.add(m.template);
      const text = (role: string) => m.conversation.filter((c) => c.role === role).map((c) => c.content);
      expect(text('user').length).toBeGreaterThanOrEqual(4);
      expect(text('user').some((u) => u.startsWith('```'))).toBe(true);
      expect(text('tool').join(' ')).toMatch(/ignore all previous instructions/);
      expect(text('assistant').join(' ')).toMatch(/I could also/);
      // The task appears once, said by the user or offered by the assistant, never in a tool result.
      const everything = m.conversation.map((c) => c.content).join('\n');
      expect(everything.split(r.task).length - 1).toBe(1);
      expect(text('tool').join(' ')).not.toContain(r.task);
    }
    expect(templates).toEqual(new Set(['stated', 'accepted']));
  });
});
