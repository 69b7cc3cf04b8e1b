import { useLayoutEffect, useRef } from 'preact/hooks';

/**
 * Forms holding typed input that is not saved. Leaving the page loses it (con43: a typed *Add a
 * line item* was gone after the Campaigns link and Back), so while any is held, closing or
 * reloading the tab asks first (beforeunload: the browser's own question) and so do the console's
 * router before it follows a link, Back or Forward (route.ts) and *Sign out* (consoleShell.ts),
 * with LEAVE_QUESTION. A form typed in and then saved (or sent: a match preview asked), or never
 * typed in, asks nothing. Every form a person types into marks itself here (con45: sign-out, the
 * match preview and the operator's forms lost typed input without a word).
 */
const unsaved = new Set<object>();

function askBeforeUnload(event: BeforeUnloadEvent): void {
  event.preventDefault();
  // Chromium before 119 and Safari want returnValue set as well as preventDefault.
  event.returnValue = '';
}

function update(): void {
  // Listened to only while needed: a page with a beforeunload listener is kept out of the back/forward cache.
  if (unsaved.size > 0) addEventListener('beforeunload', askBeforeUnload);
  else removeEventListener('beforeunload', askBeforeUnload);
}

/** The question asked before a link, Back, Forward or *Sign out* would drop typed input. */
const LEAVE_QUESTION = 'Leave this page? What you typed and did not save will be lost.';

/** Whether to go ahead with leaving: nothing typed is held, or the person said to leave anyway. */
export function mayLeave(): boolean {
  return unsaved.size === 0 || confirm(LEAVE_QUESTION);
}

/** Marks the calling form as holding unsaved input while `dirty`, and never once it is gone. */
export function useUnsavedInput(dirty: boolean): void {
  const form = useRef({});
  // As the page is drawn, not after: a link clicked right after a save must find the form saved.
  useLayoutEffect(() => {
    if (dirty) unsaved.add(form.current);
    else unsaved.delete(form.current);
    update();
    return () => {
      unsaved.delete(form.current);
      update();
    };
  }, [dirty]);
}

/**
 * `values` differ from those last `saved()` (or first given): the form holds input not saved. A
 * form calls saved() after its write succeeds; typing back what was there is no change.
 */
export function useChangedSinceSaved(values: unknown): { changed: boolean; saved(): void } {
  const baseline = useRef(JSON.stringify(values));
  const current = JSON.stringify(values);
  const changed = current !== baseline.current;
  useUnsavedInput(changed);
  return { changed, saved: () => { baseline.current = current; } };
}
