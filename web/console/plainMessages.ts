/**
 * The API's 422 details carry zod's default wording where a schema gives none ("Too small:
 * expected string to have >=1 characters"). Shown under a field, that reads like a stack trace:
 * these rules say the same thing in plain words. A message the API wrote itself (every refine
 * does) matches none of them and is shown as it is.
 */
const typeNames: Record<string, string> = {
  number: 'a number', string: 'text', boolean: 'true or false', array: 'a list', object: 'a group of fields', int: 'a whole number',
};

const sizeNouns: Record<string, string> = { characters: 'characters', items: 'entries', entries: 'entries', bytes: 'bytes' };

const options = (list: string) => list.split('|').map((option) => option.replace(/^"|"$/g, '')).join(', ');

const rules: [RegExp, (...groups: string[]) => string][] = [
  [/^Invalid input: expected \w+, received undefined$/, () => 'is required'],
  [/^Invalid input: expected (\w+), received \w+$/, (type) => `must be ${typeNames[type!] ?? type}`],
  [/^Invalid input: expected (.+)$/, (value) => `must be ${value}`],
  [/^Invalid option: expected one of (.+)$/, (list) => `must be one of ${options(list!)}`],
  [/^Too small: expected string to have >=1 characters$/, () => 'is required'],
  [/^Too small: expected \w+ to have >=?(\d+) (\w+)$/, (count, unit) => `needs at least ${count} ${count === '1' ? 'entry' : sizeNouns[unit!] ?? unit}`],
  [/^Too big: expected \w+ to have <=?(\d+) (\w+)$/, (count, unit) => `takes at most ${count} ${sizeNouns[unit!] ?? unit}`],
  [/^Too small: expected \w+ to be >(?!=)(\S+)$/, (bound) => `must be greater than ${bound}`],
  [/^Too small: expected \w+ to be >=(\S+)$/, (bound) => `must be at least ${bound}`],
  [/^Too big: expected \w+ to be <(?!=)(\S+)$/, (bound) => `must be less than ${bound}`],
  [/^Too big: expected \w+ to be <=(\S+)$/, (bound) => `must be at most ${bound}`],
  [/^Invalid string: must match pattern .*$/, () => 'is not in the expected format'],
  [/^Invalid (email address|URL|UUID)$/, (format) => (format === 'UUID' ? 'must be an id (a UUID such as 3f2b1c9e-…)' : `must be a valid ${format}`)],
  [/^Invalid (ISO datetime|ISO date)$/, () => 'must be a date and time such as 2026-12-01T00:00:00Z'],
  [/^Unrecognized keys?: (.+)$/, (keys) => `has fields the service does not take: ${keys}`],
  [/^Invalid input$/, () => 'is not valid'],
];

export function plainMessage(message: string): string {
  for (const [pattern, say] of rules) {
    const match = pattern.exec(message);
    if (match) return say(...match.slice(1));
  }
  return message;
}
