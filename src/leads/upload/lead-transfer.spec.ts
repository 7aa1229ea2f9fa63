import { checkLeads } from './lead-batch';
import { packChecks, packLeads, unpackChecks, unpackLeads } from './lead-transfer';
import { LEAD_FIELDS } from './lead-validator';

const leads: Record<string, unknown>[] = [
  { phone: '+12123744203', email: ' ADA@Example.com ', first_name: 'Ada', extra: { deep: [1] } },
  { phone: 12345, email: null, last_name: ['x'], company: { a: 1 }, title: -0 },
  { phone: '(212) 374-4203', first_name: '\ud800', title: 'a\u0000b' },
  {},
  { phone: '12345', email: 'nope', company: 'x'.repeat(300) },
];

describe('packLeads / unpackLeads', () => {
  it('carries the six lead fields of every lead, in order, and nothing else', () => {
    const unpacked = unpackLeads(packLeads(leads));
    expect(unpacked).toHaveLength(leads.length);
    unpacked.forEach((lead, i) => {
      expect(Object.keys(lead)).toEqual([...LEAD_FIELDS]);
      for (const field of LEAD_FIELDS) expect(lead[field]).toBe(leads[i][field]);
    });
  });

  it('leaves the verdicts as they were', () => {
    expect(checkLeads(unpackLeads(packLeads(leads)), 'US')).toEqual(checkLeads(leads, 'US'));
  });
});

describe('packChecks / unpackChecks', () => {
  it('round-trips valid and invalid verdicts, key order included', () => {
    const checks = checkLeads(leads, 'US');
    expect(checks.some((c) => c.ok)).toBe(true);
    expect(checks.some((c) => !c.ok)).toBe(true);
    expect(JSON.stringify(unpackChecks(packChecks(checks)))).toBe(JSON.stringify(checks));
    expect(unpackChecks(packChecks([]))).toEqual([]);
  });
});
