import { useRef } from 'preact/hooks';

/**
 * The Idempotency-Key of a form's create (*Create campaign*, *Add line item*, *Add creative*; the operator's
 * organization, API key, publisher, token and placement: actionForm.ts): a fresh one for each
 * submission, kept while it has not succeeded, so the same body sent again (*Retry* after an answer
 * that never came, or the button pressed again) is the same submission and the API makes it once
 * (docs/management.md "Creating once"). A body changed since is a new submission with a new key:
 * the API refuses a key with another body. After a success the next submission gets a new key,
 * so the same form filled the same way again makes a second one, as asked.
 */
export function useSubmissionKey() {
  const pending = useRef<{ body: string; key: string } | null>(null);
  return {
    keyFor(body: unknown): string {
      const text = JSON.stringify(body);
      if (pending.current?.body !== text) pending.current = { body: text, key: newKey() };
      return pending.current.key;
    },
    succeeded() {
      pending.current = null;
    },
  };
}

/** 128 random bits as hex: crypto.randomUUID exists only in secure contexts, and the console may be served over plain HTTP. */
function newKey(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join('');
}
