import { readFileSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../packageRoot.js';
import { RENDER_SCRIPT_PATH } from '../sdk/renderScriptRoute.js';

/** Where the snippet in docs/rendering.md loads the kit from: adsvc's origin, as a publisher would write it. */
export const THE_ADSVC_ORIGIN_IN_THE_DOCS = 'https://ads.example.com';
/** Where the snippet asks the publisher's own backend for the answer's ad. */
export const THE_BACKEND_PATH_IN_THE_DOCS = '/my-backend/ad-for-this-answer';

/**
 * The snippet a publisher pastes under each answer: the first html block of docs/rendering.md, with
 * the kit loaded from `adsvcOrigin`. The demo's page and the browser tests run it from there, so
 * the code they run is the code the docs tell publishers to copy, and an edit to it is tried by both.
 */
export function documentedSnippet(adsvcOrigin: string): string {
  // It goes into a string in a script: nothing in it may end the string or the script.
  if (!/^https?:\/\/[^\s'"<>\\]+$/.test(adsvcOrigin)) throw new Error(`not an adsvc origin for the snippet: ${adsvcOrigin}`);
  const file = path.join(packageRoot, 'docs', 'rendering.md');
  const block = /```html\n([\s\S]*?)```/.exec(readFileSync(file, 'utf8'));
  const kitUrl = `${THE_ADSVC_ORIGIN_IN_THE_DOCS}${RENDER_SCRIPT_PATH}`;
  if (block === null || !block[1]!.includes(kitUrl) || !block[1]!.includes(THE_BACKEND_PATH_IN_THE_DOCS)) {
    throw new Error(`${file}: its first html block is not the snippet (loading ${kitUrl}, asking ${THE_BACKEND_PATH_IN_THE_DOCS})`);
  }
  return block[1]!.replaceAll(THE_ADSVC_ORIGIN_IN_THE_DOCS, adsvcOrigin);
}
