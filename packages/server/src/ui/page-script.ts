/**
 * The one script, served from /assets/page.js (the CSP allows only same-origin script;
 * nothing inline). Every page works without it; it adds:
 * - on the request list, live updates: an EventSource on the section's `data-live` URL
 *   says when the listing changed; the script fetches the page again and swaps the list,
 *   keeping the filters, and announces it in the `#live-status` region;
 * - on a request page, the same for the request: when it is decided, runs, fails, expires
 *   or is edited, the script fetches the page again and swaps the main content, unless the
 *   approver has typed into a field (then it says so and keeps what they typed);
 * - next to every shortened digest (`[data-copy]`), a Copy button;
 * - on a request page's edit form, the fields generated from the tool's input schema
 *   (`#edit-fields`, hidden without the script): each is checked as it is typed (the
 *   schema's constraints as HTML constraints, numbers as JSON numbers); fields and the
 *   JSON textarea are two views of one state (each follows the other as it is typed; JSON
 *   that does not parse is flagged and kept as typed); the textarea is what is submitted;
 * - every `<time datetime>` (server text: UTC) shown in the viewer's time zone, same layout
 *   (`2026-06-01 14:00:00 CEST`), with the UTC text kept in its title for hover; the
 *   live-update notices use the same format.
 * Plain ES2020, no dependencies; text is only ever set with textContent, never markup
 * built from data (the swapped list is the server's own escaped HTML, parsed inertly).
 */
