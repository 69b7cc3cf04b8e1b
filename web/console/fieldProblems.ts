/** A problem with one field, under the API's detail path of that field (campaign.name, reason). */
export interface ErrorDetail {
  path: string;
  message: string;
}

/**
 * What is wrong with a form: a message for the whole and the problems of its fields, which Field
 * shows beside the field at their path and ErrorMessage lists when no field shows them. The API's
 * 422 answers are ones (ApiFailure), and so are the problems this console finds itself before it
 * sends anything (an amount it cannot read, a rejection without a reason): one path to the page,
 * without making up an API answer that never came.
 */
export class FieldProblems extends Error {
  constructor(
    message: string,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
  }

  /** The message of a detail at `path`, for showing next to the field it is about. */
  detailAt(path: string): string | undefined {
    return this.details.find((detail) => detail.path === path)?.message;
  }

  /**
   * The details about the entries of the list at `path` (`keywords.include.0`: the first keyword),
   * by the entry's index: a field holding the list shows them, not the summary above the form.
   */
  itemDetailsAt(path: string): { index: number; message: string }[] {
    return this.details.flatMap((detail) => {
      const index = itemIndex(detail.path, path);
      return index === undefined ? [] : [{ index, message: detail.message }];
    });
  }
}

/** The index of the list entry `detailPath` names under `listPath` (`a.b.2` under `a.b`: 2), if it names one. */
export function itemIndex(detailPath: string, listPath: string): number | undefined {
  if (!detailPath.startsWith(`${listPath}.`)) return undefined;
  const rest = detailPath.slice(listPath.length + 1);
  return /^\d+$/.test(rest) ? Number(rest) : undefined;
}
