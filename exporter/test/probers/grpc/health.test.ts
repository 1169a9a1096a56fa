import { decodeCheckResponse, encodeCheckRequest, servingStatusName } from '../../../src/probers/grpc/health';

describe('the health service on the wire', () => {
  it('encodes HealthCheckRequest as protocol buffers do, leaving an empty service out', () => {
    expect(encodeCheckRequest('')).toEqual(Buffer.alloc(0));
    expect(encodeCheckRequest('up').toString('hex')).toBe('0a027570');
    // A name longer than 127 bytes has a two-byte length.
    expect(encodeCheckRequest('s'.repeat(200)).subarray(0, 3).toString('hex')).toBe('0ac801');
  });

  it('decodes the status, skipping fields it does not know, 0 when absent', () => {
    expect(decodeCheckResponse(Buffer.from('0801', 'hex'))).toBe(1);
    expect(decodeCheckResponse(Buffer.alloc(0))).toBe(0);
    // An unknown varint field, a fixed64, a string and a fixed32 around the status.
    expect(decodeCheckResponse(Buffer.from('1005' + '190102030405060708' + '2203616263' + '2d01020304' + '0802', 'hex'))).toBe(2);
    // The last occurrence wins, as in protobuf.
    expect(decodeCheckResponse(Buffer.from('08010803', 'hex'))).toBe(3);
  });

  it('refuses bytes that are not a protobuf message', () => {
    expect(() => decodeCheckResponse(Buffer.from('08', 'hex'))).toThrow(/varint/);
    expect(() => decodeCheckResponse(Buffer.from('0a05ab', 'hex'))).toThrow(/ends inside a field/);
    expect(() => decodeCheckResponse(Buffer.from('0f', 'hex'))).toThrow(/wire type 7/);
    expect(() => decodeCheckResponse(Buffer.from('ffffffffffffffffffffff', 'hex'))).toThrow(/varint/);
  });

  it('names a status as Go does: its enum name, or its number', () => {
    expect([0, 1, 2, 3, 7].map(servingStatusName)).toEqual(['UNKNOWN', 'SERVING', 'NOT_SERVING', 'SERVICE_UNKNOWN', '7']);
  });
});
