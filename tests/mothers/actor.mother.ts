import { randomUUID } from 'node:crypto';
import { Actor } from '../../src/domain/actor';

export const ActorMother = {
  user(userId: string = randomUUID()): Actor {
    return { userId, isAdmin: false };
  },
  admin(userId: string = randomUUID()): Actor {
    return { userId, isAdmin: true };
  },
};
