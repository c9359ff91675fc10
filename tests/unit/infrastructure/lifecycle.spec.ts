import { Lifecycle } from '../../../src/infrastructure/di/lifecycle';

const makeSut = (failing: string[] = []) => {
  const calls: string[] = [];
  const step = (name: string, withStart = true) => ({
    name,
    start: withStart ? async () => void calls.push(`start ${name}`) : undefined,
    stop: async () => {
      calls.push(`stop ${name}`);
      if (failing.includes(name)) throw new Error(`${name} failed`);
    },
  });
  const sut = new Lifecycle([step('pool', false), step('coalescer'), step('listener')]);
  return { sut, calls };
};

describe('Lifecycle', () => {
  it('starts in order and stops in reverse order', async () => {
    const { sut, calls } = makeSut();
    await sut.start();
    await sut.stop();
    expect(calls).toEqual(['start coalescer', 'start listener', 'stop listener', 'stop coalescer', 'stop pool']);
  });

  it('runs every stop when one fails, then rethrows the first failure', async () => {
    const { sut, calls } = makeSut(['listener', 'coalescer']);
    await expect(sut.stop()).rejects.toThrow('listener failed');
    expect(calls).toEqual(['stop listener', 'stop coalescer', 'stop pool']);
  });

  it('hands the stops to a shutdown in the order they run', () => {
    expect(
      makeSut()
        .sut.stopSteps()
        .map((step) => step.name),
    ).toEqual(['listener', 'coalescer', 'pool']);
  });
});
