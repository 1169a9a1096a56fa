import * as dnsPacket from 'dns-packet';
import { decodeResponse } from '../../../src/probers/dns/message';

/** A response with one question, an A and a TXT answer, and an OPT record. */
const WHOLE = dnsPacket.encode({
  type: 'response',
  id: 7,
  questions: [{ name: 'a.test', type: 'A' }],
  answers: [
    { name: 'a.test', type: 'A', ttl: 60, data: '192.0.2.1' },
    { name: 'a.test', type: 'TXT', ttl: 60, data: 'hello' },
  ],
  additionals: [{ name: '.', type: 'OPT', udpPayloadSize: 4096 } as dnsPacket.Answer],
});

const HEADER = 12;
const QUESTION_END = HEADER + 8 + 4;

describe('reading a DNS response as strictly as Go does', () => {
  it('reads a whole response', () => {
    const response = decodeResponse(WHOLE);
    expect(response.answers?.map((answer) => ('data' in answer ? answer.data : undefined))).toEqual(['192.0.2.1', [Buffer.from('hello')]]);
    expect(response.additionals).toHaveLength(1);
  });

  it('refuses a response cut inside a record, where dns-packet alone reads undefined bytes', () => {
    for (const missing of [1, 3, 20]) expect(() => decodeResponse(WHOLE.subarray(0, WHOLE.length - missing))).toThrow(/cut short/);
    expect(() => decodeResponse(WHOLE.subarray(0, 5))).toThrow(/fewer than a header/);
    expect(() => decodeResponse(WHOLE.subarray(0, HEADER + 3))).toThrow(/name runs past the end/);
  });

  it('takes a response that ends where a question or record would start as holding what came before', () => {
    expect(decodeResponse(WHOLE.subarray(0, HEADER))).toMatchObject({ id: 7, questions: [], answers: [] });
    expect(decodeResponse(WHOLE.subarray(0, QUESTION_END))).toMatchObject({ questions: [{ name: 'a.test' }], answers: [] });
    const firstAnswerEnd = QUESTION_END + 8 + 10 + 4;
    expect(decodeResponse(WHOLE.subarray(0, firstAnswerEnd)).answers?.map((answer) => ('data' in answer ? answer.data : undefined))).toEqual(['192.0.2.1']);
  });

  it('refuses a record whose data is not as long as its RDLENGTH says', () => {
    const lying = Buffer.from(WHOLE);
    const rdlength = lying.indexOf(Buffer.from([0, 4, 192, 0, 2, 1]));
    lying.writeUInt16BE(5, rdlength);
    expect(() => decodeResponse(lying)).toThrow(/cut short or malformed/);
  });

  it('refuses a name compression pointer that points forward (a documented difference from Go)', () => {
    const pointing = Buffer.concat([WHOLE.subarray(0, QUESTION_END), Buffer.from([0xc0, QUESTION_END + 2]), WHOLE.subarray(QUESTION_END + 8)]);
    expect(() => decodeResponse(pointing)).toThrow(/bad pointer/);
  });

  it('ignores bytes after the last record, as Go does', () => {
    expect(decodeResponse(Buffer.concat([WHOLE, Buffer.from('trailing')])).answers).toHaveLength(2);
  });
});
