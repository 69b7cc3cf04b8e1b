import { describe, expect, it } from 'vitest';
import { createUserAgentClassifier } from '../../src/ivt/userAgentClassifier.js';

describe('user agents', () => {
  const classify = createUserAgentClassifier();

  it.each([
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  ])('a browser is no reason for invalid traffic: %s', (userAgent) => {
    expect(classify(userAgent)).toBe('');
    expect(classify(userAgent)).toBe('');
  });

  it.each([
    'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    'curl/8.5.0',
    'python-requests/2.32.3',
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/126.0.0.0 Safari/537.36',
  ])('a bot, crawler or HTTP library is bot: %s', (userAgent) => {
    expect(classify(userAgent)).toBe('bot');
  });

  it('no user agent, or a blank one, is no_user_agent', () => {
    expect(classify(undefined)).toBe('no_user_agent');
    expect(classify('  ')).toBe('no_user_agent');
  });
});
