import { describe, expect, it } from 'vitest';
import { checkedOrigin } from './portal-origin';

describe('checkedOrigin, the browser’s check of a portal origin', () => {
  it.each([
    ['https://app.example.com', 'https://app.example.com'],
    ['  https://App.Example.com:443/ ', 'https://app.example.com'],
    ['https://app.example.com:8443', 'https://app.example.com:8443'],
    ['http://localhost:5173', 'http://localhost:5173'],
    ['http://127.0.0.2:8080', 'http://127.0.0.2:8080'],
    ['http://[::1]:3000', 'http://[::1]:3000'],
  ])('accepts %s as %s, as the service writes it', (typed, origin) => {
    expect(checkedOrigin(typed)).toEqual({ origin });
  });

  it.each([
    ['', 'Enter an origin'],
    ['app.example.com', 'Enter an origin such as'],
    ['https://app.example.com/path', 'without a path'],
    ['https://app.example.com?x=1', 'without a path'],
    ['https://*.example.com', 'without a path'],
    ['https://user@app.example.com', 'without a path'],
    ['http://app.example.com', 'must use https://'],
    ['http://10.0.0.1', 'must use https://'],
    ['javascript:alert(1)', 'without a path'],
    ['ftp://app.example.com', 'must use https://'],
  ])('refuses %j, saying why', (typed, problem) => {
    const checked = checkedOrigin(typed);
    expect('problem' in checked && checked.problem).toContain(problem);
  });
});
