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
    var section = document.getElementById('requests');
    if (section) follow(section);
    var request = document.getElementById('request-follow');
    if (request) followRequest(request);
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
`;
