import { clientBucket } from '../../../../src/adapters/http/middleware/client-address';

describe('clientBucket', () => {
  it('keeps an IPv4 address, also when written IPv4-mapped', () => {
    expect(clientBucket('203.0.113.7')).toBe('203.0.113.7');
    expect(clientBucket('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  it('puts every address of one IPv6 /64 in one bucket, however it is written', () => {
    const buckets = ['2001:db8:1:2::1', '2001:0db8:0001:0002:ffff:ffff:ffff:ffff', '2001:DB8:1:2:0:0:0:9'].map(clientBucket);
    expect(new Set(buckets)).toEqual(new Set(['2001:db8:1:2::/64']));
    expect(clientBucket('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(clientBucket('::1')).toBe('0:0:0:0::/64');
    expect(clientBucket('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  });

  it('has one bucket for a missing address', () => {
    expect(clientBucket(undefined)).toBe('unknown');
  });
});
