import { StreamPlace, StreamPlaces } from '../../../../src/adapters/mcp/sessions/stream-places';

const makeSut = (perReplica = 5, perKey = 2) => new StreamPlaces({ perReplica, perKey });
const placed = (taken: StreamPlace | string): StreamPlace => {
  if (typeof taken === 'string') throw new Error(`refused: ${taken}`);
  return taken;
};

describe('StreamPlaces', () => {
  it('gives a key its share and refuses it more, while another key still gets its own', () => {
    const sut = makeSut();
    placed(sut.take('a'));
    placed(sut.take('a'));
    expect(sut.take('a')).toBe('key');
    placed(sut.take('b'));
    expect(sut.heldBy('a')).toBe(2);
    expect(sut.heldBy('b')).toBe(1);
    expect(sut.size).toBe(3);
  });

  it("refuses every key once the replica is full, and the key's share before the replica", () => {
    const sut = makeSut(3, 2);
    placed(sut.take('a'));
    placed(sut.take('a'));
    placed(sut.take('b'));
    expect(sut.take('c')).toBe('replica');
    expect(sut.take('b')).toBe('replica');
    expect(sut.take('a')).toBe('key');
  });

  it('gives a place back once however often it is released', () => {
    const sut = makeSut();
    const first = placed(sut.take('a'));
    const second = placed(sut.take('a'));
    first.release();
    first.release();
    expect(sut.heldBy('a')).toBe(1);
    expect(sut.size).toBe(1);
    const again = placed(sut.take('a'));
    expect(sut.take('a')).toBe('key');
    again.release();
    second.release();
    expect(sut.heldBy('a')).toBe(0);
    expect(sut.size).toBe(0);
  });
});