export const PAGE_SCRIPT = `'use strict';
(function () {
  function pad(n) { return (n < 10 ? '0' : '') + n; }

  function localTime(date) {
    var zone = '';
    try {
      var part = new Intl.DateTimeFormat(undefined, { timeZoneName: 'short' }).formatToParts(date).filter(function (p) { return p.type === 'timeZoneName'; })[0];
      if (part) zone = ' ' + part.value;
    } catch (e) { zone = ''; }
    return date.getFullYear() + '-' + pad(date.getMonth() + 1) + '-' + pad(date.getDate()) + ' ' +
      pad(date.getHours()) + ':' + pad(date.getMinutes()) + ':' + pad(date.getSeconds()) + zone;
  }

  function localizeTimes(root) {
    root.querySelectorAll('time[datetime]').forEach(function (element) {
      var date = new Date(element.getAttribute('datetime') || '');
      if (isNaN(date.getTime())) return;
      if (!element.title) element.title = element.textContent || '';
      element.textContent = localTime(date);
    });
  }

  function addCopyButtons(root) {
    root.querySelectorAll('[data-copy]').forEach(function (holder) {
      if (holder.querySelector('button.copy') || !navigator.clipboard) return;
      var button = document.createElement('button');
      button.type = 'button';
      button.className = 'copy';
      button.textContent = 'Copy';
      button.setAttribute('aria-label', 'Copy the full value');
      button.addEventListener('click', function () {
        navigator.clipboard.writeText(holder.getAttribute('data-copy') || '').then(
          function () { button.textContent = 'Copied'; setTimeout(function () { button.textContent = 'Copy'; }, 1500); },
          function () { button.textContent = 'Copy failed'; }
        );
      });
      holder.appendChild(button);
    });
  }

  function follow(section) {
    var status = document.getElementById('live-status');
    var url = section.getAttribute('data-live');
    if (!url || typeof EventSource === 'undefined') return;
    var source = new EventSource(url);
    source.addEventListener('changed', function () {
      source.close();
      fetch(location.href, { credentials: 'same-origin', cache: 'no-store' })
        .then(function (response) { if (!response.ok) throw new Error(String(response.status)); return response.text(); })
        .then(function (text) {
          var next = new DOMParser().parseFromString(text, 'text/html').getElementById('requests');
          if (!next) throw new Error('no list');
          var before = section.querySelectorAll('tr[data-request]').length;
          section.replaceChildren.apply(section, Array.prototype.slice.call(next.childNodes).map(function (n) { return document.importNode(n, true); }));
          section.setAttribute('data-live', next.getAttribute('data-live') || '');
          var after = section.querySelectorAll('tr[data-request]').length;
          if (status) status.textContent = 'List updated' + (after > before ? ': ' + (after - before) + ' new' : '') + ' at ' + localTime(new Date()) + '.';
          addCopyButtons(section);
          localizeTimes(section);
          follow(section);
        })
        .catch(function () { if (status) status.textContent = 'Live updates stopped: refresh the page.'; });
    });
    source.addEventListener('unavailable', function () {
      source.close();
      if (status) status.textContent = 'Live updates stopped (store unavailable): refresh the page.';
    });
  }

  var JSON_NUMBER = /^-?(0|[1-9][0-9]*)([.][0-9]+)?([eE][+-]?[0-9]+)?$/;

  // Hidden or control characters a text field would show as nothing: such a string is edited in the JSON, with its escapes.
  var HIDDEN = /[\\u0000-\\u001f\\u007f-\\u009f\\u00ad\\u061c\\u180e\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u2069\\ufeff]/;

  function skipSpace(text, i) { while (i < text.length && ' \\t\\n\\r'.indexOf(text[i]) !== -1) i++; return i; }
  /** i at a string's opening quote: the index just past its closing quote. */
  function stringEnd(text, i) {
    for (var j = i + 1; j < text.length; j++) { if (text[j] === '\\\\') j++; else if (text[j] === '"') return j + 1; }
    return text.length;
  }
  function valueEnd(text, i) {
    if (text[i] === '"') return stringEnd(text, i);
    if (text[i] === '{' || text[i] === '[') {
      var depth = 0;
      for (var j = i; j < text.length; j++) {
        if (text[j] === '"') { j = stringEnd(text, j) - 1; continue; }
        if (text[j] === '{' || text[j] === '[') depth++;
        else if (text[j] === '}' || text[j] === ']') { depth--; if (depth === 0) return j + 1; }
      }
      return text.length;
    }
    var k = i;
    while (k < text.length && ',}] \\t\\n\\r'.indexOf(text[k]) === -1) k++;
    return k;
  }
  /**
   * The arguments as the edit form's one state: the top-level members of the JSON text, in
   * order, each with the exact text of its key and value (numbers keep every digit, nested
   * values their bytes), or { error } when the text is not a JSON object the server would
   * take (it refuses duplicate keys too).
   */
  function readMembers(text) {
    var parsed;
    try { parsed = JSON.parse(text); } catch (e) { return { error: e.message }; }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return { error: 'the arguments must be a JSON object { … }' };
    var list = [];
    var i = skipSpace(text, 0) + 1;
    for (;;) {
      i = skipSpace(text, i);
      if (text[i] !== '"') break;
      var keyEnd = stringEnd(text, i);
      var key = text.slice(i, keyEnd);
      var name = JSON.parse(key);
      if (list.some(function (m) { return m.name === name; })) return { error: 'the key ' + key + ' appears twice' };
      i = skipSpace(text, skipSpace(text, keyEnd) + 1);
      var end = valueEnd(text, i);
      list.push({ name: name, key: key, raw: text.slice(i, end) });
      i = skipSpace(text, end);
      if (text[i] === ',') i++;
    }
    return { list: list };
  }
  function writeMembers(list) {
    return list.length === 0 ? '{}' : '{\\n' + list.map(function (m) { return '  ' + m.key + ': ' + m.raw; }).join(',\\n') + '\\n}';
  }

  /**
   * The fields and the JSON textarea are two views of one state, the list of members:
   * typing into the JSON re-reads it and every field follows (a value a field cannot hold
   * disables that field and says so); changing a field rewrites only its own member and
   * writes the JSON again, every other member's text unchanged. JSON that does not parse
   * is flagged as such and kept exactly as typed; the fields wait until it parses.
   */
  function editFields(root) {
    var fieldset = root.querySelector('#edit-fields');
    var textarea = root.querySelector('#edited-arguments');
    if (!fieldset || !textarea) return;
    fieldset.hidden = false;
    var jsonError = root.querySelector('#edited-arguments-error');
    var inputs = Array.prototype.slice.call(fieldset.querySelectorAll('[data-arg]'));
    var state = [];
    var used = false;
    function showError(input, message) {
      var error = root.querySelector('#' + input.id + '-error');
      if (error) error.textContent = message;
      if (message) input.setAttribute('aria-invalid', 'true'); else input.removeAttribute('aria-invalid');
    }
    function check(input) {
      if (input.disabled) return true;
      var kind = input.getAttribute('data-kind');
      var message = '';
      if (!input.checkValidity()) message = input.validationMessage;
      else if ((kind === 'number' || kind === 'integer') && input.value !== '' && !JSON_NUMBER.test(input.value)) message = 'Enter a number such as 250 or 12.5.';
      showError(input, message);
      return message === '';
    }
    function literal(input) {
      if (input.value === '') return undefined;
      // Strings are quoted; numbers go as typed (the server refuses one that would lose precision); booleans and enum options are JSON already.
      return input.getAttribute('data-kind') === 'string' ? JSON.stringify(input.value) : input.value;
    }
    /** The field's value for a member's JSON text, or undefined when the field cannot hold it. */
    function fieldValue(input, raw) {
      var kind = input.getAttribute('data-kind');
      var value = JSON.parse(raw);
      if (kind === 'string') return typeof value === 'string' && !HIDDEN.test(value) ? value : undefined;
      if (kind === 'number' || kind === 'integer') return typeof value === 'number' && JSON_NUMBER.test(raw) ? raw : undefined;
      if (kind === 'boolean') return typeof value === 'boolean' ? String(value) : undefined;
      var option = JSON.stringify(value);
      return Array.prototype.some.call(input.options, function (o) { return o.value === option; }) ? option : undefined;
    }
    function follow(input) {
      var name = input.getAttribute('data-arg');
      var member = state.filter(function (m) { return m.name === name; })[0];
      var value = member === undefined ? '' : fieldValue(input, member.raw);
      input.disabled = value === undefined;
      // Emptied, so the field never shows a value the JSON no longer holds.
      if (value === undefined) { input.value = ''; showError(input, 'Set in the JSON below to ' + member.raw.slice(0, 60) + ', which this field cannot hold: change it there.'); return; }
      if (input.value !== value) input.value = value;
      if (input.value !== value && input.tagName === 'SELECT') { input.disabled = true; showError(input, 'Set in the JSON below: change it there.'); return; }
      check(input);
    }
    function fromJson() {
      var read = readMembers(textarea.value);
      fieldset.disabled = read.error !== undefined;
      if (read.error !== undefined) {
        textarea.setAttribute('aria-invalid', 'true');
        if (jsonError) jsonError.textContent = 'Not valid JSON (' + read.error + '). Your text is kept; the fields above follow once it is valid.';
        return;
      }
      textarea.removeAttribute('aria-invalid');
      if (jsonError) jsonError.textContent = '';
      state = read.list;
      inputs.forEach(follow);
    }
    function fromField(input) {
      var name = input.getAttribute('data-arg');
      var text = literal(input);
      var at = -1;
      state.forEach(function (m, i) { if (m.name === name) at = i; });
      if (text === undefined) { if (at !== -1) state.splice(at, 1); }
      else if (at !== -1) state[at].raw = text;
      else state.push({ name: name, key: JSON.stringify(name), raw: text });
      textarea.value = writeMembers(state);
    }
    inputs.forEach(function (input) {
      function changed() { used = true; check(input); fromField(input); }
      input.addEventListener('input', changed);
      input.addEventListener('change', changed);
    });
    textarea.addEventListener('input', function () { used = false; fromJson(); });
    // The JSON as the page holds it (after a refused edit, what the approver typed) is where the fields start.
    fromJson();
    var form = fieldset.closest('form');
    if (form) form.addEventListener('submit', function (event) {
      if (!used) return;
      var bad = inputs.filter(function (input) { return !check(input); });
      if (bad.length > 0) { event.preventDefault(); bad[0].focus(); }
    });
  }

  function typedSomething(root) {
    return Array.prototype.some.call(root.querySelectorAll('input[type=text], textarea'), function (field) { return field.value !== field.defaultValue; });
  }

  function followRequest(holder) {
    var url = holder.getAttribute('data-follow');
    if (!url || typeof EventSource === 'undefined') return;
    var source = new EventSource(url);
    source.addEventListener('changed', function () {
      source.close();
      var main = document.getElementById('main');
      if (!main) return;
      if (typedSomething(main)) { holder.textContent = 'This request changed: reload the page to see it (what you typed is kept until then).'; return; }
      fetch(location.href, { credentials: 'same-origin', cache: 'no-store' })
        .then(function (response) { if (!response.ok) throw new Error(String(response.status)); return response.text(); })
        .then(function (text) {
          var next = new DOMParser().parseFromString(text, 'text/html').getElementById('main');
          if (!next) throw new Error('no page');
          main.replaceChildren.apply(main, Array.prototype.slice.call(next.childNodes).map(function (n) { return document.importNode(n, true); }));
          var banner = document.getElementById('state-banner');
          var again = document.getElementById('request-follow');
          if (again) again.textContent = 'Updated at ' + localTime(new Date()) + (banner ? ': ' + (banner.querySelector('strong') || banner).textContent : '') + '.';
          addCopyButtons(main);
          localizeTimes(main);
          editFields(main);
          if (again) followRequest(again);
        })
        .catch(function () { holder.textContent = 'Live updates stopped: refresh the page.'; });
    });
    source.addEventListener('unavailable', function () {
      source.close();
      holder.textContent = 'Live updates stopped (store unavailable): refresh the page.';
    });
  }

  function start() {
    addCopyButtons(document);
    localizeTimes(document);
    editFields(document);
    var section = document.getElementById('requests');
    if (section) follow(section);
    var request = document.getElementById('request-follow');
    if (request) followRequest(request);
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
`;
