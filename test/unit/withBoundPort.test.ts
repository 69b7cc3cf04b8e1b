import { describe, expect, it } from 'vitest';
import { loadConfig, withBoundPort } from '../../src/config.js';

describe('withBoundPort', () => {
  it('puts the bound port in a link base that names port 0 (the default when PORT=0), and keeps any other', () => {
    expect(withBoundPort(loadConfig({ PORT: '0' }).TRACKING_BASE_URL, 40611)).toBe('http://localhost:40611');
    expect(withBoundPort('http://ads.example.com:0/t', 40611)).toBe('http://ads.example.com:40611/t');
    expect(withBoundPort('https://t.example.com', 40611)).toBe('https://t.example.com');
    expect(withBoundPort('http://localhost:8080', 40611)).toBe('http://localhost:8080');
  });
});
