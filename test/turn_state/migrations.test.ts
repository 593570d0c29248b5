import { describe, expect, it } from 'vitest';
import { openInMemoryDatabase } from '../../src/turn_state/sqlite/file.js';

const PARENT_AND_CHILD = `
  CREATE TABLE parents (id TEXT PRIMARY KEY);
  CREATE TABLE children (id TEXT PRIMARY KEY, parent TEXT NOT NULL REFERENCES parents (id) ON DELETE CASCADE);
  INSERT INTO parents VALUES ('p');
  INSERT INTO children VALUES ('c', 'p');
`;

describe('schema migrations', () => {
  it('a step may rebuild a parent table: its children keep their rows, and foreign keys are enforced again afterwards', () => {
    const rebuild = `
      CREATE TABLE parents_new (id TEXT PRIMARY KEY, note TEXT);
      INSERT INTO parents_new (id) SELECT id FROM parents;
      DROP TABLE parents;
      ALTER TABLE parents_new RENAME TO parents;
    `;
    const db = openInMemoryDatabase([PARENT_AND_CHILD, rebuild], 'test store');

    expect(db.prepare('SELECT id, parent FROM children').all()).toEqual([{ id: 'c', parent: 'p' }]);
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(() => db.prepare(`INSERT INTO children VALUES ('orphan', 'nobody')`).run()).toThrow(/FOREIGN KEY/);
    db.close();
  });

  it('a step that would leave a row pointing nowhere is refused whole, naming the version', () => {
    const orphaning = `INSERT INTO children VALUES ('orphan', 'nobody');`;

    expect(() => openInMemoryDatabase([PARENT_AND_CHILD, orphaning], 'test store')).toThrow('the test store would break 1 foreign key(s) at schema version 2');
  });
});
