/**
 * /assets/passkey.js: the only script the pages load, same origin (CSP script-src 'self'),
 * no inline code. Plain `navigator.credentials` calls rather than a bundled client library:
 * the whole ceremony is two calls and base64url conversions, readable here in full, and
 * nothing has to be built or served from node_modules.
 *
 * - On /passkeys: the "Add a passkey" form registers one. When the approver has a passkey
 *   already, the server's registration options carry \`stepUp\`: one of the existing
 *   passkeys first signs the enrolment claims of this very ceremony (get), then the new one
 *   is created (create) and both go to POST /api/v1/passkeys. A "Remove" form first asks for
 *   the removal challenge (POST /api/v1/passkeys/removal-challenge), has one of the
 *   approver's passkeys sign it, and sends the nonce and assertion with the form.
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
  /** navigator.credentials.get over the server's options; the assertion as the API takes it. */
  const sign = async (publicKey) => {
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
    return assertion;
  };

  const register = document.getElementById('passkey-register');
  if (register !== null) {
    register.hidden = false;
    register.addEventListener('submit', async (event) => {
      event.preventDefault();
      if (!supported()) return status('This browser cannot use passkeys.');
      try {
        const { stepUp: confirm, ...options } = await postJson('/api/v1/passkeys/registration-options', {});
        let stepUp;
        if (confirm !== undefined) {
          status('Confirm with a passkey you already have…');
          stepUp = await sign(confirm.publicKey);
          status('Now create the new passkey…');
        }
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
        const body = { label: register.elements.label.value, response };
        if (stepUp !== undefined) body.stepUp = stepUp;
        await postJson('/api/v1/passkeys', body);
        location.assign('/passkeys?done=registered');
      } catch (error) {
        status('Not registered: ' + error.message);
      }
    });
  }

  for (const form of document.querySelectorAll('form.passkey-remove')) {
    form.addEventListener('submit', async (event) => {
      const field = form.elements.namedItem('stepUp');
      if (field !== null && field.value !== '') return; // signed: let it go
      event.preventDefault();
      if (!supported()) return status('This browser cannot use passkeys; removing one needs one.');
      try {
        status('Confirm the removal with one of your passkeys…');
        const challenge = await postJson('/api/v1/passkeys/removal-challenge', { credentialId: form.elements.credentialId.value });
        const assertion = await sign(challenge.publicKey);
        for (const [name, value] of [['nonce', challenge.nonce], ['stepUp', JSON.stringify(assertion)]]) {
          let input = form.elements.namedItem(name);
          if (input === null) {
            input = document.createElement('input');
            input.type = 'hidden';
            input.name = name;
            form.append(input);
          }
          input.value = value;
        }
        form.requestSubmit();
      } catch (error) {
        status('Not removed: ' + error.message);
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
      const assertion = await sign(publicKey);
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
