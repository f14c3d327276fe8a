/**
 * The site icon: a check mark in a rounded square. Served as `/assets/icon.svg` (linked from
 * every page) and as `/favicon.ico` for clients that ask for it unprompted, so no page load
 * ends in a 404 and a warning log line. Same-origin, so the CSP's `img-src 'self'` allows it.
 */
export const ICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">' +
  '<rect width="32" height="32" rx="7" fill="#1f4e8c"/>' +
  '<path d="M9 16.5l4.5 4.5L23 11.5" fill="none" stroke="#fff" stroke-width="3.5" stroke-linecap="round" stroke-linejoin="round"/>' +
  '</svg>';
