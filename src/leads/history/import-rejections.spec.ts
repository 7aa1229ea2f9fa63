import { neutralizeCell, rejectionsCsv, submittedFields } from './import-rejections';

describe('import rejections (docs/dashboard.md#imports)', () => {
  it('neutralises every cell a spreadsheet would read as a formula, and nothing else', () => {
    for (const start of ['=', '+', '-', '@', '\t', '\r']) {
      expect(neutralizeCell(`${start}1+1`)).toBe(`'${start}1+1`);
    }
    for (const plain of ['Ada', '14155550100', ' =1', '', "'quoted"]) {
      expect(neutralizeCell(plain)).toBe(plain);
    }
  });

  it('keeps the lead fields as submitted: strings cut, NUL replaced, objects as JSON', () => {
    expect(
      submittedFields({
        phone: 12345,
        first_name: 'a'.repeat(1_500),
        last_name: 'x\u0000y',
        title: 'lone \ud800 surrogate',
        company: { name: 'Acme' },
        email: null,
        extra: 'dropped',
      }),
    ).toEqual({
      phone: 12345,
      first_name: 'a'.repeat(1_000),
      last_name: 'x\uFFFDy',
      title: 'lone \uFFFD surrogate',
      company: '{"name":"Acme"}',
      email: null,
    });
    expect(submittedFields('not an object')).toEqual({});
    expect(submittedFields(['phone'])).toEqual({});
  });

  it('writes RFC 4180 CSV with CRLF, a header only when asked', () => {
    const rows = [
      { row: 4, field: 'phone', message: 'phone is required', submitted: { title: 'a,"b"' } },
    ];
    expect(rejectionsCsv(rows, true)).toBe(
      'row,field,message,phone,email,first_name,last_name,company,title\r\n' +
        '4,phone,phone is required,,,,,,"a,""b"""\r\n',
    );
    expect(rejectionsCsv(rows, false)).toBe('4,phone,phone is required,,,,,,"a,""b"""\r\n');
  });
});
