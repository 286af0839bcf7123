/**
 * The page's script, inlined as text (the page loads nothing): renders the model embedded in
 * `#model` into virtualized lists, shows what is selected, highlights chart states, and follows a
 * live session over server-sent events when served. Plain ES5-style JS: no template literals, so it
 * sits in this string unchanged.
 */
export const clientScript = `
(function () {
  'use strict';
  var ROW = 30;
  var EVENT_ROW = 26;
  var M = JSON.parse(document.getElementById('model').textContent);
  var sel = null;
  var rows = [];
  var shownEvents = [];
  var violationsBySeq = {};
  var chartName = 'toolCall';
  var highlighted = {};

  function $(id) { return document.getElementById(id); }
  function esc(value) {
    return String(value).replace(/[&<>"']/g, function (c) {
      return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c];
    });
  }
  function ms(value) {
    if (value < 1000) return Math.max(0, Math.round(value)) + ' ms';
    if (value < 60000) return (value / 1000).toFixed(value < 10000 ? 2 : 1) + ' s';
    return Math.floor(value / 60000) + ' min ' + Math.round((value % 60000) / 1000) + ' s';
  }
  function num(value) { return Number(value || 0).toLocaleString('en-US'); }
  function el(tag, cls, html) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (html !== undefined) node.innerHTML = html;
    return node;
  }
  function callStatus(call) {
    if (call.seqResult === undefined) return { label: 'running', cls: 'run' };
    if (!call.isError) return { label: 'ok', cls: 'ok' };
    if (call.errorCode === 'DENIED' || call.errorCode === 'BLOCKED') return { label: call.errorCode.toLowerCase(), cls: 'deny' };
    return { label: (call.errorCode || 'error').toLowerCase(), cls: 'err' };
  }
  function usageText(usage) {
    if (!usage) return '';
    return num(usage.inputTokens) + ' in · ' + num(usage.outputTokens) + ' out';
  }

  // ---- summary -------------------------------------------------------------------------------
  function renderSummary() {
    var t = M.totals;
    var chips = [
      M.turns.length + (M.turns.length === 1 ? ' turn' : ' turns'),
      t.steps + ' steps',
      t.calls + ' tool calls',
      ms(M.durationMs),
      num(M.events.length) + ' events'
    ];
    if (t.inputTokens || t.outputTokens) chips.splice(4, 0, num(t.inputTokens) + ' → ' + num(t.outputTokens) + ' tokens');
    $('summary').innerHTML = chips.map(function (c) { return '<span class="chip">' + esc(c) + '</span>'; }).join('');
    var badge = $('invariants');
    if (M.violations.length === 0) {
      badge.className = 'badge good';
      badge.textContent = 'invariants hold';
    } else {
      badge.className = 'badge bad';
      badge.textContent = M.violations.length + ' invariant violation' + (M.violations.length === 1 ? '' : 's');
    }
    $('live').hidden = !M.live;
    violationsBySeq = {};
    M.violations.forEach(function (v) { if (v.seq !== null) (violationsBySeq[v.seq] = violationsBySeq[v.seq] || []).push(v); });
    var list = $('violations');
    list.innerHTML = '';
    M.violations.forEach(function (v) {
      var item = el('li', 'violation', '<b>' + esc(v.invariant) + '</b> ' + esc(v.message) + (v.seq === null ? '' : ' <a href="#" data-seq="' + v.seq + '">event #' + v.seq + '</a>'));
      list.appendChild(item);
    });
  }

  // ---- timeline ------------------------------------------------------------------------------
  function buildRows() {
    rows = [];
    M.turns.forEach(function (turn) {
      rows.push({ kind: 'turn', turn: turn });
      var notesAfter = {};
      turn.notes.forEach(function (n) { (notesAfter[n.afterStep] = notesAfter[n.afterStep] || []).push(n); });
      (notesAfter[0] || []).forEach(function (n) { rows.push({ kind: 'note', turn: turn, note: n }); });
      turn.steps.forEach(function (step, index) {
        rows.push({ kind: 'request', turn: turn, step: step });
        step.calls.forEach(function (call) { rows.push({ kind: 'call', turn: turn, step: step, call: call }); });
        (notesAfter[index + 1] || []).forEach(function (n) { rows.push({ kind: 'note', turn: turn, note: n }); });
      });
    });
    $('tl-spacer').style.height = rows.length * ROW + 'px';
    $('tl').style.height = Math.max(150, Math.min(window.innerHeight * 0.58, rows.length * ROW + 2)) + 'px';
  }
  function bar(turn, start, end, cls) {
    var span = Math.max(1, turn.endMs - turn.startMs);
    var left = ((start - turn.startMs) / span) * 100;
    var width = Math.max(0.6, ((end - start) / span) * 100);
    left = Math.min(99.4, Math.max(0, left));
    width = Math.min(100 - left, width);
    return '<div class="track"><div class="bar ' + cls + '" style="left:' + left.toFixed(2) + '%;width:' + width.toFixed(2) + '%"></div></div>';
  }
  function rowHtml(row) {
    var turn = row.turn;
    if (row.kind === 'turn') {
      return '<div class="label"><span class="turn-name">Turn ' + turn.turn + '</span> <span class="end end-' + esc(turn.endKind) + '">' + esc(turn.end) + '</span>' +
        (turn.usage ? ' <span class="tokens">' + usageText(turn.usage) + '</span>' : '') + '</div>' +
        bar(turn, turn.startMs, turn.endMs, 'turnbar') + '<div class="meta">' + ms(turn.endMs - turn.startMs) + '</div>';
    }
    if (row.kind === 'request') {
      var req = row.step.request;
      return '<div class="label indent1"><span class="kind">model</span> step ' + row.step.step + (req.finish ? ' <span class="muted">· ' + esc(req.finish) + '</span>' : '') + '</div>' +
        bar(turn, req.startMs, req.endMs, 'reqbar') + '<div class="meta">' + ms(req.endMs - req.startMs) + '</div>';
    }
    if (row.kind === 'call') {
      var call = row.call;
      var status = callStatus(call);
      return '<div class="label indent2"><span class="tool">' + esc(call.name) + '</span> <span class="id">' + esc(call.callId) + '</span> <span class="pill ' + status.cls + '">' + esc(status.label) + '</span></div>' +
        bar(turn, call.startMs, call.endMs, 'callbar ' + status.cls) + '<div class="meta">' + ms(call.endMs - call.startMs) + '</div>';
    }
    var n = row.note;
    return '<div class="label indent1 note"><span class="kind ' + n.kind + '">' + n.kind + '</span> <span class="muted">' + esc(n.source) + '</span> ' + esc(n.text.slice(0, 120)) + '</div>';
  }
  function isSelected(row) {
    if (!sel) return false;
    if (sel.kind === 'call') return row.kind === 'call' && row.call.key === sel.key;
    if (sel.kind === 'turn') return row.kind === 'turn' && row.turn.turn === sel.turn;
    if (sel.kind === 'request') return row.kind === 'request' && row.turn.turn === sel.turn && row.step.step === sel.step;
    return false;
  }
  function renderTimeline() {
    var box = $('tl');
    var first = Math.max(0, Math.floor(box.scrollTop / ROW) - 4);
    var last = Math.min(rows.length, first + Math.ceil(box.clientHeight / ROW) + 8);
    var html = '';
    for (var i = first; i < last; i++) {
      var row = rows[i];
      html += '<div class="row ' + row.kind + (isSelected(row) ? ' selected' : '') + '" data-row="' + i + '" style="top:' + i * ROW + 'px">' + rowHtml(row) + '</div>';
    }
    $('tl-rows').innerHTML = html;
  }

  // ---- details -------------------------------------------------------------------------------
  function phase(name, verdict, who, body, tone) {
    return '<li class="phase ' + (tone || '') + '"><div class="phase-head"><span class="phase-name">' + esc(name) + '</span>' +
      '<span class="verdict">' + esc(verdict) + '</span>' +
      (who ? '<span class="who">decided by <b>' + esc(who) + '</b></span>' : '<span class="who muted">default</span>') + '</div>' +
      (body ? '<div class="phase-body">' + body + '</div>' : '') + '</li>';
  }
  function pre(text) { return '<pre>' + esc(text) + '</pre>'; }
  function callDetails(call) {
    var by = call.decidedBy || {};
    var status = callStatus(call);
    var denied = call.errorCode === 'DENIED';
    var html = '<div class="detail-head"><h3><span class="tool">' + esc(call.name) + '</span> <span class="id">' + esc(call.callId) + '</span></h3>' +
      '<span class="pill ' + status.cls + '">' + esc(status.label) + '</span></div>' +
      '<p class="muted">turn ' + call.turn + ' · step ' + call.step + ' · ' + ms(call.endMs - call.startMs) + ' · events #' + call.seqCall + (call.seqResult === undefined ? '' : '–#' + call.seqResult) + '</p>';
    html += '<ol class="phases">';
    if (call.rewrites.length > 0) {
      var body = call.rewrites.map(function (r) { return '<div>rewritten by <b>' + esc(r.by) + '</b>' + (r.reason ? ': ' + esc(r.reason) : '') + '</div>'; }).join('') +
        (call.original !== undefined ? '<div class="muted">the model wrote</div>' + pre(call.original) : '') + '<div class="muted">it ran with</div>' + pre(call.arguments);
      html += phase('prepare', 'input rewritten', call.rewrites[call.rewrites.length - 1].by, body, 'changed');
    } else {
      html += phase('prepare', 'input as the model wrote it', null, pre(call.arguments));
    }
    var asked = by.approval !== undefined;
    if (by.preExecute !== undefined) html += phase('pre-execute', asked ? 'asked for approval' : (denied ? 'denied' : 'decided'), by.preExecute, denied && !asked && by.guard === undefined ? pre(call.result) : '', asked ? 'changed' : 'stopped');
    else html += phase('pre-execute', 'allowed', null, '');
    if (asked) html += phase('approval', denied ? 'rejected' : 'allowed once', by.approval, denied ? pre(call.result) : '', denied ? 'stopped' : 'changed');
    var stoppedBefore = denied && by.guard === undefined;
    if (by.guard !== undefined) html += phase('guards', 'denied', by.guard, pre(call.result), 'stopped');
    else if (!stoppedBefore) html += phase('guards', 'passed', null, '');
    if (!denied) {
      html += phase('body', call.isError && !by.postExecute ? 'failed' : 'ran', null, '', call.isError && !by.postExecute ? 'stopped' : '');
      if (by.postExecute !== undefined) html += phase('post-execute', call.errorCode === 'BLOCKED' ? 'blocked' : 'result replaced', by.postExecute, '', 'changed');
      else html += phase('post-execute', 'accepted', null, '');
    }
    html += '</ol>';
    html += '<h4>Result</h4>' + (call.errorCode ? '<p><span class="pill ' + status.cls + '">' + esc(call.errorCode) + '</span></p>' : '') + pre(call.result || '(empty)');
    html += hooksHtml(call.hooks);
    return html;
  }
  function hooksHtml(hooks) {
    if (hooks.length === 0) return '';
    return '<h4>Hooks that ran</h4><table class="hooks"><thead><tr><th>handler</th><th>event</th><th>decision</th><th>exit</th><th>took</th></tr></thead><tbody>' +
      hooks.map(function (h) {
        var bad = h.decision === 'error' || h.decision === 'timeout' || (h.exitCode !== undefined && h.exitCode !== 0 && h.exitCode !== 2);
        return '<tr class="' + (bad ? 'hook-failed' : '') + '"><td class="id">' + esc(h.handlerId) + '</td><td>' + esc(h.event) + '</td><td><span class="pill ' + (bad ? 'err' : (h.decision === 'deny' || h.decision === 'block' ? 'deny' : 'neutral')) + '">' + esc(h.decision) + '</span></td><td>' + (h.exitCode === undefined ? '–' : h.exitCode) + '</td><td>' + ms(h.durationMs) + '</td></tr>' +
          (h.output || h.notes.length ? '<tr class="hook-output"><td colspan="5">' + (h.output ? pre(h.output) : '') + h.notes.map(function (n) { return '<div class="muted">' + esc(n) + '</div>'; }).join('') + '</td></tr>' : '');
      }).join('') + '</tbody></table>';
  }
  function turnDetails(turn) {
    var html = '<div class="detail-head"><h3>Turn ' + turn.turn + '</h3><span class="end end-' + esc(turn.endKind) + '">' + esc(turn.end) + '</span></div>' +
      '<p class="muted">' + esc(turn.trigger) + ' · ' + turn.steps.length + ' steps · ' + ms(turn.endMs - turn.startMs) + (turn.decidedBy ? ' · decided by <b>' + esc(turn.decidedBy) + '</b>' : '') + '</p>';
    if (turn.prompt) html += '<h4>Prompt</h4>' + pre(turn.prompt);
    if (turn.usage) {
      html += '<h4>Usage</h4><table class="usage"><thead><tr><th>step</th><th>input</th><th>output</th></tr></thead><tbody>' +
        turn.steps.map(function (s) { var u = s.request.usage || {}; return '<tr><td>' + s.step + '</td><td>' + num(u.inputTokens) + '</td><td>' + num(u.outputTokens) + '</td></tr>'; }).join('') +
        '<tr class="total"><td>turn</td><td>' + num(turn.usage.inputTokens) + '</td><td>' + num(turn.usage.outputTokens) + '</td></tr></tbody></table>';
    }
    if (turn.notes.length) {
      html += '<h4>Contexts, steering and prompts</h4><ul class="notes">' + turn.notes.map(function (n) {
        return '<li><span class="kind ' + n.kind + '">' + n.kind + '</span> ' + (n.afterStep === 0 ? 'before step 1' : 'after step ' + n.afterStep) + ' · <span class="muted">' + esc(n.source) + '</span>' + (n.decidedBy ? ' · decided by <b>' + esc(n.decidedBy) + '</b>' : '') + pre(n.text) + '</li>';
      }).join('') + '</ul>';
    }
    html += hooksHtml(turn.hooks);
    return html;
  }
  function requestDetails(turn, step) {
    var req = step.request;
    return '<div class="detail-head"><h3>Model request · turn ' + turn.turn + ', step ' + step.step + '</h3></div>' +
      '<p class="muted">' + ms(req.endMs - req.startMs) + (req.finish ? ' · finish ' + esc(req.finish) : '') + (req.usage ? ' · ' + usageText(req.usage) : '') + '</p>' +
      (req.text ? pre(req.text) : '<p class="muted">no text</p>') +
      (step.calls.length ? '<h4>Calls</h4><ul class="notes">' + step.calls.map(function (c) { return '<li><span class="tool">' + esc(c.name) + '</span> <span class="id">' + esc(c.callId) + '</span> <span class="pill ' + callStatus(c).cls + '">' + esc(callStatus(c).label) + '</span></li>'; }).join('') + '</ul>' : '');
  }
  function eventDetails(seq) {
    var row = M.events[seq];
    var html = '<div class="detail-head"><h3>Event #' + seq + '</h3><span class="type">' + esc(row[1]) + '</span></div><p class="muted">+' + ms(row[2]) + (row[3] ? ' · turn ' + row[3] : '') + '</p>' + pre(row[4]);
    (violationsBySeq[seq] || []).forEach(function (v) { html += '<p class="violation"><b>' + esc(v.invariant) + '</b> ' + esc(v.message) + '</p>'; });
    return html;
  }
  function findCall(key) {
    for (var i = 0; i < rows.length; i++) if (rows[i].kind === 'call' && rows[i].call.key === key) return rows[i];
    return null;
  }
  function findTurn(number) {
    for (var i = 0; i < M.turns.length; i++) if (M.turns[i].turn === number) return M.turns[i];
    return null;
  }
  function renderDetails() {
    var box = $('details-body');
    if (!sel) { box.innerHTML = '<p class="placeholder">Select a tool call, a turn or an event to see what happened to it and who decided.</p>'; highlight(null, []); return; }
    if (sel.kind === 'call') {
      var row = findCall(sel.key);
      if (!row) return;
      box.innerHTML = callDetails(row.call);
      highlight('toolCall', row.call.states);
    } else if (sel.kind === 'turn') {
      var turn = findTurn(sel.turn);
      if (!turn) return;
      box.innerHTML = turnDetails(turn);
      highlight('turn', turnStates(turn));
    } else if (sel.kind === 'request') {
      var t = findTurn(sel.turn);
      var step = t && t.steps.filter(function (s) { return s.step === sel.step; })[0];
      if (!step) return;
      box.innerHTML = requestDetails(t, step);
      highlight('turn', ['open', 'step', 'drainSteering', 'preStep', 'inFlight', 'requesting', 'answered']);
    } else {
      box.innerHTML = eventDetails(sel.seq);
      highlight(chartFor(M.events[sel.seq][1]), statesFor(M.events[sel.seq][1]));
    }
  }
  function turnStates(turn) {
    var states = ['opening', 'open', 'promptSubmit', 'closing', 'flushing', 'done'];
    if (turn.steps.length) states.push('step', 'drainSteering', 'preStep', 'inFlight', 'requesting', 'answered', 'postStep', 'continuation', 'turnStop', 'deciding');
    if (turn.steps.some(function (s) { return s.calls.length > 0; })) states.push('tools', 'running', 'draining', 'postBatchSteering');
    if (turn.endKind === 'error') states.push('requestError');
    return states;
  }
  function chartFor(type) {
    if (type === 'tool/call' || type === 'tool/result' || type.indexOf('hook/') === 0) return 'toolCall';
    if (type.indexOf('inbox/') === 0) return 'agent';
    return 'turn';
  }
  function statesFor(type) {
    var table = {
      'turn/start': ['opening'], 'turn/end': ['closing'], 'user/message': ['promptSubmit', 'running'], 'prompt/blocked': ['promptSubmit', 'running'],
      'step/start': ['step', 'preStep'], 'step/end': ['postStep', 'deciding'], 'assistant/message': ['inFlight', 'answered'],
      'steering/message': ['drainSteering', 'postBatchSteering'], 'context/message': ['step', 'answered'],
      'tool/call': ['preparing', 'sealing'], 'tool/result': ['notifying', 'done'], 'hook/invoked': ['preExecute', 'postExecute'], 'hook/result': ['preExecute', 'postExecute'],
      'inbox/accepted': ['idle', 'claiming'], 'inbox/discarded': ['settling']
    };
    return table[type] || [];
  }

  // ---- charts --------------------------------------------------------------------------------
  function showChart(name) {
    chartName = name;
    var tabs = document.querySelectorAll('#chart-tabs button');
    for (var i = 0; i < tabs.length; i++) tabs[i].classList.toggle('active', tabs[i].getAttribute('data-chart') === name);
    var charts = document.querySelectorAll('.chart');
    for (var j = 0; j < charts.length; j++) charts[j].hidden = charts[j].getAttribute('data-chart') !== name;
  }
  function highlight(name, states) {
    highlighted = {};
    states.forEach(function (s) { highlighted[s] = true; });
    var charts = document.querySelectorAll('.chart');
    for (var c = 0; c < charts.length; c++) {
      var chart = charts[c];
      var active = chart.getAttribute('data-chart') === name && states.length > 0;
      chart.classList.toggle('dim', active);
      var groups = chart.querySelectorAll('g.node, g.cluster');
      for (var i = 0; i < groups.length; i++) {
        var title = groups[i].querySelector('title');
        var id = title ? title.textContent.replace(/^cluster_/, '') : '';
        var key = id.split('.').pop();
        groups[i].classList.toggle('hl', active && id.indexOf('.') > 0 && highlighted[key] === true);
      }
    }
    if (name) showChart(name);
    var first = document.querySelector('.chart.dim g.node.hl');
    if (first) {
      var box = document.querySelector('.chart-box');
      var top = first.getBoundingClientRect().top - box.getBoundingClientRect().top + box.scrollTop;
      box.scrollTop = Math.max(0, top - 40);
    }
    var label = $('chart-caption');
    label.textContent = name && states.length ? 'Highlighted: the ' + name + ' states the selection went through, as far as the log shows.' : 'Select something to highlight the states it went through.';
  }

  // ---- events --------------------------------------------------------------------------------
  function filterEvents() {
    var text = $('filter').value.trim().toLowerCase();
    var group = $('type-filter').value;
    shownEvents = [];
    for (var i = 0; i < M.events.length; i++) {
      var e = M.events[i];
      if (group === 'violations' ? !violationsBySeq[e[0]] : group && e[1].indexOf(group) !== 0) continue;
      if (text && (e[1] + ' ' + e[4] + ' #' + e[0]).toLowerCase().indexOf(text) < 0) continue;
      shownEvents.push(i);
    }
    $('ev-spacer').style.height = shownEvents.length * EVENT_ROW + 'px';
    $('ev').style.height = Math.max(120, Math.min(window.innerHeight * 0.46, M.events.length * EVENT_ROW + 2)) + 'px';
    $('ev-count').textContent = num(shownEvents.length) + ' of ' + num(M.events.length);
    renderEvents();
  }
  function renderEvents() {
    var box = $('ev');
    var first = Math.max(0, Math.floor(box.scrollTop / EVENT_ROW) - 6);
    var last = Math.min(shownEvents.length, first + Math.ceil(box.clientHeight / EVENT_ROW) + 12);
    var html = '';
    for (var i = first; i < last; i++) {
      var e = M.events[shownEvents[i]];
      var bad = violationsBySeq[e[0]];
      var selected = sel && sel.kind === 'event' && sel.seq === e[0];
      html += '<div class="erow' + (bad ? ' bad' : '') + (selected ? ' selected' : '') + '" data-seq="' + e[0] + '" style="top:' + i * EVENT_ROW + 'px">' +
        '<span class="seq">' + e[0] + '</span><span class="time">+' + ms(e[2]) + '</span><span class="type t-' + esc(e[1].split('/')[0]) + '">' + esc(e[1]) + '</span><span class="sum">' + esc(e[4]) + (bad ? ' <b class="vmark">⚠ ' + esc(bad[0].invariant) + '</b>' : '') + '</span></div>';
    }
    $('ev-rows').innerHTML = html;
  }
  function goToEvent(seq) {
    sel = { kind: 'event', seq: seq };
    var index = shownEvents.indexOf(seq);
    if (index < 0) { $('filter').value = ''; $('type-filter').value = ''; filterEvents(); index = shownEvents.indexOf(seq); }
    $('ev').scrollTop = Math.max(0, index * EVENT_ROW - 60);
    refresh();
  }

  // ---- wiring --------------------------------------------------------------------------------
  function refresh() { renderTimeline(); renderEvents(); renderDetails(); }
  function renderAll() { renderSummary(); buildRows(); filterEvents(); refresh(); }
  $('tl').addEventListener('scroll', function () { window.requestAnimationFrame(renderTimeline); });
  $('ev').addEventListener('scroll', function () { window.requestAnimationFrame(renderEvents); });
  $('tl-rows').addEventListener('click', function (event) {
    var node = event.target.closest('.row');
    if (!node) return;
    var row = rows[Number(node.getAttribute('data-row'))];
    if (row.kind === 'call') sel = { kind: 'call', key: row.call.key };
    else if (row.kind === 'turn') sel = { kind: 'turn', turn: row.turn.turn };
    else if (row.kind === 'request') sel = { kind: 'request', turn: row.turn.turn, step: row.step.step };
    else { goToEvent(row.note.seq); return; }
    refresh();
  });
  $('ev-rows').addEventListener('click', function (event) {
    var node = event.target.closest('.erow');
    if (node) goToEvent(Number(node.getAttribute('data-seq')));
  });
  $('violations').addEventListener('click', function (event) {
    var link = event.target.closest('a[data-seq]');
    if (!link) return;
    event.preventDefault();
    goToEvent(Number(link.getAttribute('data-seq')));
  });
  var pending = 0;
  $('filter').addEventListener('input', function () { clearTimeout(pending); pending = setTimeout(filterEvents, 120); });
  $('type-filter').addEventListener('change', filterEvents);
  $('chart-tabs').addEventListener('click', function (event) {
    var button = event.target.closest('button');
    if (button) showChart(button.getAttribute('data-chart'));
  });
  renderAll();
  showChart(chartName);
  if (M.live && /^https?:$/.test(location.protocol) && window.EventSource) {
    var source = new EventSource('events');
    source.onmessage = function (message) {
      M = JSON.parse(message.data);
      renderAll();
    };
  }
})();
`;
