/**
 * /assets/passkey.js: the only script the pages load, same origin (CSP script-src 'self'),
 * no inline code. Plain `navigator.credentials` calls rather than a bundled client library:
 * the whole ceremony is two calls and base64url conversions, readable here in full, and
 * nothing has to be built or served from node_modules.
 *
 * - On /passkeys: the "Add a passkey" form registers one (create → POST /api/v1/passkeys).
 * - On a request page under a passkey rule: a decision form's submit first asks the
 *   server for the challenge (POST /api/v1/passkey-challenge: claims rebuilt from the
 *   ledger), has the passkey sign it with user verification, puts the assertion into the
 *   form and submits it. Without JavaScript such a decision is refused (passkey_required);
 *   forms under other rules never wait for this script.
 */
export const PASSKEY_SCRIPT = `'use strict';
(() => {
  const toBytes = (text) => {
    const base64 = text.replace(/-/g, '+').replace(/_/g, '/');
    const binary = atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4));
    return Uint8Array.from(binary, (ch) => ch.charCodeAt(0));
  };
  const toText = (buffer) => {
    let binary = '';
    for (const byte of new Uint8Array(buffer)) binary += String.fromCharCode(byte);
    return btoa(binary).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
  };
  const postJson = async (url, body) => {
    const response = await fetch(url, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const data = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error((data && data.error && data.error.message) || 'HTTP ' + response.status);
    return data;
  };
  const status = (message) => {
    const box = document.getElementById('passkey-status');
    if (box === null) return;
    box.textContent = message;
    box.hidden = false;
  };
  const supported = () => typeof window.PublicKeyCredential === 'function' && navigator.credentials !== undefined;

  const register = document.getElementById('passkey-register');
  if (register !== null) {
    register.hidden = false;
    register.addEventListener('submit', async (event) => {
      event.preventDefault();
      if (!supported()) return status('This browser cannot use passkeys.');
      try {
        const options = await postJson('/api/v1/passkeys/registration-options', {});
        const credential = await navigator.credentials.create({
          publicKey: {
            ...options,
            challenge: toBytes(options.challenge),
            user: { ...options.user, id: toBytes(options.user.id) },
            excludeCredentials: (options.excludeCredentials || []).map((c) => ({ ...c, id: toBytes(c.id) })),
          },
        });
        const response = {
          id: credential.id,
          rawId: toText(credential.rawId),
          type: credential.type,
          clientExtensionResults: credential.getClientExtensionResults(),
          response: {
            clientDataJSON: toText(credential.response.clientDataJSON),
            attestationObject: toText(credential.response.attestationObject),
            transports: typeof credential.response.getTransports === 'function' ? credential.response.getTransports() : [],
          },
        };
        await postJson('/api/v1/passkeys', { label: register.elements.label.value, response });
        location.assign('/passkeys?done=registered');
      } catch (error) {
        status('Not registered: ' + error.message);
      }
    });
  }

  const marker = document.getElementById('passkey-decision');
  if (marker === null) return;
  const requestId = marker.dataset.requestId;
  document.addEventListener('submit', async (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !(form.getAttribute('action') || '').endsWith('/decision')) return;
    const button = event.submitter;
    const action = button ? button.value : '';
    if (action !== 'approve' && action !== 'deny' && action !== 'edit') return;
    const field = form.elements.namedItem('passkeyAssertion');
    if (field !== null && field.value !== '') return; // signed: let it go
    event.preventDefault();
    if (!supported()) return status('This browser cannot use passkeys; this decision needs one.');
    try {
      const body = { requestId, decision: action === 'deny' ? 'deny' : 'approve' };
      if (action === 'edit') body.editedArguments = form.elements.namedItem('arguments').value;
      status('Confirm with your passkey…');
      const { publicKey } = await postJson('/api/v1/passkey-challenge', body);
      if (publicKey.allowCredentials.length === 0) throw new Error('you have no passkey yet: add one on the Passkeys page');
      const credential = await navigator.credentials.get({
        publicKey: {
          ...publicKey,
          challenge: toBytes(publicKey.challenge),
          allowCredentials: publicKey.allowCredentials.map((c) => ({ ...c, id: toBytes(c.id) })),
        },
      });
      const assertion = {
        credentialId: credential.id,
        authenticatorData: toText(credential.response.authenticatorData),
        clientDataJSON: toText(credential.response.clientDataJSON),
        signature: toText(credential.response.signature),
      };
      if (credential.response.userHandle) assertion.userHandle = toText(credential.response.userHandle);
      let input = field;
      if (input === null) {
        input = document.createElement('input');
        input.type = 'hidden';
        input.name = 'passkeyAssertion';
        form.append(input);
      }
      input.value = JSON.stringify(assertion);
      form.requestSubmit(button);
    } catch (error) {
      status('Not signed: ' + error.message);
    }
  });
})();
`;
