/**
 * The paths an error's `details` name (a 422 lists every offending field), in the order the answer
 * gives them: a test sorts them where the order is not the rule.
 */
export function detailPaths(response: { json(): { error: { details: { path: string }[] } } }): string[] {
  return response.json().error.details.map((detail) => detail.path);
}
