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
 *   schema's constraints as HTML constraints, numbers as JSON numbers) and every change
 *   writes the arguments into the JSON textarea, which is what is submitted;
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

  function editFields(root) {
    var fieldset = root.querySelector('#edit-fields');
    var textarea = root.querySelector('#edited-arguments');
    if (!fieldset || !textarea) return;
    fieldset.hidden = false;
    var inputs = Array.prototype.slice.call(fieldset.querySelectorAll('[data-arg]'));
    var used = false;
    function check(input) {
      var kind = input.getAttribute('data-kind');
      var message = '';
      if (!input.checkValidity()) message = input.validationMessage;
      else if ((kind === 'number' || kind === 'integer') && input.value !== '' && !JSON_NUMBER.test(input.value)) message = 'Enter a number such as 250 or 12.5.';
      var error = root.querySelector('#' + input.id + '-error');
      if (error) error.textContent = message;
      if (message) input.setAttribute('aria-invalid', 'true'); else input.removeAttribute('aria-invalid');
      return message === '';
    }
    function literal(input) {
      if (input.value === '') return undefined;
      // Strings are quoted; numbers go as typed (the server refuses one that would lose precision); booleans and enum options are JSON already.
      return input.getAttribute('data-kind') === 'string' ? JSON.stringify(input.value) : input.value;
    }
    function write() {
      var parts = [];
      inputs.forEach(function (input) { var text = literal(input); if (text !== undefined) parts.push('  ' + JSON.stringify(input.getAttribute('data-arg')) + ': ' + text); });
      function fromBase64(text) { return new TextDecoder().decode(Uint8Array.from(atob(text), function (c) { return c.charCodeAt(0); })); }
      fieldset.querySelectorAll('[data-raw-arg]').forEach(function (kept) {
        parts.push('  ' + JSON.stringify(fromBase64(kept.getAttribute('data-raw-arg'))) + ': ' + fromBase64(kept.value));
      });
      textarea.value = parts.length === 0 ? '{}' : '{\\n' + parts.join(',\\n') + '\\n}';
    }
    inputs.forEach(function (input) {
      function changed() { used = true; check(input); write(); }
      input.addEventListener('input', changed);
      input.addEventListener('change', changed);
    });
    // Typing into the JSON itself makes it the source again; the fields are not checked then.
    textarea.addEventListener('input', function () { used = false; });
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
