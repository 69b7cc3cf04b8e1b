export type CsvField = string | number | null;

/**
 * One RFC 4180 record, CRLF-terminated: a field holding a comma, a quote or a line break is quoted,
 * with quotes doubled; null is an empty field. Text that a spreadsheet would run as a formula
 * (starting with =, +, -, @, tab or CR) gets a leading apostrophe, the OWASP guard against CSV
 * injection through campaign names; numbers are written as they are.
 */
export function csvRecord(fields: ReadonlyArray<CsvField>): string {
  return `${fields.map(csvField).join(',')}\r\n`;
}

function csvField(field: CsvField): string {
  if (field === null) return '';
  if (typeof field === 'number') return String(field);
  const text = /^[=+\-@\t\r]/.test(field) ? `'${field}` : field;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
