// Deep links (web/src/host/url_state.js, web-ui BEY-04): the URL fragment parsed into top fields and
// per-view sections, built back from the registered views, written with replaceState (debounced).
// The browser globals it uses (location, history, window.setTimeout) are small stand-ins here that
// behave as the browser's do for a fragment: replaceState(url) changes location.hash.
//   node --test tests/web/url_state.test.mjs
import { test, afterEach } from 'node:test';
import assert from 'node:assert/strict';

const replaced = [];
const loc = {
  origin: 'https://host.example', pathname: '/visprobe/', search: '?lang=en', hash: '',
  get href() { return this.origin + this.pathname + this.search + this.hash; },
};
globalThis.location = loc;
globalThis.history = {
  replaceState(_state, _title, url) {
    replaced.push(url);
    const at = url.indexOf('#');
    loc.hash = at < 0 ? '' : url.slice(at);
  },
};
globalThis.window = { setTimeout: (fn, ms) => setTimeout(fn, ms) };

const url = await import('../../web/src/host/url_state.js');

/** Views registered by a test, unregistered after it (the module keeps them). */
const owned = [];
const register = (name, owner) => { const off = url.register(name, owner); owned.push(off); return off; };
afterEach(() => { while (owned.length) owned.pop()(); });

test('parse: top fields, sections by the text before the first dot, values decoded', () => {
  const r = url.parse('#db=fp123&graph.step=0&graph.sel=0%3AModule.layer1.Sequential.forward.0&trend.metric=norm&graph.side.x=1');
  assert.deepEqual(r.top, { db: 'fp123' });
  assert.deepEqual(r.sections, {
    graph: { step: '0', sel: '0:Module.layer1.Sequential.forward.0', 'side.x': '1' },
    trend: { metric: 'norm' },
  });
  // without '#', empty, and '+' as a space (form encoding)
  assert.deepEqual(url.parse('db=x').top, { db: 'x' });
  assert.deepEqual(url.parse(''), { top: {}, sections: {} });
  assert.deepEqual(url.parse('#trend.tags=a+b%2Bc').sections, { trend: { tags: 'a b+c' } });
  // the last of a repeated key wins
  assert.deepEqual(url.parse('#graph.step=1&graph.step=2').sections, { graph: { step: '2' } });
});

test('parse reads location.hash when given nothing', () => {
  loc.hash = '#db=fromlocation&graph.rank=3';
  assert.deepEqual(url.parse(), { top: { db: 'fromlocation' }, sections: { graph: { rank: '3' } } });
  loc.hash = '';
});

test('parse refuses __proto__ and constructor as section names (no prototype pollution)', () => {
  const r = url.parse('#__proto__.polluted=yes&constructor.prototype=1&constructor.x=2&graph.step=0');
  assert.equal(/** @type {any} */ ({}).polluted, undefined);
  assert.equal(/** @type {any} */ (Object).x, undefined);
  assert.equal(/** @type {any} */ (Object).prototype.polluted, undefined);
  assert.deepEqual(Object.keys(r.sections), ['graph']);
  assert.deepEqual(r.sections.graph, { step: '0' });
});

test('parse: a section named after an inherited member (toString) is a section, and touches no built-in', () => {
  try {
    const r = url.parse('#toString.x=1&hasOwnProperty.y=2');
    assert.equal(/** @type {any} */ (Object.prototype.toString).x, undefined);
    assert.equal(/** @type {any} */ (Object.prototype.hasOwnProperty).y, undefined);
    assert.deepEqual(r.sections.toString, { x: '1' });
  } finally {
    delete (/** @type {any} */ (Object.prototype.toString)).x;
    delete (/** @type {any} */ (Object.prototype.hasOwnProperty)).y;
  }
});

test('build: top fields then each registered section; empty, null and undefined values are left out', () => {
  url.init('#db=fp1&graph.step=9');   // top fields kept, sections ignored
  assert.equal(url.build(), 'db=fp1');
  const off = register('graph', { get: () => ({ step: 0, rank: 2, sel: '0:Module.x y', none: '', nil: null, undef: undefined }), apply() {} });
  register('broken', { get: () => { throw new Error('view closed'); }, apply() {} });
  assert.equal(url.build(), 'db=fp1&graph.step=0&graph.rank=2&graph.sel=0%3AModule.x+y');
  off();
  assert.equal(url.build(), 'db=fp1');
  // an unregister of an owner that was replaced leaves the new owner
  const first = { get: () => ({ a: '1' }), apply() {} };
  const unregisterFirst = register('v', first);
  register('v', { get: () => ({ a: '2' }), apply() {} });
  unregisterFirst();
  assert.equal(url.build(), 'db=fp1&v.a=2');
});

test('round trip: parse(build()) gives back the state, with characters that need encoding', () => {
  url.init('');
  const state = { metric: 'norm & max', tags: '["layers.0::layer","a=b"]', value: '3', name: 'Module.x#1/2?%' };
  register('trend', { get: () => state, apply() {} });
  url.setTop({ db: 'f/p:1' });
  const r = url.parse('#' + url.build());
  assert.deepEqual(r.top, { db: 'f/p:1' });
  assert.deepEqual(r.sections.trend, state);
  url.setTop({ db: null });
  assert.equal(url.parse(url.build()).top.db, undefined);
});

test('restore applies a section\'s saved state to its owner; nothing for a section not in the link', async () => {
  const got = [];
  register('graph', { get: () => ({}), apply: async (s) => { got.push(s); } });
  await url.restore('graph', '#db=x&graph.step=1&graph.sel=0%3AA&trend.metric=m');
  await url.restore('graph', '#db=x&trend.metric=m');
  await url.restore('nobody', '#nobody.a=1');
  assert.deepEqual(got, [{ step: '1', sel: '0:A' }]);
});

test('flush writes the fragment with replaceState only when it changes; link() is the page URL with it', () => {
  url.init('');
  replaced.length = 0;
  loc.hash = '';
  register('trend', { get: () => ({ metric: 'norm' }), apply() {} });
  register('graph', { get: () => ({}), apply() {} });
  url.flush();
  assert.deepEqual(replaced, ['#trend.metric=norm']);
  url.flush();
  assert.equal(replaced.length, 1, 'unchanged: no second write');
  assert.equal(url.link(), 'https://host.example/visprobe/?lang=en#trend.metric=norm');
  // nothing to keep: the URL without a fragment
  register('trend', { get: () => ({}), apply() {} });
  url.flush();
  assert.deepEqual(replaced, ['#trend.metric=norm', '/visprobe/?lang=en']);
});

test('changed() is debounced: many changes, one write about 250 ms after the last', async () => {
  url.init('');
  replaced.length = 0;
  let n = 0;
  register('trend', { get: () => ({ n: String(n) }), apply() {} });
  for (n = 1; n <= 5; ++n) url.changed();
  --n;
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(replaced.length, 0, 'not before 250 ms');
  await new Promise((r) => setTimeout(r, 250));
  assert.deepEqual(replaced, ['#trend.n=5']);
});
