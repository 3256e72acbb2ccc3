'use strict';
// Everything the store gives is text: it is only ever put into the page with textContent, never as markup.
(function () {
  const page = document.body.dataset;
  const actionsEnabled = page.actions === 'enabled';
  const signedIn = page.user !== '';
  const $ = (id) => document.getElementById(id);
  let timer = null;

  function element(tag, text, className) {
    const el = document.createElement(tag);
    if (text !== undefined && text !== null) el.textContent = text;
    if (className) el.className = className;
    return el;
  }

  function account() {
    const box = $('account');
    if (!actionsEnabled) {
      box.textContent = 'Read-only';
      return;
    }
    if (signedIn) {
      box.append('Signed in as ', element('strong', page.user));
      if (page.signIn) {
        const out = element('a', 'Sign out');
        out.href = 'sign-out';
        box.append(out);
      }
    } else if (page.signIn) {
      box.append('Actions need a signed-in user.');
      const link = element('a', 'Sign in');
      link.href = page.signIn;
      link.id = 'sign-in-link';
      box.append(link);
    } else {
      // the application signs users in (its own security): this page cannot
      box.textContent = 'Actions need a user signed in to this application: sign in to it, then reload this page.';
    }
    $('clean-up').hidden = false;
    $('clean-up').disabled = !signedIn;
  }

  function show(text, isError) {
    const box = $('message');
    box.textContent = text;
    box.className = isError ? 'error' : '';
    box.hidden = false;
  }

  function ago(iso) {
    const seconds = Math.max(0, (Date.now() - Date.parse(iso)) / 1000);
    if (seconds < 60) return Math.round(seconds) + ' s ago';
    if (seconds < 3600) return Math.round(seconds / 60) + ' min ago';
    if (seconds < 86400) return (seconds / 3600).toFixed(1) + ' h ago';
    return (seconds / 86400).toFixed(1) + ' days ago';
  }

  function expiresIn(millis) {
    return millis <= 0 ? 'expired' : (millis / 1000).toFixed(1) + ' s';
  }

  function query() {
    const params = new URLSearchParams();
    for (const name of ['prefix', 'node', 'status']) {
      const value = $(name).value;
      if (value) params.set(name, value);
    }
    return params.toString();
  }

  // a failed load replaces "Loading…" (or the last summary) with what went wrong, and its message goes once the
  // locks load again
  let loadFailed = false;

  function loadFailure(text) {
    loadFailed = true;
    show(text, true);
    $('summary').textContent = 'The locks could not be loaded'
      + ($('auto').checked ? ' · trying again every 5 s' : ' · press Refresh to try again');
  }

  async function load() {
    try {
      const response = await fetch('locks.json?' + query(), {headers: {'Accept': 'application/json'}});
      const data = await response.json();
      if (!response.ok) {
        loadFailure(data.error || ('the server answered ' + response.status));
        return;
      }
      if (loadFailed) {
        loadFailed = false;
        $('message').hidden = true;
      }
      render(data);
    } catch (e) {
      loadFailure('Cannot reach the admin page\'s server: ' + e.message);
    }
  }

  function render(data) {
    const nodes = $('node');
    const chosen = nodes.value;
    nodes.replaceChildren(element('option', 'any'));
    nodes.firstChild.value = '';
    for (const node of data.nodes) {
      const option = element('option', node);
      option.value = node;
      nodes.append(option);
    }
    if (chosen && !data.nodes.includes(chosen)) {
      const option = element('option', chosen);
      option.value = chosen;
      nodes.append(option);
    }
    nodes.value = chosen;
    renderWaiters(data);

    const shown = data.locks.length;
    $('summary').textContent = shown + ' of ' + data.total + (data.total === 1 ? ' lock' : ' locks')
      + (data.matching > shown ? ' (the first ' + shown + ' of ' + data.matching + ' matching: narrow the filters)' : '')
      + ' · as of ' + new Date(data.takenAt).toLocaleTimeString()
      + (data.heldTooLongThreshold ? ' · held too long after ' + data.heldTooLongThreshold.replace('PT', '').toLowerCase() : '');
    const body = document.querySelector('#locks tbody');
    body.replaceChildren();
    document.querySelectorAll('.actions-column').forEach((c) => { c.hidden = !actionsEnabled; });
    if (shown === 0) {
      const cell = element('td', data.total === 0 ? 'No live locks.' : 'No lock matches the filters.', 'empty');
      cell.colSpan = 10;
      const row = element('tr');
      row.append(cell);
      body.append(row);
      return;
    }
    for (const lock of data.locks) {
      const row = element('tr');
      row.dataset.key = lock.key;
      row.dataset.node = lock.node;
      row.append(element('td', lock.key, 'key'), element('td', lock.level), element('td', lock.mode === 'PERMIT' ? 'permit (of ' + lock.permits + ')' : lock.mode.toLowerCase()),
        element('td', lock.node), element('td', lock.thread, 'muted'), element('td', String(lock.fencingToken), 'num'));
      const since = element('td', ago(lock.lockedAt));
      since.title = lock.lockedAt;
      const expires = element('td', expiresIn(lock.expiresInMillis), lock.expiresInMillis <= 0 ? 'expired' : '');
      expires.title = lock.expiresAt;
      const status = element('td');
      status.className = 'status';
      status.append(element('span', lock.status === 'ABORT' ? 'abort asked' : 'running',
        'pill ' + lock.status.toLowerCase()));
      if (lock.heldTooLong) status.append(element('span', 'held too long', 'pill too-long'));
      row.append(since, expires, status);
      if (actionsEnabled) {
        const actions = element('td', null, 'actions-column');
        actions.append(button('Abort', 'abort', lock), button('Force release', 'force-release', lock));
        row.append(actions);
      }
      body.append(row);
    }
  }

  /** The fair waiters' requests, per key first in line first; the place counts from 1 within each key. */
  function renderWaiters(data) {
    const waiters = data.waiters || [];
    $('waiting').hidden = waiters.length === 0;
    $('waiting-summary').textContent = data.waiting + (data.waiting === 1 ? ' waiter' : ' waiters')
      + (data.waiting > waiters.length ? ' (the first ' + waiters.length + ' shown)' : '');
    const body = document.querySelector('#waiters tbody');
    body.replaceChildren();
    let lastKey = null;
    let place = 0;
    for (const waiter of waiters) {
      const lineKey = waiter.level + '#' + waiter.key;
      place = lineKey === lastKey ? place + 1 : 1;
      lastKey = lineKey;
      const row = element('tr');
      const since = element('td', ago(waiter.since));
      since.title = waiter.since;
      row.append(element('td', waiter.key, 'key'), element('td', waiter.level),
        element('td', waiter.mode === 'PERMIT' ? 'permit (of ' + waiter.permits + ')' : waiter.mode.toLowerCase()),
        element('td', waiter.node), element('td', waiter.owner, 'muted'), since, element('td', String(place), 'num'));
      body.append(row);
    }
  }

  function button(label, action, lock) {
    const b = element('button', label, 'action ' + action);
    b.type = 'button';
    b.disabled = !signedIn;
    b.title = signedIn ? '' : 'Sign in to act';
    b.addEventListener('click', () => {
      const question = action === 'abort'
        ? 'Ask every holder of "' + lock.key + '" to stop? A holder thread is interrupted, a task\'s work cancelled.'
        : 'Release "' + lock.key + '" for every holder now? They lose the lock; prefer Abort.';
      if (window.confirm(question)) act(action, {key: lock.key, level: lock.level});
    });
    return b;
  }

  async function act(action, fields) {
    try {
      const headers = {'X-Lock-Admin-Token': page.csrf, 'Content-Type': 'application/x-www-form-urlencoded'};
      if (page.hostCsrfHeader) {
        // the application's own security filter (Spring Security) checks its token before the page sees the POST
        headers[page.hostCsrfHeader] = page.hostCsrfToken;
      }
      const response = await fetch('actions/' + action, {
        method: 'POST',
        headers: headers,
        body: new URLSearchParams(fields).toString(),
      });
      const data = await response.json();
      show(data.message || data.error, !response.ok);
    } catch (e) {
      show('The action did not reach the server: ' + e.message, true);
    }
    load();
  }

  function schedule() {
    if (timer) clearInterval(timer);
    timer = $('auto').checked ? setInterval(load, 5000) : null;
  }

  let typing = null;
  $('prefix').addEventListener('input', () => { clearTimeout(typing); typing = setTimeout(load, 250); });
  $('filters').addEventListener('submit', (e) => { e.preventDefault(); load(); });
  $('node').addEventListener('change', load);
  $('status').addEventListener('change', load);
  $('refresh').addEventListener('click', load);
  $('auto').addEventListener('change', schedule);
  $('clean-up').addEventListener('click', () => {
    if (window.confirm('Delete the records of locks that are free or expired?')) act('clean-up', {});
  });
  account();
  schedule();
  load();
})();
