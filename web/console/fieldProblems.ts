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
}
