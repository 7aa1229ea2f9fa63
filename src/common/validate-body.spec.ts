import { LeadUploadRequestDto } from '../leads/upload-api/lead-upload-request.dto';
import { unknownFieldProblems, validateBody } from './validate-body';

const valid = () => ({ campaign_id: 1, compliance_acknowledged: true, leads: [{ phone: '+1' }] });

describe('validateBody unknown fields', () => {
  it('names one unknown field as before', () => {
    const { problems } = validateBody(LeadUploadRequestDto, { ...valid(), campaign: 3 }, true);
    expect(problems).toEqual(['campaign is not a known field']);
  });

  it('treats Object.prototype names as unknown fields', () => {
    const body = JSON.parse('{"constructor":1,"__proto__":2,"toString":3}') as Record<
      string,
      unknown
    >;
    const { problems } = validateBody(LeadUploadRequestDto, { ...valid(), ...body }, true);
    expect(problems).toEqual(
      expect.arrayContaining(['constructor is not a known field', 'toString is not a known field']),
    );
  });

  it('names ten of 200,000 unknown fields, counts the rest and still checks the known ones', () => {
    const body: Record<string, unknown> = { ...valid(), skip_duplicates: 'x' };
    for (let i = 0; i < 200_000; i++) body[`k${i}`] = i;
    const { problems } = validateBody(LeadUploadRequestDto, body, true);
    expect(problems).toEqual([
      ...Array.from({ length: 10 }, (_, i) => `k${i} is not a known field`),
      'and 199,990 more unknown fields',
      'skip_duplicates must be a boolean',
    ]);
  });

  it('ignores unknown fields when they are allowed, dropping Object.prototype names', () => {
    const body = { ...valid(), extra: 1, constructor: 2 } as Record<string, unknown>;
    const { dto, problems } = validateBody(LeadUploadRequestDto, body, false);
    expect(problems).toEqual([]);
    expect(Object.prototype.hasOwnProperty.call(dto, 'constructor')).toBe(false);
  });
});

describe('unknownFieldProblems', () => {
  it('cuts long names to 64 code points', () => {
    const [problem] = unknownFieldProblems(['😀'.repeat(100)], 1);
    expect(problem).toBe(`${'😀'.repeat(64)}… is not a known field`);
  });

  it('counts what it does not name', () => {
    expect(unknownFieldProblems(['a', 'b'], 2)).toEqual([
      'a is not a known field',
      'b is not a known field',
    ]);
    expect(unknownFieldProblems(['a'], 1_000_000)).toEqual([
      'a is not a known field',
      'and 999,999 more unknown fields',
    ]);
  });
});
