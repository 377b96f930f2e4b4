// @ts-check
// Queries that read every row of one graph (step, rank, side) read them along the rowid range the
// graph occupies, not along index3: the rows of a graph lie together in the file, but their rowid
// order (msProbe's) is not execution order, so a walk in node_order touched pages all over the
// graph and, on a database read lazily over HTTP, read them many times (a 10,000-row chunk of a
// 2 GB file read 97 MB). The range comes from index3 (which holds the rowid); rows of another graph
// inside it are skipped by the scope terms, written `+step` so that they filter instead of
// picking index2 over the range. Plan: SEARCH tb_nodes USING INTEGER PRIMARY KEY (rowid>? AND rowid<?).

/**
 * [first, last] rowid of one graph, or null when it has no rows.
 * @param {import('../engine/client.js').EngineClient} engine @param {number} step @param {number} rank @param {string} side
 * @returns {Promise<[number, number]|null>}
 */
export async function scopeRowids(engine, step, rank, side) {
  const r = await engine.query('SELECT min(rowid), max(rowid) FROM tb_nodes WHERE step = ? AND rank = ? AND data_source = ?', [step, rank, side]);
  const v = r.values[0];
  return v && v[0] !== null ? [Number(v[0]), Number(v[1])] : null;
}

/** The WHERE terms of one graph's rows in its rowid range (alias `a`, e.g. 'n.' or ''); params: lo, hi, step, rank, side. */
export const scopeTerms = (a = '') => `${a}rowid BETWEEN ? AND ? AND +${a}step = ? AND +${a}rank = ? AND +${a}data_source = ?`;

/** A leaf: a node without children (SQL over tb_nodes). */
export const LEAF = "(sub_nodes IS NULL OR sub_nodes IN ('', '[]'))";
/** Nodes whose box takes the precision colour (API lists and fused operators stay white, GR-04). */
export const COLOURED = 'CAST(node_type AS INTEGER) NOT IN (8, 9)';
