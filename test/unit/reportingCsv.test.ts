import { describe, expect, it } from 'vitest';
import { csvRecord } from '../../src/reporting/csvFormat.js';

describe('csvRecord', () => {
  it('writes plain fields as they are and ends the record with CRLF', () => {
    expect(csvRecord(['a', 1, 0.25, -3])).toBe('a,1,0.25,-3\r\n');
  });

  it('quotes fields holding commas, quotes or line breaks, doubling quotes (RFC 4180)', () => {
    expect(csvRecord(['a,b', 'say "hi"', 'two\nlines', 'cr\r'])).toBe('"a,b","say ""hi""","two\nlines","cr\r"\r\n');
  });

  it('writes null as an empty field', () => {
    expect(csvRecord(['a', null, 'b'])).toBe('a,,b\r\n');
  });

  it('prefixes text a spreadsheet would run as a formula with an apostrophe', () => {
    expect(csvRecord(['=1+1', '+SUM(A1)', '-2', '@cmd', '\tx', 'a=b'])).toBe("'=1+1,'+SUM(A1),'-2,'@cmd,'\tx,a=b\r\n");
  });
});
